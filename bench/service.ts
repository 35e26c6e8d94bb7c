// Service benchmark (not a test): run by `make bench` (scripts/bench.sh starts the database, the
// demo and the server first). In one run, on the same invoice rows: the raw engine in the render
// pool (the ceiling), the HTTPS service through `svc bench`'s runBench, an async drain, labels,
// and the engine's peers; medians of several runs go to the "Service benchmark" section of
// bench/RESULTS.md. Options: --runs N, --duration 10s, -c N, --jobs N, --rss-duration 60s, --only a,b
// (sync, raw, floor, labels, drain, rss, peers) and --rate R (open loop) for investigations: those do not
// write RESULTS.md. The tenancy and scaling rows (service-rows.ts: neighbour, limiter, nodes) write a
// section of their own, also when run alone (--only neighbour,longneighbour,limiter,nodes); --neighbour-clients N
// sets A's clients in the noisy-neighbour row (default c ÷ 2; B gets 8×).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { RowDataPacket } from 'mysql2/promise'
import { loadConfig } from '../server/config.js'
import { createContext } from '../server/context.js'
import { renderLimits } from '../server/render/pipeline.js'
import { parseDuration } from '../server/util/duration.js'
import { examplesDir } from '../server/util/paths.js'
import { createRenderPool } from '../pool/render-pool.js'
import type { RenderInput } from '../engine/types.js'
import { runBench } from '../cli/bench/runner.js'
import { closedLoop, peerPool, rawEngine } from './service-raw.js'
import { asyncDrain, type DrainResult } from './service-drain.js'
import { cpuSampler } from './service-cpu.js'
import { rssCurve } from './service-rss.js'
import { writeSection, type Report, type ServiceRun } from './service-report.js'
import {
  limiterOnOff, longNeighbour, noisyNeighbour, twoNodes, warm, type RowOptions, type Target
} from './service-rows.js'
import { rowFigures, rowVerdicts, writeRowsSection, type RowsReport } from './service-rows-report.js'
import type { InvoiceData } from './engine-baselines.js'
import { jsreportPeer } from './peer-jsreport.js'
import { startStackFloor } from './stack-floor.js'
import { load1 } from './stats.js'

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10s' },
    // The server's JIT is still compiling after 5 s of load: with --trace-opt, TurboFan finished
    // ~80 functions/s at 5 s of invoices, ~10/s at 15 s and ~1/s from ~20 s (its three isolates
    // on 2 shared cores), and the first run after a 5 s warm-up was the slow one of every set.
    warmup: { type: 'string', default: '20s' },
    connections: { type: 'string', short: 'c', default: '16' },
    jobs: { type: 'string', default: '5000' },
    'rss-duration': { type: 'string', default: '60s' },
    only: { type: 'string' },
    rate: { type: 'string' },
    'neighbour-clients': { type: 'string' }
  }
})
const RUNS = Number(args.runs)
const DURATION = parseDuration(args.duration) as number
const WARMUP = parseDuration(args.warmup) as number
const C = Number(args.connections)
const JOBS = Number(args.jobs)
const RSS_DURATION = parseDuration(args['rss-duration']) as number
// Open loop at this rate instead of saturation: steadier CPU-per-request figures for A/B checks.
const RATE = args.rate === undefined ? undefined : Number(args.rate)
/** A JSON.stringify replacer: numbers to 2 decimals. */
const round2 = (_k: string, v: unknown): unknown => typeof v === 'number' ? Math.round(v * 100) / 100 : v
const only = args.only === undefined ? undefined : new Set(args.only.split(','))
const want = (part: string): boolean => only === undefined || only.has(part)
const ALL_ROWS = ['neighbour', 'longneighbour', 'limiter', 'nodes']
const ROWS = ALL_ROWS.filter(want)
// A's clients: enough to saturate the server alone (half the closed loop's), B 8× that.
const NEIGHBOUR_C = Number(args['neighbour-clients'] ?? Math.max(1, Math.round(C / 2)))

