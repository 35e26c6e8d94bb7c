// Writes the "Service benchmark" section of bench/RESULTS.md from one bench/service.ts run:
// medians of the runs, ratios against the raw engine measured in the same run, the targets,
// the CPU split and the findings. Other sections of the file are left as they are.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { BenchResult } from '../cli/bench/types.js'
import type { CpuSplit } from './service-cpu.js'
import type { DrainResult } from './service-drain.js'
import type { LoopResult } from './service-raw.js'
import type { RssPoint } from './service-rss.js'
import { NOTES } from './service-notes.js'
import { load1, median } from './stats.js'

export interface ServiceRun { result: BenchResult, cpu: CpuSplit, statements: number, serverCpuMsPerRequest: number }
export interface Report {
  date: string
  runs: number
  durationMs: number
  /** The server's warm-up before the first run (invoices at saturation). */
  warmupMs: number
  connections: number
  threads: number
  raw: LoopResult[]
  sync: ServiceRun[]
  rawLabels: LoopResult[]
  labels: ServiceRun[]
  drain: DrainResult[]
  pdfkit: LoopResult[]
  pdfmake: LoopResult[]
  /** jsreport-style peer (peer-jsreport.ts), when `make bench-peers` installed it. */
  jsreport?: { version: string, clients: number, runs: LoopResult[] }
  engineOne: LoopResult[]
  /** The server's RSS over a long sync invoice load (after the runs above). */
  rss: RssPoint[]
  rssRequests?: number
  /** The stack's floor (stack-floor.ts): the same sync invoice without svc's own request logic. */
  floor?: ServiceRun[]
  /** Read when the runs ended (absent in reports of older runs: then when the section is written). */
  loadAfter?: number
}

const HEADING = '# Service benchmark'

const f0 = (n: number): string => Number.isFinite(n) ? n.toFixed(0) : '–'
const f1 = (n: number): string => Number.isFinite(n) ? n.toFixed(1) : '–'
const f2 = (n: number): string => Number.isFinite(n) ? n.toFixed(2) : '–'
const pc = (n: number): string => Number.isFinite(n) ? `${Math.round(n * 100)}%` : '–'
const ok = (v: boolean): string => v ? 'met' : '**missed**'
const all = (xs: number[]): string => xs.map(f0).join(', ')

/** Row 5d: the jsreport-style peer, or why it is missing. */
function jsreportRow (r: Report, eng: number, sync: number): string {
  const j = r.jsreport
  if (j === undefined) {
    return '| 5d. jsreport 4 chrome-pdf | not installed: `make bench-peers` (scripts/peers.sh) | – | – | – | – |'
  }
  const rate = median(j.runs.map((x) => x.rate))
  const p = (x: number): string => x.toFixed(1)
  const latency = `${median(j.runs.map((x) => x.p50)).toFixed(0)} / ${median(j.runs.map((x) => x.p99)).toFixed(0)}`
  return `| 5d. jsreport ${j.version} chrome-pdf + handlebars (Chromium from Debian), in process, ${r.threads} ` +
    'Chrome ' +
    `workers, ${j.clients} clients | ${p(rate)} renders | ${j.runs.map((x) => p(x.rate)).join(', ')} | ${latency} | ` +
    `${j.runs.reduce((n, x) => n + x.errors, 0)} | ${(rate / eng).toFixed(4)} (engine ${(eng / rate).toFixed(0)}×; ` +
    `the service's sync invoice ${(sync / rate).toFixed(0)}×) |`
}

