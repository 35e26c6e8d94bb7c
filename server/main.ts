// The composition root of a server process: the shared context (database, repositories,
// services), the render pool, the render service, the job loop, the webhook dispatcher and the
// HTTP app, each built once here and handed to whoever needs it, with the cluster-wide rate limiter
// and the metrics every part reports to. Used by bin/serve.ts (and so by `svc serve`, which also
// serves the metrics on its admin listener) and by the test helpers. `listen` starts the
// background loops once the server knows its public URL; `close` drains everything in order.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from './config.js'
import { createContext } from './context.js'
import type { Context } from './context.js'
import type { Db } from './store/db.js'
import { createLogger } from './logger.js'
import { loadTls } from './process/tls.js'
import { migrate } from './store/migrate.js'
import { buildApp } from './app.js'
import { createRenderPool } from '../pool/render-pool.js'
import type { RenderPoolStats } from '../pool/render-pool.js'
import { createRunRecorder } from './render/run-recorder.js'
import { createDocumentLinks } from './documents/links.js'
import { createRenderPipeline } from './render/pipeline.js'
import { createSyncRenders } from './render/sync.js'
import { createJobsService } from './jobs/service.js'
import { createJobLoop } from './jobs/loop.js'
import { createWebhookDispatcher } from './webhooks/dispatcher.js'
import { createAuthenticator } from './auth/authenticate.js'
import { createLastUsedRecorder } from './auth/last-used.js'
import { createRateLimiter } from './auth/rate-limiter.js'
import { createMetrics } from './metrics/metrics.js'
import type { Metrics } from './metrics/metrics.js'
import { createFailureThrottle } from './auth/failure-throttle.js'
import { checkStorageLimits } from './store/limits.js'
import { WATCH_INTERVAL_MS } from './secrets/reload.js'

export interface ServerOptions {
  logger?: Logger
  /** Use this pool instead of opening one from the config (tests). */
  db?: Db
  /** Apply the migrations before anything else (`svc serve` does). */
  migrate?: boolean
  /** Extra /api/v1 routes (tests use it to exercise error paths). */
  extend?: (api: FastifyInstance) => void | Promise<void>
}

export interface Server {
  config: Config
  context: Context
  app: FastifyInstance
  logger: Logger
  /** This process's Prometheus metrics (served by bin/serve.ts on the admin listener). */
  metrics: Metrics
  /** Why this process should take no new sync renders now (readiness), or undefined. */
  saturated (): string | undefined
  /** The render pool's counters (what the metrics read; tests check releases on them). */
  renderStats (): RenderPoolStats
  /** The TLS certificate the server presents, and whether it was generated here. */
  tls: { cert: Buffer, selfSigned: boolean, certFile: string }
  /** Listens, then starts the job loop and the dispatcher; answers the public base URL. */
  listen (address?: { host?: string, port?: number }): Promise<string>
  /** Stops taking background work (job claims); close() calls it first. */
  quiesce (): void
  /**
   * Claims stop, in-flight requests drain, rate-limit leases go back, running jobs finish (leases
   * renewed), then webhooks, buffered writes, the render pool (last: a job still rendering would
   * fail) and the pools.
   */
  close (): Promise<void>
}