const config = loadConfig(process.env)
interface DemoKeys { workspace: { id: string }, baseUrl: string, caCert: string, keys: { live: { key: string } } }
const demo = JSON.parse(readFileSync(join(config.home, 'demo-keys.json'), 'utf8')) as DemoKeys
const ca = readFileSync(demo.caCert)
// Written by scripts/bench.sh: workspace B's key, A's key the limiter does not count, node 2.
interface BenchKeys { limiterOffKey: string, neighbour: { workspaceId: string, key: string }, node2Url: string }
const extra = JSON.parse(readFileSync(join(config.home, 'bench-keys.json'), 'utf8')) as BenchKeys
const ctx = await createContext(config, { poolSize: 4 })
const cpu = cpuSampler({ server: Number(process.env.BENCH_SERVER_PID), mariadb: Number(process.env.BENCH_DB_PID) })
const log = (s: string): void => { process.stderr.write(`bench: ${s}\n`) }

// The same rows the service reads: the production environment's invoices 1–12 (5–40 lines) and
// shipping batches 1–3, read once through the service's own data-source code.
const LIMITS = renderLimits(config.render)
const env = await ctx.repos.environments.get(demo.workspace.id, 'production')
if (env === undefined) throw new Error('no production environment in the demo workspace: run svc demo')
async function inputsFor (code: string, parameters: Array<Record<string, unknown>>): Promise<RenderInput[]> {
  const t = await ctx.resolver.resolve(demo.workspace.id, code)
  return await Promise.all(parameters.map(async (p) => {
    const { datasets } = await ctx.dataSources.readAll(
      env as NonNullable<typeof env>,
      t.definition,
      p,
      {},
      LIMITS.maxRows
    )
    return {
      versionKey: t.versionKey,
      definition: t.definitionJson,
      parameters: p,
      context: {},
      datasets,
      limits: LIMITS
    }
  }))
}
const invoiceParams = Array.from({ length: 12 }, (_, i) => ({ invoiceId: i + 1 }))
const labelParams = [1, 2, 3].map((batchId) => ({ batchId }))
const invoices = await inputsFor('invoice', invoiceParams)
const labels = await inputsFor('shipping-label', labelParams)

const threads = config.render.threads
const pool = createRenderPool({ threads, maxQueue: 100_000, timeoutMs: 30_000 })

/** What every sync load of workspace A's server shares: closed loop of C clients, its live key. */
const syncLoad = {
  url: demo.baseUrl,
  key: demo.keys.live.key,
  async: false,
  connections: C,
  timeoutMs: 30_000,
  ca,
  insecure: false,
  jobTimeoutMs: 60_000
}

async function service (template: string, parameters: Array<Record<string, unknown>>,
  target: { url: string, sampler: typeof cpu } = { url: demo.baseUrl, sampler: cpu }): Promise<ServiceRun> {
  const q0 = await questions()
  const sample = target.sampler.start()
  const result = await runBench({
    ...syncLoad,
    url: target.url,
    template,
    parameters,
    rate: RATE,
    durationMs: DURATION,
    warmupMs: 1000,
    maxErrorRate: 0
  })
  const split = sample.stop()
  // Everything served during the call (the 1 s warm-up too), at the window's rate.
  const served = result.requestsPerSec * split.wallMs / 1000
  const statements = (await questions() - q0) / Math.max(1, served)
  return {
    result,
    cpu: split,
    statements,
    serverCpuMsPerRequest: (split.server * split.cores * split.wallMs) / Math.max(1, served)
  }
}

/** Unmeasured load so the server's threads run optimised code before the first run counts. */
async function warmService (template: string, parameters: Array<Record<string, unknown>>, ms: number): Promise<void> {
  await runBench({ ...syncLoad, template, parameters, durationMs: ms, warmupMs: 0, maxErrorRate: 1 })
}

/** MariaDB's statement counter (service database and demo data sources share the instance). */
async function questions (): Promise<number> {
  const [rows] = await ctx.db.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Questions'")
  const [row] = rows
  if (row === undefined) throw new Error('SHOW GLOBAL STATUS LIKE \'Questions\' returned no row')
  return Number(row.Value)
}