export function sectionLines (r: Report): string[] {
  const raw = median(r.raw.map((x) => x.rate))
  const sync = median(r.sync.map((x) => x.result.requestsPerSec))
  const syncP50 = median(r.sync.map((x) => x.result.latency.p50))
  const syncP99 = median(r.sync.map((x) => x.result.latency.p99))
  const syncErrors = r.sync.reduce((n, x) => n + x.result.errors, 0)

  const syncTimeouts = r.sync.reduce((n, x) => n + (x.result.errorCodes.TIMEOUT ?? 0), 0)
  const rawLab = median(r.rawLabels.map((x) => x.rate))
  const lab = median(r.labels.map((x) => x.result.requestsPerSec))
  const drainAll = median(r.drain.map((x) => x.rate))
  const drain = median(r.drain.map((x) => x.queueRate))
  const drainFailed = r.drain.reduce((n, x) => n + x.failed + (x.jobs - x.submitted), 0)
  const pk = median(r.pdfkit.map((x) => x.rate))
  const pm = median(r.pdfmake.map((x) => x.rate))
  const eng = median(r.engineOne.map((x) => x.rate))
  const cpu = cpus()
  const split = (runs: ServiceRun[], k: keyof CpuSplit): string => pc(median(runs.map((x) => x.cpu[k])))
  const lat = (runs: ServiceRun[]): string => `${f1(median(runs.map((x) => x.result.latency.p50)))} ` +
    `/ ${f1(median(runs.map((x) => x.result.latency.p99)))}`
  const loopLat = (runs: LoopResult[]): string => `${f1(median(runs.map((x) => x.p50)))} ` +
    `/ ${f1(median(runs.map((x) => x.p99)))}`
  const errs = (runs: ServiceRun[]): number => runs.reduce((n, x) => n + x.result.errors, 0)
  const p99ratio = syncP99 / syncP50
  // CPU ms per sync request spent outside the server (MariaDB, the load generator), from the split.
  const perRequest = (runs: ServiceRun[], k: 'mariadb' | 'loadGenerator'): number => median(runs.map((x) =>
    x.cpu[k] * x.cpu.cores * x.cpu.wallMs / Math.max(1, x.result.requestsPerSec * x.cpu.wallMs / 1000)))
  const rawCpu = median(r.raw.map((x) => x.cpuMs))
  const dbCpu = perRequest(r.sync, 'mariadb')
  const genCpu = perRequest(r.sync, 'loadGenerator')
  const drainSplit = (k: keyof CpuSplit): string => pc(median(r.drain.map((x) => x.cpu?.[k] ?? NaN)))
  const serverCpu = median(r.sync.map((x) => x.serverCpuMsPerRequest))
  const mainMs = (x: ServiceRun): number => x.serverCpuMsPerRequest * x.cpu.serverMain / x.cpu.server
  const mainCpu = (runs: ServiceRun[]): string => f2(median(runs.map(mainMs)))
  const rssEnd = r.rss.at(-1)?.rssMb ?? NaN
  // Raw run i brackets service run i (its halves before and after): their ratio compares one
  // stretch of time. The targets are judged on the median of these paired ratios; the ratio of
  // the two series' medians pairs figures of different runs when the machine's speed moved.
  const pairs = (f: (raw: LoopResult, sync: ServiceRun) => number): number[] =>
    r.sync.flatMap((x, i) => { const raw = r.raw[i]; return raw === undefined ? [] : [f(raw, x)] })
  const byRun = (f: (raw: LoopResult, sync: ServiceRun) => number): string => pairs(f).map(f2).join(', ')
  const cpuRatio = median(pairs((a, b) => b.serverCpuMsPerRequest / a.cpuMs))
  const rateRatio = median(pairs((a, b) => b.result.requestsPerSec / a.rate))
  const others = median(r.sync.map((x) => x.cpu.others))
  const floorRuns = r.floor ?? []
  const floorRate = median(floorRuns.map((x) => x.result.requestsPerSec))
  const floorCpu = median(floorRuns.map((x) => x.serverCpuMsPerRequest))
  const floorPairs = (f: (raw: LoopResult, floor: ServiceRun) => number): number[] =>
    floorRuns.flatMap((x, i) => { const raw = r.raw[i]; return raw === undefined ? [] : [f(raw, x)] })
  const floorByRun = (f: (raw: LoopResult, floor: ServiceRun) => number): string => floorPairs(f).map(f2).join(', ')
  const floorCpuRatio = median(floorPairs((a, b) => b.serverCpuMsPerRequest / a.cpuMs))
  const floorRateRatio = median(floorPairs((a, b) => b.result.requestsPerSec / a.rate))
  // svc's own logic runs on the main thread: service minus floor there, within each run.
  const ownLogic = floorRuns.flatMap((x, i) => {
    const s = r.sync[i]
    return s === undefined ? [] : [mainMs(s) - mainMs(x)]
  })
  return [
    HEADING,
    '',
    `${r.date.slice(0, 10)}; ${cpu.length} × ${cpu[0]?.model ?? '?'}; Node ${process.version}; load average at the ` +
      `end ${(r.loadAfter ?? load1()).toFixed(1)}. ` +
      'Generated by `make bench` (scripts/bench.sh → bench/service.ts): private MariaDB ' +
        `(port ${process.env.SVC_DB_PORT ?? 3357}), \`svc demo\` data, ` +
      `\`svc serve\` on ${process.env.SVC_PORT ?? 8557} with ${r.threads} render threads and default settings except ` +
        'SVC_RATE_LIMIT=0 (only for the limiter-off key of the rows below; the bench keys here have a high limit of ' +
          'their own, so the shared limiter counts them and is never the bottleneck); logs at info to a file. A ' +
            'second idle node serves only the two-node row.',
    ...(others > 0.3
      ? ['', `**A loaded machine:** other processes (other users' builds and tests) took a median ${pc(others)} of ` +
        'all cores during ' +
          'the sync runs, so every figure below is far from this machine\'s capacity and CPU per request is inflated ' +
            'too; compare the ratios within this run only.']
      : []),
    '',
    `Everything shares the ${cpu.length} cores: the server (HTTP + ${r.threads} render threads), MariaDB (service ` +
      'database and the demo data sources), ' +
      `and this process (load generator, and the raw pool when that is measured). Closed loops of ${r.connections} ` +
        `clients; each figure is the median of ${r.runs} runs ` +
      `of ${f0(r.durationMs / 1000)} s (after ${f0(r.warmupMs / 1000)} s of invoices each for the server and the raw ` +
        'pool, until their JIT has settled), runs interleaved; each raw engine run is two halves, before and after ' +
        'that run\'s service and floor, and the ratios of rows 2 and 2b are medians of the runs\' paired ratios. The ' +
        'invoice is the demo\'s invoice template on the production environment\'s ' +
      'invoices 1–12 (5–40 lines each, cycled); the raw pool renders exactly the rows the service reads (read once ' +
        'through the same data-source code).',
    '',
    '| what | per second (median) | runs | p50 / p99 ms | errors | ratio |',
    '|---|---|---|---|---|---|',
    `| 1. raw engine, render pool on ${r.threads} threads, no HTTP/DB (ceiling) | ${f0(raw)} renders ` +
      `| ${all(r.raw.map((x) => x.rate))} | ${loopLat(r.raw)} | ${r.raw.reduce((n, x) => n + x.errors, 0)} | 1.00 |`,
    `| 2. service: HTTPS sync render, auth + 2 SQL datasets (svc bench) | ${f0(sync)} requests ` +
      `| ${all(r.sync.map((x) => x.result.requestsPerSec))} | ${lat(r.sync)} | ${syncErrors} | **${f2(rateRatio)}** ` +
        'of raw |',
    ...(floorRuns.length === 0
      ? []
      : ['| 2b. the stack\'s floor: the same request in Fastify over HTTPS, the key\'s row, the 2 datasets, the render ' +
        `pool; none of svc's own logic (bench/stack-floor.ts) | ${f0(floorRate)} requests ` +
          `| ${all(floorRuns.map((x) => x.result.requestsPerSec))} | ${lat(floorRuns)} | ${errs(floorRuns)} ` +
            `| ${f2(floorRateRatio)} of raw |`]),
    `| 3a. async drain: the job loop working through the queue (from the last of ${r.drain[0]?.jobs ?? '–'} jobs ` +
      `submitted to the last completed) | ${f0(drain)} jobs | ${all(r.drain.map((x) => x.queueRate))} | – ` +
        `| ${drainFailed} | **${f2(drain / sync)}** of sync |`,
    `| 3b. the same ${r.drain[0]?.jobs ?? '–'} jobs end to end (first submitted → last completed; the submissions' ` +
      `HTTPS requests share the cores) | ${f0(drainAll)} jobs | ${all(r.drain.map((x) => x.rate))} | – ` +
        `| ${drainFailed} | ${f2(drainAll / sync)} of sync |`,
    `| 4a. labels, raw pool (shipping batches 1–3, 12/8/4 parcels) | ${f0(rawLab)} renders ` +
      `| ${all(r.rawLabels.map((x) => x.rate))} | ${loopLat(r.rawLabels)} ` +
        `| ${r.rawLabels.reduce((n, x) => n + x.errors, 0)} | 1.00 |`,
    `| 4b. labels, service (HTTPS sync, 1 SQL dataset) | ${f0(lab)} requests ` +
      `| ${all(r.labels.map((x) => x.result.requestsPerSec))} | ${lat(r.labels)} | ${errs(r.labels)} | ` +
        `**${f2(lab / rawLab)}** of raw |`,
    `| 5a. this engine, pool of ${r.threads} (same invoices) | ${f0(eng)} renders ` +
      `| ${all(r.engineOne.map((x) => x.rate))} | ${loopLat(r.engineOne)} | 0 | 1.00 |`,
    `| 5b. plain pdfkit 0.20, pool of ${r.threads} | ${f0(pk)} renders | ${all(r.pdfkit.map((x) => x.rate))} ` +
      `| ${loopLat(r.pdfkit)} | ${r.pdfkit.reduce((n, x) => n + x.errors, 0)} | ${f2(pk / eng)} ` +
        `(engine ${f1(eng / pk)}×) |`,
    `| 5c. pdfmake 0.3, pool of ${r.threads} | ${f0(pm)} renders | ${all(r.pdfmake.map((x) => x.rate))} ` +
      `| ${loopLat(r.pdfmake)} | ${r.pdfmake.reduce((n, x) => n + x.errors, 0)} | ${f2(pm / eng)} ` +
        `(engine ${f1(eng / pm)}×) |`,
    jsreportRow(r, eng, sync),
    '',
    '## Targets',
    '',
    '- Server CPU per sync invoice ≤ 1.4 × the raw engine\'s CPU per render, median of the runs\' paired ratios: ' +
      `**${f2(cpuRatio)}×**: ${ok(cpuRatio <= 1.4)} ` +
      `(run by run: ${byRun((a, b) => b.serverCpuMsPerRequest / a.cpuMs)}; medians of the series ${f2(serverCpu)} ` +
        `÷ ${f2(rawCpu)} ms = ${f2(serverCpu / rawCpu)}×).`,
    '- Service ÷ raw engine ≥ 0.55 (req/s at saturation), median of the runs\' paired ratios: ' +
      `**${f2(rateRatio)}**: ${ok(rateRatio >= 0.55)} ` +
      `(run by run: ${byRun((a, b) => b.result.requestsPerSec / a.rate)}; medians of the series ${f0(sync)} ` +
        `÷ ${f0(raw)} = ${f2(sync / raw)}).`,
    `- p99 ≤ 3 × p50 at saturation: p50 ${f1(syncP50)} ms, p99 ${f1(syncP99)} ms = ` +
      `**${f2(p99ratio)}×**: ${ok(p99ratio <= 3)}; timeouts ${syncTimeouts}, ` +
        `errors ${syncErrors}: ${ok(syncErrors === 0)}.`,
    `- Async drain ≥ 0.95 × sync throughput: **${f2(drain / sync)}** (the queue drained by the job loop, row ` +
      `3a): ${ok(drain / sync >= 0.95)}. ` +
      'End to end with the submissions (row 3b, each job is two HTTPS requests\' worth of work where a sync render is ' +
        `one): ${f2(drainAll / sync)}.`,
    ...(floorRuns.length === 0
      ? []
      : ['- What the stack alone reaches (row 2b, no target), medians of the paired ratios: CPU per request ' +
        `**${f2(floorCpuRatio)}×** ` +
          `(run by run: ${floorByRun((a, b) => b.serverCpuMsPerRequest / a.cpuMs)}), req/s ÷ raw ` +
            `**${f2(floorRateRatio)}** (run by run: ` +
          `${floorByRun((a, b) => b.result.requestsPerSec / a.rate)}). svc's own request logic on top of it, main ` +
            `thread (service − floor within each run): **${f2(median(ownLogic))} ms** per request (run by ` +
            `run: ${ownLogic.map(f2).join(', ')}).`]),
    '- Upper bound for service ÷ raw on these shared cores, were the server\'s own overhead zero: raw CPU per render ' +
      '÷ (raw CPU per render + MariaDB and load generator CPU per request) = ' +
      `${f2(rawCpu)} ÷ (${f2(rawCpu)} + ${f2(dbCpu)} + ${f2(genCpu)}) = **${f2(rawCpu / (rawCpu + dbCpu + genCpu))}**.`,
    ...(r.rss.length === 0
      ? []
      : [`- Server RSS under ${r.connections} clients of sync invoices ≤ 250 MB after 60 s: **${f0(rssEnd)} MB** ` +
        'after ' +
        `${f0(r.rss.at(-1)?.seconds ?? NaN)} s (${f0(r.rssRequests ?? NaN)} req/s): ${ok(rssEnd <= 250)}. Curve (s: ` +
          `MB): ${r.rss.map((p) => `${f0(p.seconds)}: ${f0(p.rssMb)}`).join(', ')}.`]),
    '',
    '## Where the CPU went (share of all cores over each service run, medians)',
    '',
    '| run | server (HTTP + render threads) | MariaDB | load generator | other processes | idle | server CPU ms per ' +
      'request | of which main thread | SQL statements per request |',
    '|---|---|---|---|---|---|---|---|---|',
    `| sync invoice | ${split(r.sync, 'server')} | ${split(r.sync, 'mariadb')} | ${split(r.sync, 'loadGenerator')} ` +
      `| ${split(r.sync, 'others')} | ${split(r.sync, 'idle')} | ${f2(serverCpu)} | ${mainCpu(r.sync)} ` +
        `| ${f1(median(r.sync.map((x) => x.statements)))} |`,
    `| async drain (submission included) | ${drainSplit('server')} | ${drainSplit('mariadb')} ` +
      `| ${drainSplit('loadGenerator')} | ${drainSplit('others')} | ${drainSplit('idle')} ` +
        `| ${f2(median(r.drain.map((x) => x.serverCpuMsPerJob ?? NaN)))} per job ` +
          `| ${f2(median(r.drain.map((x) => (x.serverCpuMsPerJob ?? NaN) * (x.cpu?.serverMain ?? NaN) / (x.cpu?.server ?? NaN))))} ` +
          `| ${f1(median(r.drain.map((x) => x.statements ?? NaN)))} per job |`,
    ...(floorRuns.length === 0
      ? []
      : [`| the stack's floor (row 2b) | ${split(floorRuns, 'server')} | ${split(floorRuns, 'mariadb')} ` +
        `| ${split(floorRuns, 'loadGenerator')} | ${split(floorRuns, 'others')} | ${split(floorRuns, 'idle')} ` +
          `| ${f2(floorCpu)} | ${mainCpu(floorRuns)} | ${f1(median(floorRuns.map((x) => x.statements)))} |`]),
    `| labels | ${split(r.labels, 'server')} | ${split(r.labels, 'mariadb')} | ${split(r.labels, 'loadGenerator')} ` +
      `| ${split(r.labels, 'others')} | ${split(r.labels, 'idle')} ` +
        `| ${f2(median(r.labels.map((x) => x.serverCpuMsPerRequest)))} | ${mainCpu(r.labels)} ` +
          `| ${f1(median(r.labels.map((x) => x.statements)))} |`,
    '',
    `The raw pool used ${f2(median(r.raw.map((x) => x.cpuMs)))} ms CPU per invoice render (this process, all ` +
      'threads: clients, pool, workers) and ' +
      `${f2(median(r.rawLabels.map((x) => x.cpuMs)))} ms per label batch; the server's figure above adds HTTPS, ` +
        'auth, the SQL round trips, run history and logging.',
    '',
    'SQL statements per request = MariaDB\'s `Questions` counter over the run ÷ requests: the service database and ' +
      'the demo data sources together,',
    'plus the batched run-history inserts and the job loop\'s polling.',
    '',
    ...(NOTES.length > 0 ? ['## Findings', '', ...NOTES, ''] : [])
  ]
}

const RESULTS = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url))

/** Replaces the section (from its heading, lines[0], to the next top-level heading) or appends it. */
export function replaceSection (lines: string[], file = RESULTS): void {
  const [heading = ''] = lines
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const start = text.indexOf(`${heading}\n`)
  let out: string
  if (start === -1) {
    out = (text === '' ? '' : text.replace(/\n*$/, '\n\n')) + lines.join('\n') + '\n'
  } else {
    const rest = text.slice(start + heading.length)
    const next = rest.search(/\n# /)
    const tail = next === -1 ? '' : rest.slice(next + 1)
    out = text.slice(0, start) + lines.join('\n') + '\n' + (tail === '' ? '' : '\n' + tail)
  }
  writeFileSync(file, out)
}

export function writeSection (r: Report, file = RESULTS): void {
  replaceSection(sectionLines(r), file)
}
