// Prometheus metrics of one server process (prom-client, a registry of its own: no global
// state). Parts report through small hooks (observe*), and gauges read the parts' own counters
// when scraped (watch). Labels are bounded: route templates, not URLs; error codes of the
// catalogue; lanes, formats and outcomes of the engine; never template codes or key ids.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { RowDataPacket } from 'mysql2/promise'
import type { Db } from '../store/db.js'
import type { RenderEvent, RenderPoolStats } from '../../pool/render-pool.js'

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export interface Watched {
  db: Db
  pool: () => RenderPoolStats
  jobsRunning: () => number
  dataSourcePools: () => number
}

export interface Metrics {
  registry: Registry<'text/plain; version=0.0.4; charset=utf-8'>
  observeHttp(method: string, route: string, status: number, errorCode: string, seconds: number): void
  observeRender(e: RenderEvent): void
  observeClaim(seconds: number): void
  observeWebhookAttempt(outcome: string, ms: number): void
  observeDataSourceQuery(ms: number, ok: boolean): void
  /** Gauges read from the running parts (and two counts from the database) at scrape time. */
  watch(w: Watched): void
}

export function createMetrics (): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'svc_' })
  const registers = [registry]
  const http = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by route template, status and errorCode',
    labelNames: ['method', 'route', 'status', 'error_code'],
    registers
  })
  const httpTime = new Histogram({ name: 'svc_http_request_duration_seconds', help: 'HTTP request latency', labelNames: ['method', 'route'], buckets: SECONDS, registers })
  const renders = new Counter({ name: 'svc_renders_total', help: 'Renders by lane, format and outcome', labelNames: ['lane', 'format', 'outcome'], registers })
  const renderTime = new Histogram({ name: 'svc_render_duration_seconds', help: 'Time on a render thread', labelNames: ['lane'], buckets: SECONDS, registers })
  const renderWait = new Histogram({ name: 'svc_render_wait_seconds', help: 'Time waiting for a render thread', labelNames: ['lane'], buckets: SECONDS, registers })
  const refusals = new Counter({
    name: 'svc_rate_limit_refusals_total',
    help: 'Requests refused with 429 RATE_LIMITED',
    registers
  })
  const claimTime = new Histogram({ name: 'svc_job_claim_duration_seconds', help: 'Job claim transaction latency', buckets: SECONDS, registers })
  const attempts = new Counter({
    name: 'svc_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'],
    registers
  })
  const attemptTime = new Histogram({
    name: 'svc_webhook_attempt_duration_seconds',
    help: 'Webhook attempt latency',
    buckets: SECONDS,
    registers
  })
  const queryTime = new Histogram({
    name: 'svc_datasource_query_duration_seconds',
    help: 'Data-source statement time',
    labelNames: ['outcome'],
    buckets: SECONDS,
    registers
  })

  return {
    registry,
    observeHttp (method: string, route: string, status: number, errorCode: string, seconds: number): void {
      http.inc({ method, route, status: String(status), error_code: errorCode })
      httpTime.observe({ method, route }, seconds)
      if (errorCode === 'RATE_LIMITED') refusals.inc()
    },
    observeRender (e: RenderEvent): void {
      renders.inc({ lane: e.lane, format: e.format ?? 'none', outcome: e.outcome })
      renderWait.observe({ lane: e.lane }, e.waitMs / 1000)
      if (e.outcome !== 'RENDER_BUSY') renderTime.observe({ lane: e.lane }, e.renderMs / 1000)
    },
    observeClaim (seconds: number): void { claimTime.observe(seconds) },
    observeWebhookAttempt (outcome: string, ms: number): void {
      attempts.inc({ outcome })
      attemptTime.observe(ms / 1000)
    },
    observeDataSourceQuery (ms: number, ok: boolean): void { queryTime.observe({ outcome: ok ? 'ok' : 'error' }, ms / 1000) },

    watch (w: Watched): void {
      const g = (
        name: string,
        help: string,
        labelNames: string[],
        collect: (this: Gauge) => void | Promise<void>
      ): Gauge =>
        // The gauge lives in `registers`; callers need not hold it
        new Gauge({ name, help, labelNames, registers, collect })
      g('svc_render_threads', 'Render threads by state', ['state'], function () {
        const s = w.pool()
        this.set({ state: 'busy' }, s.running)
        this.set({ state: 'idle' }, s.threads - s.running)
      })
      g('svc_render_waiting', 'Renders waiting for a thread, by lane', ['lane'], function () {
        const s = w.pool()
        this.set({ lane: 'interactive' }, s.waiting.interactive)
        this.set({ lane: 'batch' }, s.waiting.batch)
      })
      g('svc_render_waiting_room', 'Interactive renders allowed to wait ' +
        '(SVC_RENDER_QUEUE)', [], function () { this.set(w.pool().maxQueue) })
      g('svc_jobs_running_here', 'Jobs this process is working on', [], function () { this.set(w.jobsRunning()) })
      g('svc_datasource_pools', 'Open data-source pools', [], function () { this.set(w.dataSourcePools()) })
      g('svc_db_connections', 'Service database connections of this process, by state', ['state'], function () {
        // mysql2 keeps these on the callback pool under the promise wrapper (not a public API).
        const p = (
          w.db as unknown as {
            pool?: {
              _allConnections?: { length: number }
              _freeConnections?: { length: number }
              _connectionQueue?: { length: number }
            }
          }
        ).pool
        if (p?._allConnections === undefined) return
        const free = p._freeConnections?.length ?? 0
        this.set({ state: 'busy' }, p._allConnections.length - free)
        this.set({ state: 'free' }, free)
        this.set({ state: 'waiting' }, p._connectionQueue?.length ?? 0)
      })
      g('svc_jobs', 'Jobs in the shared queue by status (all processes)', ['status'], async function () {
        await countInto(this, w.db, "SELECT status, COUNT(*) AS n FROM render_jobs WHERE status IN ('queued', " +
          "'running', 'failed') GROUP BY status",
        ['queued', 'running', 'failed'])
      })
      g('svc_webhook_deliveries', 'Webhook deliveries by status (all processes)', ['status'], async function () {
        await countInto(this, w.db, 'SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE status IN ' +
          "('pending', 'failed', 'abandoned') GROUP BY status",
        ['pending', 'failed', 'abandoned'])
      })
    }
  }
}

/** Counts per status, 0 for absent ones; a database that does not answer leaves the gauge out. */
async function countInto (gauge: Gauge, db: Db, sql: string, statuses: string[]): Promise<void> {
  gauge.reset()
  try {
    const [rows] = await db.query<RowDataPacket[]>({ sql, timeout: 2000 })
    const counts = new Map(rows.map((r) => [r.status as string, Number(r.n)]))
    for (const s of statuses) gauge.set({ status: s }, counts.get(s) ?? 0)
  } catch {
    // Reported by /readyz; the scrape still answers with everything else.
  }
}