const rowOptions: RowOptions = { ca, template: 'invoice', parameters: invoiceParams, durationMs: DURATION, questions }
const nodeA: Target = { url: demo.baseUrl, key: demo.keys.live.key }
/** What both sections say about the run. */
const header = {
  date: new Date().toISOString(), runs: RUNS, durationMs: DURATION, warmupMs: WARMUP, connections: C, threads
}
const rows: RowsReport = {
  ...header,
  loadBefore: load1(),
  neighbour: [],
  longNeighbour: [],
  limiter: [],
  nodes: []
}

const report: Report = {
  ...header,
  raw: [],
  sync: [],
  rawLabels: [],
  labels: [],
  drain: [],
  pdfkit: [],
  pdfmake: [],
  engineOne: [],
  rss: [],
  floor: []
}

if (want('raw') || want('labels')) {
  // As long as the server's (below): its first run after a 2 s warm-up was the slow one too.
  log(`warming the raw pool (${threads} threads, ${WARMUP / 1000} s invoices, ${WARMUP / 2000} s labels)`)
  await closedLoop(rawEngine(pool, invoices), C, 0, WARMUP)
  await closedLoop(rawEngine(pool, labels), C, 0, WARMUP / 2)
}
log(`warming the server (${WARMUP / 1000} s invoices${want('labels') ? `, ${WARMUP / 2000} s labels` : ''})`)
if (want('sync') || want('drain')) await warmService('invoice', invoiceParams, WARMUP)
if (want('labels')) await warmService('shipping-label', labelParams, WARMUP / 2)
// The stack's floor (stack-floor.ts): its own server process, warmed as long as the service.
const floor = want('floor') ? await startStackFloor(demo.workspace.id, 'invoice') : undefined
const floorTarget = floor === undefined
  ? undefined
  : { url: floor.url, sampler: cpuSampler({ server: floor.pid, mariadb: Number(process.env.BENCH_DB_PID) }) }