export async function createServer (config: Config, options: ServerOptions = {}): Promise<Server> {
  const logger = options.logger ?? createLogger(config)
  const metrics = createMetrics()
  const context = await createContext(config, {
    logger, db: options.db, onDataSourceQuery: metrics.observeDataSourceQuery.bind(metrics)
  })
  if (options.migrate === true) await migrate(context.db)
  try {
    await checkStorageLimits(context.db, config) // refuses limits the database cannot hold
  } catch (err) {
    await context.close()
    throw err
  }
  const tls = await loadTls(config)
  const { repos } = context

  let baseUrl = config.publicUrl ?? `https://${config.host}:${config.port}`
  const { threads, maxQueue, workspaceRunning, workspaceQueue, fairWindowMs, timeoutMs } = config.render
  const pool = createRenderPool({
    threads,
    maxQueue,
    workspaceRunning,
    workspaceQueue,
    fairWindowMs,
    timeoutMs,
    onRender: metrics.observeRender.bind(metrics)
  })
  const recorder = createRunRecorder(repos.runs, context.db, {
    onError: (err) => logger.error({ err }, 'could not write run history'),
    onDrop: (run, err) => {
      logger.error({ err, correlationId: run.correlationId, runId: run.id }, 'run refused by the database; dropped')
    }
  })
  const links = createDocumentLinks(context.box, config.documents.linkTtlMs)
  // What the render pipeline, sync renders and the jobs module are built from: each takes the part
  // its own …Deps interface names (PipelineDeps, SyncDeps, JobsDeps).
  const parts = {
    config,
    db: context.db,
    pool,
    templates: context.resolver,
    environments: repos.environments,
    dataSources: context.dataSources,
    jobs: repos.jobs,
    documents: repos.documents,
    documentUsage: repos.documentUsage,
    runs: repos.runs,
    recorder,
    outbox: context.services.outbox,
    links,
    baseUrl: () => baseUrl
  }
  const pipeline = createRenderPipeline(parts)
  const sync = createSyncRenders(parts, pipeline, {
    onLateError: (err, correlationId) => logger.error({ err, correlationId }, 'could not record a streamed render')
  })
  const jobs = createJobsService(parts, pipeline, { queued: () => { loop.wake() } })
  const webhooks = config.webhooks.enabled
    ? createWebhookDispatcher(config, {
      db: context.db,
      box: context.box,
      repos,
      outbox: context.services.outbox,
      logger: logger.child({ component: 'webhooks' }),
      onAttempt: metrics.observeWebhookAttempt.bind(metrics)
    })
    : undefined
  // The claim transaction's latency, timed for the loop only (the shared repository stays as it is).
  const claimJobs = {
    ...repos.jobs,
    async claim (...args: Parameters<typeof repos.jobs.claim>) {
      const started = performance.now()
      try {
        return await repos.jobs.claim(...args)
      } finally {
        metrics.observeClaim((performance.now() - started) / 1000)
      }
    }
  }
  const loop = createJobLoop(config, {
    jobs: claimJobs, documents: repos.documents, run: jobs, log: logger.child({ component: 'jobs' })
  })
  metrics.watch({
    db: context.db,
    pool: pool.stats.bind(pool),
    jobsRunning: () => loop.inFlight(),
    dataSourcePools: context.dataSources.poolCount.bind(context.dataSources)
  })
  const saturated = (): string | undefined => {
    const s = pool.stats()
    const full = s.running >= s.threads && s.waiting.interactive >= s.maxQueue
    return full ? 'every render thread is busy and the waiting room is full' : undefined
  }
  const lastUsed = createLastUsedRecorder(repos.apiKeys, 5000, (err) => logger.warn({ err }, 'could not record key use'))
  // One sliding window per key across every node, shared through the database.
  const admission = createRateLimiter(repos.rateLimits, {
    defaultPerMinute: config.rateLimit.perMinute,
    onError: (err) => logger.warn({ err }, 'rate limit lease failed')
  })
  const failures = createFailureThrottle(config.http.authFailuresPerMinute)
  const auth = createAuthenticator({
    keys: repos.apiKeys, templates: context.resolver, admission, lastUsed, failures
  })
  const app = await buildApp({
    config,
    context,
    logger,
    https: { cert: tls.cert, key: tls.key },
    auth,
    api: { templates: context.services.templates, pipeline, sync, jobs, documents: repos.documents, links },
    metrics,
    saturated,
    extend: options.extend
  })

  // Keys added to or removed from the keyring file are followed without a restart (secrets/reload.ts).
  const stopWatchingKeys = context.box.watch(WATCH_INTERVAL_MS)
  let closed: Promise<void> | undefined
  const quiesce = (): void => { loop.quiesce() }
  async function shutdown (): Promise<void> {
    stopWatchingKeys()
    // Claims stop first, so no job starts while requests drain; running jobs finish in loop.close().
    quiesce()
    await app.close()
    await lastUsed.close()
    await admission.close()
    await loop.close()
    await webhooks?.close()
    await recorder.close()
    await pool.close()
    await context.close()
  }

  return {
    config,
    context,
    app,
    logger,
    metrics,
    saturated,
    renderStats: () => pool.stats(),
    tls: { cert: tls.cert, selfSigned: tls.selfSigned, certFile: tls.certFile },
    async listen (address = {}) {
      const host = address.host ?? config.host
      await app.listen({ host, port: address.port ?? config.port })
      const bound = app.server.address()
      const port = typeof bound === 'object' && bound !== null ? bound.port : config.port
      const url = config.publicUrl ?? `https://${host.includes(':') ? `[${host}]` : host}:${port}`
      baseUrl = url
      if (config.jobs.enabled) loop.start()
      webhooks?.start()
      return url
    },
    quiesce,
    close () {
      closed ??= shutdown()
      return closed
    }
  }
}