if (floorTarget !== undefined) {
  log(`warming the stack's floor (${WARMUP / 1000} s invoices)`)
  await runBench({
    ...syncLoad, url: floorTarget.url, template: 'invoice', parameters: invoiceParams, durationMs: WARMUP, warmupMs: 0, maxErrorRate: 1
  })
  floor?.pause()
}
// The long neighbour's renders (issue 30): B's sales report over the demo's ~3,650 sales, each
// row read 8 times (~29,000 rows, several seconds a render), published for B once per run.
const LONG_LEAD_MS = 8000
const longTarget = {
  key: extra.neighbour.key, template: 'bench-long-report', parameters: [{ from: '2025-01-01', to: '2026-12-31' }]
}
if (want('longneighbour')) {
  const t = JSON.parse(readFileSync(join(examplesDir, 'templates', 'sales-report.json'), 'utf8')) as
    { code: string, datasets: Array<{ query: string }> }
  t.code = longTarget.template
  const [sales] = t.datasets
  if (sales === undefined) throw new Error('sales-report.json has no dataset')
  sales.query = 'SELECT s.region, s.sold_on, s.customer, s.product, s.qty, s.amount FROM sales s JOIN seq_1_to_8 k ' +
    'WHERE s.sold_on BETWEEN :from AND :to ORDER BY s.region, s.sold_on, s.id, k.seq'
  await ctx.services.templates.publish(extra.neighbour.workspaceId, t, {
    note: 'bench: long neighbour',
    publishedBy: 'bench'
  })
}
if (ROWS.length > 0) {
  log(`warming workspace B, the limiter-off key and node 2 (${WARMUP / 2000} s each${want('sync') ? '' : ', A too'})`)
  if (!want('sync') && !want('drain')) await warm(rowOptions, nodeA, C, WARMUP / 2)
  if (want('neighbour')) await warm(rowOptions, { url: demo.baseUrl, key: extra.neighbour.key }, C, WARMUP / 2)
  if (want('limiter')) await warm(rowOptions, { url: demo.baseUrl, key: extra.limiterOffKey }, C, WARMUP / 2)
  if (want('nodes')) await warm(rowOptions, { url: extra.node2Url, key: demo.keys.live.key }, C, WARMUP / 2)
}
for (let run = 1; run <= RUNS; run++) {
  // Interleaved, so drift in the machine's load falls on every series alike; within a run the
  // raw engine's halves come before and after the service and the floor (closedLoop's midway),
  // so each run's ratios compare figures of the same stretch of time.
  const paired = async (): Promise<void> => {
    if (want('sync')) {
      const s = await service('invoice', invoiceParams)
      report.sync.push(s)
      log(`run ${run}: service sync ${s.result.requestsPerSec.toFixed(0)} req/s, ` +
        `p50 ${s.result.latency.p50.toFixed(1)} p99 ${s.result.latency.p99.toFixed(1)} ms, ` +
          `errors ${s.result.errors}, ${s.statements.toFixed(1)} statements/request, server ` +
            `CPU ${s.serverCpuMsPerRequest.toFixed(2)} ms/request (main ` +
              `thread ${(s.serverCpuMsPerRequest * s.cpu.serverMain / s.cpu.server).toFixed(2)}), ` +
                `split ${JSON.stringify(s.cpu, round2)}`)
    }
    if (floorTarget !== undefined) {
      floor?.resume()
      const s = await service('invoice', invoiceParams, floorTarget)
      floor?.pause()
      report.floor?.push(s)
      log(`run ${run}: stack floor ${s.result.requestsPerSec.toFixed(0)} req/s, ` +
        `errors ${s.result.errors}, ${s.statements.toFixed(1)} statements/request, ` +
          `CPU ${s.serverCpuMsPerRequest.toFixed(2)} ms/request (main ` +
            `thread ${(s.serverCpuMsPerRequest * s.cpu.serverMain / s.cpu.server).toFixed(2)})`)
    }
  }
  if (want('raw')) {
    const r = await closedLoop(rawEngine(pool, invoices), C, 1000, DURATION, paired)
    report.raw.push(r)
    log(`run ${run}: raw engine ${r.rate.toFixed(0)} renders/s, ${r.cpuMs.toFixed(2)} ms CPU/render (halves before ` +
      'and after the service)')
  } else {
    await paired()
  }
  if (want('labels')) {
    const r = await closedLoop(rawEngine(pool, labels), C, 1000, DURATION / 2)
    report.rawLabels.push(r)
    const s = await service('shipping-label', labelParams)
    report.labels.push(s)
    log(`run ${run}: labels raw ${r.rate.toFixed(0)}/s, service ${s.result.requestsPerSec.toFixed(0)} req/s`)
  }
  if (want('drain')) {
    const q0 = await questions()
    const sample = cpu.start()
    const d: DrainResult = await asyncDrain(ctx.db, {
      url: demo.baseUrl,
      key: demo.keys.live.key,
      ca,
      template: 'invoice',
      parameters: invoiceParams,
      jobs: JOBS,
      connections: C,
      timeoutMs: 300_000
    })
    d.cpu = sample.stop()
    d.statements = (await questions() - q0) / Math.max(1, d.succeeded)
    d.serverCpuMsPerJob = d.cpu.server * d.cpu.cores * d.cpu.wallMs / Math.max(1, d.succeeded)
    report.drain.push(d)
    log(`run ${run}: async drain ${d.succeeded}/${d.jobs} in ${d.seconds.toFixed(2)} s = ${d.rate.toFixed(0)} jobs/s ` +
      `(submitted in ${d.submitSeconds.toFixed(2)} s; queue alone ${d.queueJobs} in ${d.queueSeconds.toFixed(2)} s ` +
        `= ${d.queueRate.toFixed(0)} jobs/s), ${d.statements.toFixed(1)} statements/job, server ` +
          `CPU ${d.serverCpuMsPerJob.toFixed(2)} ms/job, ` +
            `split ${JSON.stringify(d.cpu, round2)}`)
  }
  if (want('neighbour')) {
    const n = await noisyNeighbour(rowOptions, nodeA, { url: demo.baseUrl, key: extra.neighbour.key }, NEIGHBOUR_C)
    rows.neighbour.push(n)
    log(`run ${run}: noisy neighbour: A alone (${n.clients} clients) p50 ${n.alone.latency.p50.toFixed(1)} ` +
      `p99 ${n.alone.latency.p99.toFixed(1)} ms; with B (${n.clients * 8} clients) ` +
        `p50 ${n.shared.latency.p50.toFixed(1)} p99 ${n.shared.latency.p99.toFixed(1)} ms, A's ` +
          `share ${(n.share * 100).toFixed(0)}%, errors A ${n.shared.errors} B ${n.neighbour.errors}`)
  }
  if (want('longneighbour')) {
    const n = await longNeighbour(rowOptions, nodeA, { ...longTarget, url: demo.baseUrl }, threads, LONG_LEAD_MS)
    rows.longNeighbour?.push(n)
    log(`run ${run}: long neighbour: A alone (1 client) p50 ${n.alone.latency.p50.toFixed(1)} ` +
      `p99 ${n.alone.latency.p99.toFixed(1)} ms; with B's ${n.longClients} long renders ` +
        `(p50 ${n.long.latency.p50.toFixed(0)} ms, ${n.long.total} done) p50 ${n.shared.latency.p50.toFixed(1)} ` +
          `p99 ${n.shared.latency.p99.toFixed(1)} ms, ` +
            `ratio ${(n.shared.latency.p99 / n.alone.latency.p99).toFixed(2)}, errors A ${n.shared.errors} ` +
              `B ${n.long.errors}`)
  }
  if (want('limiter')) {
    const l = await limiterOnOff(rowOptions, nodeA, { url: demo.baseUrl, key: extra.limiterOffKey }, C, run % 2 === 1)
    rows.limiter.push(l)
    log(`run ${run}: limiter on ${l.on.requestsPerSec.toFixed(0)} req/s (${l.onStatements.toFixed(2)} ` +
      `statements/render), off ${l.off.requestsPerSec.toFixed(0)} req/s (${l.offStatements.toFixed(2)}), ` +
        `errors ${l.on.errors + l.off.errors}`)
  }
  if (want('nodes')) {
    const d = await twoNodes(rowOptions, nodeA, { url: extra.node2Url, key: demo.keys.live.key }, C, run % 2 === 1)
    rows.nodes.push(d)
    log(`run ${run}: one node ${d.one.requestsPerSec.toFixed(0)} req/s, two ` +
      `nodes ${d.two.map((r) => r.requestsPerSec.toFixed(0)).join(' + ')} = ${d.sum.toFixed(0)} req/s, ` +
        `errors ${[d.one, ...d.two].reduce((e, r) => e + r.errors, 0)}`)
  }
}
await pool.close()
floor?.close()
// Read here, not when the sections are written: a section rebuilt from the JSON later says the same.
report.loadAfter = load1()
rows.loadAfter = report.loadAfter

if (want('rss')) {
  // After the runs above: the server has served them all, as a long-running one would have.
  log(`server RSS under ${C} clients of sync invoices for ${RSS_DURATION / 1000} s`)
  const { result, curve } = await rssCurve(Number(process.env.BENCH_SERVER_PID), 5000, async () => await runBench({
    ...syncLoad, template: 'invoice', parameters: invoiceParams, durationMs: RSS_DURATION, warmupMs: 0, maxErrorRate: 0
  }))
  report.rss = curve
  report.rssRequests = result.requestsPerSec
  const points = curve.map((p) => `${p.seconds.toFixed(0)} s ${p.rssMb.toFixed(0)}`).join(', ')
  log(`RSS (MB) ${points}; ${result.requestsPerSec.toFixed(0)} req/s, errors ${result.errors}`)
}

if (want('peers')) {
  // The peers draw the same invoices (the rows as the service reads them) in a pool of the same size.
  const data = invoices.map((i) => i.datasets as unknown as InvoiceData)
  const peers = peerPool(threads)
  const enginePool = createRenderPool({ threads, maxQueue: 100_000, timeoutMs: 30_000 })
  await closedLoop(peers.call('pdfkit', data), C, 0, 1500)
  await closedLoop(peers.call('pdfmake', data), C, 0, 1500)
  await closedLoop(rawEngine(enginePool, invoices), C, 0, 1500)
  for (let run = 1; run <= RUNS; run++) {
    report.pdfkit.push(await closedLoop(peers.call('pdfkit', data), C, 500, 3000))
    report.pdfmake.push(await closedLoop(peers.call('pdfmake', data), C, 500, 3000))
    report.engineOne.push(await closedLoop(rawEngine(enginePool, invoices), C, 500, 3000))
    log(`run ${run}: peers pdfkit ${report.pdfkit.at(-1)?.rate.toFixed(0)}/s, ` +
      `pdfmake ${report.pdfmake.at(-1)?.rate.toFixed(0)}/s, engine ${report.engineOne.at(-1)?.rate.toFixed(0)}/s`)
  }
  await peers.close()
  await enginePool.close()
  // jsreport with Chromium renders a few invoices per second: 8 clients as in the side-by-side
  // of the issue (16 queue in its Chrome pool and measured slower), 5 s windows.
  const js = await jsreportPeer(join(process.cwd(), '.svc', 'peers'), threads)
  if (js === undefined) {
    log('jsreport peer not installed (make bench-peers): row 5d left out')
  } else {
    report.jsreport = { version: js.version, clients: 8, runs: [] }
    await closedLoop(js.call(data), 8, 0, 3000)
    for (let run = 1; run <= RUNS; run++) {
      report.jsreport.runs.push(await closedLoop(js.call(data), 8, 1000, 5000))
      log(`run ${run}: peer jsreport ${report.jsreport.runs.at(-1)?.rate.toFixed(1)}/s`)
    }
    await js.close()
  }
}
await ctx.close()

writeFileSync(join(config.home, 'bench-results.json'), JSON.stringify(report, null, 2))
if (ROWS.length > 0) {
  writeFileSync(join(config.home, 'bench-rows.json'), JSON.stringify(rows, null, 2))
  const f = rowFigures(rows)
  const v = rowVerdicts(rows)
  const say = (x: boolean | undefined): string => x === undefined ? 'not measured' : x ? 'met' : 'MISSED'
  log(`targets: A's p99 under B ÷ alone ${f.p99Ratio.toFixed(2)}× (≤ 3): ${say(v.neighbourP99)}; A's ` +
    `share ${(f.share * 100).toFixed(0)}% (≥ 45%): ${say(v.neighbourShare)}; ` +
    `A's p99 under B's long renders ÷ alone ${f.longP99Ratio.toFixed(2)}× (≤ 3): ${say(v.longNeighbourP99)}; ` +
    `statements per sync render ${f.statements.toFixed(2)} (≤ 3.1): ${say(v.statements)}; limiter on ÷ ` +
      `off ${f.limiterRatio.toFixed(2)} (≥ 0.97): ${say(v.limiterRatio)}; ` +
    `two nodes ÷ one ${f.nodesRatio.toFixed(2)} (overhead on shared cores, no target)`)
  // The section is one table of every row: a run of some rows leaves it as it is (it would
  // otherwise replace the other rows' figures with dashes).
  if (RATE === undefined && ROWS.length === ALL_ROWS.length) {
    writeRowsSection(rows)
    log('wrote the "Service benchmark: noisy neighbour, rate limiter, two nodes" section of bench/RESULTS.md')
  } else {
    log(`rows ${ROWS.join(', ')} only: figures in ${join(config.home, 'bench-rows.json')}, the rows' section of ` +
      'RESULTS.md untouched')
  }
}
if (only === undefined && RATE === undefined) {
  writeSection(report)
  log('wrote the "Service benchmark" section of bench/RESULTS.md')
} else {
  log(`partial run (--only): results in ${join(config.home, 'bench-results.json')}, RESULTS.md untouched`)
}
