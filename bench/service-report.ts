// Writes the "Service benchmark" section of bench/RESULTS.md from one bench/service.ts run:
// medians of the runs, ratios against the raw engine measured in the same run, the targets,
// the CPU split and the findings. Other sections of the file are left as they are.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { BenchResult } from '../cli/bench/types.js'
import type { CpuSplit } from './service-cpu.js'
import type { DrainResult } from './service-drain.js'
import type { LoopResult } from './service-raw.js'
import type { RssPoint } from './service-rss.js'

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

// What the profiles showed and what was changed; kept with the code that measures, so a
// regenerated section keeps them (see also the commit messages of each optimisation).
const NOTES: string[] = [
  '- **Why service ÷ raw stays far below 0.90 here.** The engine renders this invoice in ~1.0-1.4 ms of CPU. The service',
  '  adds HTTPS, auth, 3 SQL statements (key + template + environment in one, 2 datasets), run history and logging, and',
  '  on this machine MariaDB (service database and data sources) and the load generator share the same 2 cores as the',
  '  server. Their CPU per request alone (the upper-bound line under Targets: ~0.4 ms MariaDB + ~0.15 ms generator)',
  '  caps the ratio near 0.65 even for a server with zero overhead of its own; 0.90 would need all of HTTPS, auth,',
  '  3 queries and their MariaDB work within ~0.1 ms per request. The earlier 0.84-0.91 (measured facts) had no',
  '  database and a 4 ms pdfkit render, where the same fixed cost weighed a quarter as much. The CPU-bound figure',
  '  to compare across machines is server CPU per request vs raw CPU per render (table above).',
  '- **Profiles** (`BENCH_PROFILE=1 make bench` runs the server under `--cpu-prof`; profiles in .svc/bench/profiles).',
  '  Main thread at saturation (2026-11-22, after the changes below): ~37% of busy samples in `writeBuffer` (socket',
  '  writes to MariaDB and TLS), ~8% Piscina `postMessage`, ~6% `writev`; the server\'s kernel time is ~10-13% of its',
  '  CPU (/proc stime), so most of those samples are the thread preempted after waking MariaDB or a render thread on',
  '  a loopback socket: the price of every round trip on 2 shared cores. Real main-thread work: mysql2 ~7%, pino +',
  '  redaction ~5%, GC ~4%, Piscina ~3%, Fastify + Ajv ~3%.',
  '- **Changed** (each its own commit, before/after in the message): (1) mysql2 `trace: false` on the service pool: 37.7-47.2',
  '  → 33.8-34.6 µs node CPU per query; (2) template and environment read in one query; (3) READ COMMITTED set once per',
  '  connection, the job claim reads whole rows in its locking SELECT, the 202 answers the job as inserted (no',
  '  read-backs); (4) the render pool keeps its own waiting room (the time limit counts rendering, not waiting); (5) job',
  '  claims in batches, events only when an endpoint subscribes; (6) the API key\'s row read in the same query as',
  '  template and environment (onRequest checks only the key\'s form; an error before the handler checks the key in',
  '  full first, so 401/429/403 keep their order): SQL statements per sync render 4.0 → 3.0; (7) job inserts and',
  '  job completions group-committed (writes arriving while one is in flight go together: one fenced multi-row UPDATE,',
  '  one INSERT of documents, one of runs), template + environment read once per claim batch: SQL statements per',
  '  async job (submit + claim + run + commit) 12.1 → 4.6-5.7, MariaDB share in the drain 0.27-0.32 → 0.21-0.27;',
  '  (8) jobs render in a batch lane behind sync renders (they no longer fill the sync waiting room), job',
  '  concurrency 4 → 16 per render thread with at most 4 per thread reading data and rendering at once.',
  '- **A leaner request path (later round, each its own commit with A/B figures).** (9) One log line per request',
  '  (`request completed`, built from fixed fields and written through a child logger without path redaction): the',
  '  wildcard redaction cost ~28 µs CPU per line, two lines and two children 60-64 µs per request, now ~6 µs. (10) The',
  '  log file is written in 4 KB blocks and at least once a second, not one thread-pool write (and wake-up) per line:',
  '  sonic-boom was ~10% of the main thread\'s busy samples. (11) Tests pin what was already so: the key + template +',
  '  environment read and the datasets are prepared statements (session Com_stmt_execute +1 per use, no re-prepare),',
  '  and a reused data-source connection is still read-only with its time limit (set once per connection); the service',
  '  pool\'s statement cache is bounded at 256 per connection (mysql2\'s default 16,000 × 20 connections could exceed',
  '  MariaDB\'s server-wide max_prepared_stmt_count). A/B of (9) and (10), main-thread CPU per request at 40 req/s',
  '  (load average 12-22 from other engineers\' work, figures inflated ~3×): 2.89, 2.86, 2.36 → 2.73, 2.48, 2.36 ms and',
  '  2.78, 2.76, 2.65 → 2.73, 2.52, 2.37 ms. What the main thread still does per sync render is mostly wake-ups of',
  '  other threads and processes: 3 MariaDB round trips, 1 Piscina postMessage (structured clone of the rows: 40-46 µs',
  '  for a 40-line invoice; rows as columns instead of objects measured no gain, 40 vs 46 µs), 1 TLS writev.',
  '- **Whole-process A/B of this round (2026-11-22 18:19-18:22, load average 5-11, other processes 48-68% of the cores).**',
  '  `BENCH_AB="<build before> ." bash scripts/bench.sh --only raw,sync --runs 1 --duration 10s`, 3 rounds each, closed',
  '  loop of 16: server CPU per sync invoice before 4.66, 5.02, 5.23 ms (main thread 1.40, 1.50, 1.56), after 5.30,',
  '  5.70, 4.44 ms (main thread 1.52, 1.66, 1.27); raw 2.12-2.53 ms per render. The logging changes save ~55 µs per',
  '  request by micro-measure, 1-3% of a request: below what whole-process runs resolve when others take half the cores',
  '  (the figures follow the other processes\' share, 4.4-4.7 ms at ~50%, 5.0-5.7 ms at ~60%).',
  '- **Server RSS under load** (issue 15). Before this round: 316-393 MB after 60 s of 16 clients, with a sawtooth of',
  '  ±40 MB. Where it was (smaps of the server under load, V8 heap space statistics per thread): each render thread\'s',
  '  young generation filled to V8\'s default maximum (2 × 16 MB semi-spaces), and so did the HTTP thread\'s; the render',
  '  threads\' glibc malloc arenas settled at 15-52 MB each of mostly free memory (the same 35 MB in one thread rendering',
  '  alone, with or without compression, so not zlib); and the HTTP thread\'s old generation grew to twice what the last',
  '  full GC kept (39 → 86 MB) before the next. Now: render threads with a 12 MB young generation (workers/pool.ts;',
  '  CPU per render unchanged in an in-process A/B), and bin/svc\'s first line starts the process with MALLOC_ARENA_MAX=2,',
  '  --max-semi-space-size=4 and --heap-growing-percent=30 (none can change once the process runs; docs/deploy.md):',
  '  232-242 MB, flat. Measured on this machine, quiet: 316 → 232 MB after 60 s (same load, the RSS curve above).',
  '- **Stream mode for every render** (issue 15 part 1) had made every sync render create a MessageChannel, transfer a',
  '  port, clone the template text and copy its output into a 64 KiB piece: +5-38% CPU per render against the plain',
  '  pool in an in-process A/B. Now the worker holds the output up to SVC_RENDER_STREAM_ABOVE and a document within it',
  '  comes back with the result; past it, pieces go on the worker\'s parentPort to one hub per pool (equal CPU to plain).',
  '  The engine itself: pdfkit\'s per-byte string conversion (fromBinaryString, ~7% of a render) replaced by Buffer\'s',
  '  latin1 encoding, same bytes. The render resolve (key + template + environment) is shared by the requests that',
  '  arrive while one is in flight (one UNION ALL statement of up to 8 arms): 3.0 → 2.7 statements per sync render.',
  '- **Warm-up, and where the rest of the CPU goes (last round).** The server and the raw pool now warm for 20 s each',
  '  (was 5 s and 2 s): with --trace-opt the server\'s JIT still finished ~80 functions/s after 5 s of load and ~1/s',
  '  only from ~20 s, and both first runs were the slow ones. The raw figure fell more (1.75 → 1.69 ms per render)',
  '  than the server\'s (2.49 → 2.46 ms), so the CPU ratio reads 1.46× where it read 1.42×, and sync rose (522 → 546',
  '  req/s) while the drain did not (501 → 492 jobs/s): 0.96 → 0.90 of sync. Request loggers are now made on first',
  '  use (the two pino children per request were ~10% of the HTTP thread\'s allocations): HTTP-thread CPU per request',
  '  ÷ render-thread CPU per request 0.595 → 0.578. Per-thread CPU (/proc, 16 clients): the server\'s render threads',
  '  ~1.47 ms per request against ~1.40 in the raw pool\'s workers (the same renders on busier cores), its HTTP thread',
  '  0.8-0.9 ms against the raw pool\'s main thread 0.15, V8\'s helper threads ~0.15 in both. The HTTP thread\'s on-CPU',
  '  time (perf) is ~17% kernel, most of it context switches and wake-ups; its scavenges take ~46 ms/s (~0.1 ms per',
  '  request). In MariaDB the key + template + environment statement costs 100-150 µs of CPU for one arm (a dataset',
  '  statement ~43 µs, the key row alone ~25 µs): the joins and its ~30 columns; the workspaces table joined instead',
  '  of its subquery measured ~8% less, 3 fewer columns or optimizer settings nothing. Tried, not kept: MariaDB\'s',
  '  thread pool (~4% less MariaDB CPU per request; a long query of one tenant would then hold a thread group),',
  '  an 8 MB semi-space for the HTTP thread (scavenges halve, RSS +25 MB: over the 250 MB target). The raw pool runs',
  '  with Node\'s defaults, the server with bin/svc\'s memory settings: in a 2-thread pool (--trace-gc, 6 s of invoices)',
  '  --heap-growing-percent=30 took 28 mark-compacts (161 ms of pauses) where the default took 10 (53 ms), ~2-3% of a',
  '  render\'s CPU with the concurrent marking, for 170 instead of 235 MB of RSS: part of the render threads\' excess.',
  '- **Which run to believe (2026-11-22/23).** Two full runs of the same code an hour apart: at 23:33 (raw 1.69 ms per',
  '  render) the CPU ratio was 1.46×, service ÷ raw 0.50; at 00:15 and 00:25, with the machine ~40% slower (raw 2.47 and',
  '  2.42 ms per render, other processes 1%: the host, not this VM), 1.34× and 1.35×, 0.54 and 0.55. The tables above',
  '  are from the last of these. A slower machine flatters the ratios (the raw pool loses more than the server), so the',
  '  CPU targets count as met only when a run at the fast speed (raw ≤ ~1.8 ms per render) meets them too. The drain',
  '  ÷ sync figures of the slow runs (0.89, 1.02) include the job completions\' 5 ms linger (statements per job 6.0 →',
  '  4.9); the fast run before it (0.90) did not.',
  '- **The run of 2026-11-23 04:00 (before parallel scavenge was turned off), after the client\'s calls moved to undici\'s dispatch** (load generator',
  '  0.36 → 0.30 ms CPU per request here; 0.51 → 0.41 in the client\'s own A/B). The raw pool\'s speed moved within the',
  '  run (765, 827, 941 renders/s; 2.37, 2.27, 1.99 ms CPU per render), so the medians pair different runs: taken run',
  '  by run the CPU ratio reads 1.63×, 1.43×, 1.65× and service ÷ raw 0.48, 0.51, 0.45. Both targets are missed by',
  '  this run, as by the fast run of 2026-11-22 23:33; the server\'s overhead, not the generator, is what is left.',
  '- **The HTTP floor** (`node dist/bench/http-floor.js`, 2026-11-23 04:30, nothing else running): Fastify over HTTPS',
  '  alone (body schema, a 3.4 KB answer; no auth, SQL, render pool or log) in a child process, driven by `svc bench`\'s',
  '  runner. Server CPU per request: 0.050 ms in a closed loop of 16 (14,300 req/s), 0.200 ms at 450 req/s and 0.191',
  '  ms at 900 req/s in open loops. The same code costs 4× as much per request when requests come one per wake-up',
  '  instead of many: at the service\'s rates the thread sleeps between events and pays the wake-up, the syscalls and',
  '  cold caches each time. So of the ~1.1 ms the service\'s HTTP thread spends per sync invoice at ~420 req/s, ~0.2 ms',
  '  is this floor, and the rest (3 SQL round trips through mysql2, the render pool\'s two messages, auth, run history,',
  '  the log line) is also paid per wake-up: the perf profile of that thread (perf record -e cpu-clock, 2,000 Hz,',
  '  --perf-basic-prof) is flat, ~16% kernel (context switches), the largest JS share mysql2, no single hot spot. The',
  '  load generator shows the same: the client costs 0.06 ms per request against this floor server at saturation,',
  '  0.30–0.41 ms in `make bench`.',
  '- **Parallel scavenge off (`--no-parallel-scavenge`, bin/svc\'s first line, 2026-11-23).** V8 hands each young-generation',
  '  collection to its helper threads as well; with render threads on every core that only adds hand-offs. A 2-thread',
  '  render pool (in-process, 16 in flight, 4 alternating rounds): 1.90, 1.77, 1.79, 1.73 ms CPU per render with the',
  '  default, 1.55, 1.60, 1.65, 1.61 without parallel scavenge (-11%). The server, two lab servers side by side on one',
  '  database, 8 clients each, 12 windows of 8 s, then sides swapped: CPU per request flag / default 0.966, then 1 /',
  '  1.051 (about -4%). RSS of a lab server after 60 s of 16 clients 232 → 236 MB. The bench\'s raw pool gets the same',
  '  flag (scripts/bench.sh), so the baseline gains what the server gains.',
  '- **The stack\'s floor (row 2b, 2026-11-23).** What the parts alone cost: a second server process serving the same',
  '  invoice with Fastify over HTTPS, the key\'s row, the two datasets and the render pool, and none of svc\'s own logic',
  '  (bench/stack-floor.ts). Three full `make bench` runs of the same server code (06:13, 06:27, 06:41), nine runs in',
  '  all: server CPU per sync invoice ÷ raw 1.32, 1.28, 1.38 | 1.30, 1.26, 1.34 | 1.45, 1.21, 1.44 (medians 1.28×,',
  '  1.27×, 1.33×: the target met in each), service ÷ raw 0.55, 0.55, 0.53 | 0.56, 0.56, 0.54 | 0.50, 0.58, 0.51',
  '  (medians 0.549, 0.56, 0.54: met once). The run of 05:04, on the same server code, had read 1.72× and 0.43 (and',
  '  04:00, before --no-parallel-scavenge, 1.45× and 0.51): the verdicts follow the machine\'s speed of the hour.',
  '  Robust across all nine: svc\'s own request logic (auth, rate limit, template and environment, validation, run',
  '  history, log line, metrics) costs 0.16-0.28 ms of main-thread CPU per request above the floor\'s main thread',
  '  (0.56-0.79 ms), and taking the run history out alone (a lab A/B, not kept) saved 0.01-0.06 ms of it. The floor',
  '  ran with bin/svc\'s flags in those runs; --heap-growing-percent=30 turned out to cost that small heap 0.5-0.8 ms',
  '  per request (lab, 16 clients: 3.21-3.22 ms with it, 2.43-2.71 without; V8\'s helper threads 0.36 against 0.11',
  '  ms; its main thread +0.06 and +0.17 ms), so its total CPU there (1.22-1.41× raw) was no floor and svc\'s own',
  '  logic above it reads low; it now runs without it. On the server the same flag',
  '  is what holds RSS under the target (lab, 60 s of 16 clients: 230-242 MB with it, 292-308 MB without), at a CPU',
  '  cost the lab A/B could not resolve (2.68 vs 2.45, then 2.47 vs 2.75 ms per request).',
  '- **The run in the tables above (2026-11-23 13:16, cbce853: MariaDB thread pool, claims without re-reads).** 1.45×',
  '  (1.73, 1.24, 1.30) and 0.52 (0.44, 0.59, 0.58): both missed as ratios of each series\' medians; the medians of the',
  '  per-run ratios read 1.30× and 0.58. Run 1 came at the machine\'s fast speed (raw 1.63 ms per render, 1155',
  '  renders/s): the service read 0.44 and the floor 0.33 (measured in a slow spell, 3.87 ms per request). In runs 2 and',
  '  3 the service met both targets and matched or passed the floor (511 vs 511, 573 vs 524 req/s); svc\'s own',
  '  main-thread logic read 0.00, 0.20, 0.12 ms per request. Noisy neighbour 1.77× (2.09 at 11:04, 2.50 at 13:00) and',
  '  limiter on ÷ off 1.06: met. Drain ÷ sync 0.88 (491, 452, 438 jobs/s against 510, 511, 573 req/s).',
  '- **MariaDB\'s thread pool (14bc3b2).** The private MariaDB ran a thread per connection: svc\'s pools keep dozens of',
  '  connections open, each waking its own thread for a sub-millisecond statement on 2 shared cores. With',
  '  `--thread-handling=pool-of-threads` (one group per core, stall limit 20 ms instead of 500) a lab A/B of 16 clients,',
  '  alternated, read 668, 629, 643 → 688, 682, 627 req/s and MariaDB 0.35-0.42 → 0.31-0.34 ms CPU per request.',
  '- **Job claims (ee82e49).** performance_schema over a lab async load showed the claim\'s list of workspaces with',
  '  queued jobs read 4.7 times per claim, 19% of the service database\'s statement time: after a round that had seen',
  '  every such workspace, the claim read the list again (two statements) to find nobody new. Now it stops; statements',
  '  per job 4.8-4.9 → 4.5-4.7, queue drained 422, 469, 430, 507 → 427, 497, 548, 530 jobs/s (A/B, alternated twice).',
  '- **The machine\'s speed within a run.** Eight consecutive 10 s windows of 16 clients on one idle lab server: every',
  '  part\'s CPU per request moved together, HTTP thread 0.83-1.03, render threads 1.68-2.03, MariaDB 0.42-0.50, load',
  '  generator 0.28-0.35 ms. The VM, not svc, moves by ~20% within seconds, so a run\'s service ÷ raw depends on which',
  '  of its two 10 s phases fell in a slow spell (e.g. the 13:00 run\'s third: svc 1.16 ms on the HTTP thread, the',
  '  floor 0.75 ms a minute later).',
  '- **The run of 13:00 (ee82e49: thread pool and claims).** 1.40× (1.46, 1.24, 1.57): met; 0.54 (0.54, 0.59, 0.48):',
  '  missed. The floor read 0.52, 0.60, 0.54 of raw. Drain ÷ sync 0.95 (486, 482, 506 jobs/s against 514, 555, 419',
  '  req/s; 0.946 before rounding): missed. Limiter on ÷ off 0.94 (1.06, 0.94, 0.91).',
  '- **The run of 11:04 (30992b9: held render resolutions and callback hooks).** 1.35× (1.61,',
  '  1.35, 1.26): met; 0.547 (0.46, 0.55, 0.61): missed by 0.003. The floor read 0.46, 0.57, 0.47 of raw in the same runs',
  '  (a third run slowed by the machine: 3.84 ms per request), so the service now matches the stack alone: 556 and 533',
  '  req/s against the floor\'s 556 and 552 in runs 1 and 2, and svc\'s own main-thread logic read 0.19, 0.20, 0.01 ms',
  '  per request (0.28-0.37 at 08:18). In the fast first run (raw 1.57 ms per render) service and floor both read 0.46:',
  '  at that speed the shared parts (HTTPS, the data-source reads, Piscina, MariaDB, the load generator) cap both below',
  '  0.55. Drain ÷ sync fell to 0.89: sync got the held resolutions, the job path (resolveStored, per claim batch) did',
  '  not. Limiter on ÷ off 0.93 (1.00, 0.93, 0.90): run 3 slowed between its two halves.',
  '- **Held render resolutions (13a7108).** The render\'s first read joined key, template, version and environment',
  '  (~30 columns): 105-160 µs of MariaDB CPU per statement against 24-45 µs for the key with its workspace row (16',
  '  connections). A process now holds the version in force and the environment of a key\'s last render, valid while',
  '  workspaces.render_revision is unchanged (every change bumps it first in its transaction): lab A/B, alternated',
  '  three times, 506, 503, 515 → 548, 555, 600 req/s, MariaDB 0.57-0.61 → 0.40-0.44 ms and the HTTP thread',
  '  0.84-0.93 → 0.78-0.85 ms per request.',
  '- **Allocation per request (sampling heap profiler on the HTTP thread, 200 req/s, 10 s).** Service 108 KB, floor',
  '  66 KB. mysql2 ~23 KB in both (a Prepare and an Execute command per statement even when the statement is cached,',
  '  column definitions with every result). svc\'s extra: the sync render ~4 KB, the log line ~3.4 KB, the run history\'s',
  '  text-protocol INSERT ~3.2 KB, the auth hooks ~3 KB, Fastify hooks ~2.5 KB. On the shared path the data-source',
  '  reads are the HTTP thread\'s largest piece (0.43 of 2.18 profiled ms per request, most of it the socket write that',
  '  wakes MariaDB), then Piscina\'s postMessage and wake-up (0.25): the floor pays both. A unix socket instead of',
  '  loopback TCP to MariaDB measured within noise (33-37 µs node and 40-51 µs MariaDB CPU per dataset statement either way).',
  '- **The run of 08:18 (same server code as 07:02, before the held resolutions).** 1.41× (1.44, 1.38, 1.53) and 0.49',
  '  (0.51, 0.51, 0.47): both missed, at a middling speed (raw 2.21, 2.03, 1.87 ms per render). The floor read 0.57,',
  '  0.61, 0.48 of raw in req/s, so in runs 1 and 2 the stack alone met 0.55 where the service did not: svc\'s own logic',
  '  (0.36, 0.37, 0.28 ms of main-thread CPU per request here) is what separates them. The floor\'s CPU ratio (1.40,',
  '  1.23, 1.67) swings as much as the service\'s. A first lab reading had the floor\'s render threads at 1.67-1.76 ms',
  '  per request against the service\'s 1.40-1.57; measured alternately within minutes they read',
  '  1.46-1.49 against 1.39-1.48: the machine\'s speed of the moment, not the floor. Drain ÷ sync 1.02: met.',
  '- **Where the threads wait (lab, /proc/<pid>/task/*/schedstat, 16 clients).** Per second of load the main thread ran',
  '  490 ms and waited 531 ms in the run queue: it is runnable nearly all the time and gets half a core; each render',
  '  thread ran ~415 ms and waited ~380 ms; 10% of the CPU stayed idle (/proc/stat) while threads waited, most likely',
  '  the two KVM vCPUs\' wake-up and balancing latency (inferred, not measured): work was there. So every',
  '  CPU-millisecond saved anywhere (server, MariaDB, generator) raises req/s about equally. Tried, not kept: two tasks',
  '  per render thread so a thread never waits for the main thread to hand it the next (Piscina',
  '  concurrentTasksPerWorker 2: 528, 535, 486 against 530, 538, 551 req/s); render threads at nice 2 and 5 (no steady',
  '  change: 516, 420 and 463, 510 against 474, 510 req/s); --heap-growing-percent 45 or 60 instead of 30 (V8\'s helper',
  '  threads 0.09-0.15 against 0.13-0.20 ms per request, RSS after 60 s 247-255 MB: at or over the 250 MB target).',
  '- **The run of 07:02 (the floor without that flag).** 1.19× (1.52, 1.10, 1.14) and 0.61 (0.49,',
  '  0.65, 0.63), met, but the machine slowed within the run (raw 1.88, 2.39, 2.64 ms per render), which flatters both;',
  '  in its fast first run the service read 1.52× and 0.49. The floor: 1.25× (1.29, 1.25, 1.22) and 0.62 (0.60,',
  '  0.62, 0.66); svc\'s own logic 0.29 ms on the main thread (0.38, 0.20, 0.29). Drain ÷ sync 0.92 (1.12, 0.86,',
  '  0.86): the sync and drain runs of runs 2 and 3 fell on either side of the slow-down.',
  '- **The limiter row with the floor (06:13, 06:27).** On ÷ off read 0.94 and 0.95 (8 of 9 runs below 1.0) where the',
  '  row alone read 1.00 and the runs before the floor 11 of 12 at or above 1.0. An idle floor used 10 ms of CPU in',
  '  10 s; it is now stopped (SIGSTOP) between its measurements all the same, and the 06:41 run read 1.11.',
  '- **Memory leak found and fixed.** Sampling the bench server\'s RSS showed it growing ~25 MB/s under load (1.7 GB',
  '  after 40 s) with a ~32 MB main-thread heap: the render workers kept every finished PDFDocument. Piscina\'s default',
  '  `atomics: \'sync\'` parks a worker in Atomics.wait between tasks, so the nextTick callbacks each render queues never',
  '  ran and held their documents (~50 KB per render). `atomics: \'async\'` keeps RSS flat (30,000 pool renders: 1,781',
  '  → 352 MB); a pool test now fails if RSS grows by 100 MB over 5,000 renders.',
  '- **Async drain.** A job does durable work a sync render skips: its submission is an HTTPS request of its own with',
  '  an INSERT, and its outcome stores the document (the PDF) with the run and the job state. Before (7)-(8) the drain',
  '  was bound by waiting, not CPU: at 8 jobs per process 39% of the CPU stayed idle (queue drained at 337 jobs/s, 751',
  '  at 32), and with one completion writer each group-commit transaction took 8-45 ms under load (logged per batch),',
  '  partly because the bench database had grown (next point); two writers overlap those waits at ~1 statement more',
  '  per job than one (A/B on a fresh database, drain of the queue: 787, 780 jobs/s with two, 757, 727 with one).',
  '  Tried and not kept: 8 instead of 4 jobs per thread reading at once (591, 442 vs 655, 576 jobs/s), four',
  '  completion writers (smaller batches, 7 statements per job, no gain).',
  '- **The bench\'s own database had grown.** `make bench` reused .svc/bench/db across runs: after a day of runs it held',
  '  3.3 GB (2.2 GB of stored documents) against a 256 MB buffer pool, and drains in a full run measured disk waits',
  '  (50-62% idle CPU, 182-467 jobs/s). Each run now starts from a fresh database; the same code then drained',
  '  672-802 jobs/s. Earlier figures in this file\'s history were taken on the growing database.',
  '- **Looked at, not changed.** Logging: two `child()` loggers and two lines per request with wildcard redaction cost',
  '  ~50 µs CPU (~2% of a request); one line instead of two measured ~6 µs less. Data-source pool size 4 vs 12: no',
  '  measurable difference (715, 693 vs 649, 835 req/s). The key read stays per request (revocation is immediate,',
  '  spec Part 5) and so does the template read (a publish is seen by the next render). Structured clone of the rows:',
  '  5-40 lines per invoice, tens of µs; the template is not cloned after a worker has it. TLS: keep-alive connections',
  '  (handshakes only at connect).',
  '- **p99 ÷ p50.** Before changes (3)-(5) the invoice showed 8-12× at saturation with maxima up to 1.4 s; since then',
  '  2.0-3.1×. The rest of the tail is run-queue waiting: the server\'s 3 busy threads, MariaDB and the generator on 2',
  '  cores (in an open loop below capacity the generator itself sent up to 19-34 ms late).',
  '- **Noise.** This VM\'s speed varies by tens of percent between runs with nothing else busy (column "other',
  '  processes" ~1%): the same build and settings gave 481 then 759 req/s (2.79 vs 1.76 ms server CPU per request) in',
  '  consecutive runs. Runs are interleaved so drift falls on every series; compare ratios within one run, and CPU per',
  '  request rather than requests/s across runs.'
]

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]
}
const f0 = (n: number): string => Number.isFinite(n) ? n.toFixed(0) : '–'
const f1 = (n: number): string => Number.isFinite(n) ? n.toFixed(1) : '–'
const f2 = (n: number): string => Number.isFinite(n) ? n.toFixed(2) : '–'
const pc = (n: number): string => Number.isFinite(n) ? `${Math.round(n * 100)}%` : '–'
const ok = (v: boolean): string => v ? 'met' : '**missed**'
const all = (xs: number[]): string => xs.map(f0).join(', ')

/** Row 5d: the jsreport-style peer, or why it is missing. */
function jsreportRow (r: Report, eng: number, sync: number): string {
  const j = r.jsreport
  if (j === undefined) return '| 5d. jsreport 4 chrome-pdf | not installed: `make bench-peers` (scripts/peers.sh) | – | – | – | – |'
  const rate = median(j.runs.map((x) => x.rate))
  const p = (x: number): string => x.toFixed(1)
  const latency = `${median(j.runs.map((x) => x.p50)).toFixed(0)} / ${median(j.runs.map((x) => x.p99)).toFixed(0)}`
  return `| 5d. jsreport ${j.version} chrome-pdf + handlebars (Chromium from Debian), in process, ${r.threads} Chrome ` +
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
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a run without timeouts has no TIMEOUT key
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
  const lat = (runs: ServiceRun[]): string => `${f1(median(runs.map((x) => x.result.latency.p50)))} / ${f1(median(runs.map((x) => x.result.latency.p99)))}`
  const loopLat = (runs: LoopResult[]): string => `${f1(median(runs.map((x) => x.p50)))} / ${f1(median(runs.map((x) => x.p99)))}`
  const errs = (runs: ServiceRun[]): number => runs.reduce((n, x) => n + x.result.errors, 0)
  const p99ratio = syncP99 / syncP50
  // CPU ms per sync request spent outside the server (MariaDB, the load generator), from the split.
  const perRequest = (runs: ServiceRun[], k: 'mariadb' | 'loadGenerator'): number => median(runs.map((x) => x.cpu[k] * x.cpu.cores * x.cpu.wallMs / Math.max(1, x.result.requestsPerSec * x.cpu.wallMs / 1000)))
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
    r.sync.flatMap((x, i) => i < r.raw.length ? [f(r.raw[i], x)] : [])
  const byRun = (f: (raw: LoopResult, sync: ServiceRun) => number): string => pairs(f).map(f2).join(', ')
  const cpuRatio = median(pairs((a, b) => b.serverCpuMsPerRequest / a.cpuMs))
  const rateRatio = median(pairs((a, b) => b.result.requestsPerSec / a.rate))
  const others = median(r.sync.map((x) => x.cpu.others))
  const floorRuns = r.floor ?? []
  const floorRate = median(floorRuns.map((x) => x.result.requestsPerSec))
  const floorCpu = median(floorRuns.map((x) => x.serverCpuMsPerRequest))
  const floorPairs = (f: (raw: LoopResult, floor: ServiceRun) => number): number[] =>
    floorRuns.flatMap((x, i) => i < r.raw.length ? [f(r.raw[i], x)] : [])
  const floorByRun = (f: (raw: LoopResult, floor: ServiceRun) => number): string => floorPairs(f).map(f2).join(', ')
  const floorCpuRatio = median(floorPairs((a, b) => b.serverCpuMsPerRequest / a.cpuMs))
  const floorRateRatio = median(floorPairs((a, b) => b.result.requestsPerSec / a.rate))
  // svc's own logic runs on the main thread: service minus floor there, within each run.
  const ownLogic = floorRuns.flatMap((x, i) => i < r.sync.length ? [mainMs(r.sync[i]) - mainMs(x)] : [])
  return [
    HEADING,
    '',
    `${r.date.slice(0, 10)}; ${cpu.length} × ${cpu[0]?.model ?? '?'}; Node ${process.version}; load average at the end ${(r.loadAfter ?? loadavg()[0]).toFixed(1)}. ` +
      `Generated by \`make bench\` (scripts/bench.sh → bench/service.ts): private MariaDB (port ${process.env.SVC_DB_PORT ?? 3357}), \`svc demo\` data, ` +
      `\`svc serve\` on ${process.env.SVC_PORT ?? 8557} with ${r.threads} render threads and default settings except SVC_RATE_LIMIT=0 (only for the limiter-off key of the rows below; the bench keys here have a high limit of their own, so the shared limiter counts them and is never the bottleneck); logs at info to a file. A second idle node serves only the two-node row.`,
    ...(others > 0.3
      ? ['', `**A loaded machine:** other processes (other users' builds and tests) took a median ${pc(others)} of all cores during ` +
          'the sync runs, so every figure below is far from this machine\'s capacity and CPU per request is inflated too; ' +
          'compare the ratios within this run only.']
      : []),
    '',
    `Everything shares the ${cpu.length} cores: the server (HTTP + ${r.threads} render threads), MariaDB (service database and the demo data sources), ` +
      `and this process (load generator, and the raw pool when that is measured). Closed loops of ${r.connections} clients; each figure is the median of ${r.runs} runs ` +
      `of ${f0(r.durationMs / 1000)} s (after ${f0(r.warmupMs / 1000)} s of invoices each for the server and the raw pool, until their JIT has settled), runs interleaved; each raw engine run is two halves, before and after that run's service and floor, and the ratios of rows 2 and 2b are medians of the runs' paired ratios. The invoice is the demo's invoice template on the production environment's ` +
      'invoices 1–12 (5–40 lines each, cycled); the raw pool renders exactly the rows the service reads (read once through the same data-source code).',
    '',
    '| what | per second (median) | runs | p50 / p99 ms | errors | ratio |',
    '|---|---|---|---|---|---|',
    `| 1. raw engine, render pool on ${r.threads} threads, no HTTP/DB (ceiling) | ${f0(raw)} renders | ${all(r.raw.map((x) => x.rate))} | ${loopLat(r.raw)} | ${r.raw.reduce((n, x) => n + x.errors, 0)} | 1.00 |`,
    `| 2. service: HTTPS sync render, auth + 2 SQL datasets (svc bench) | ${f0(sync)} requests | ${all(r.sync.map((x) => x.result.requestsPerSec))} | ${lat(r.sync)} | ${syncErrors} | **${f2(rateRatio)}** of raw |`,
    ...(floorRuns.length === 0
      ? []
      : [`| 2b. the stack's floor: the same request in Fastify over HTTPS, the key's row, the 2 datasets, the render pool; none of svc's own logic (bench/stack-floor.ts) | ${f0(floorRate)} requests | ${all(floorRuns.map((x) => x.result.requestsPerSec))} | ${lat(floorRuns)} | ${errs(floorRuns)} | ${f2(floorRateRatio)} of raw |`]),
    `| 3a. async drain: the job loop working through the queue (from the last of ${r.drain[0]?.jobs ?? '–'} jobs submitted to the last completed) | ${f0(drain)} jobs | ${all(r.drain.map((x) => x.queueRate))} | – | ${drainFailed} | **${f2(drain / sync)}** of sync |`,
    `| 3b. the same ${r.drain[0]?.jobs ?? '–'} jobs end to end (first submitted → last completed; the submissions' HTTPS requests share the cores) | ${f0(drainAll)} jobs | ${all(r.drain.map((x) => x.rate))} | – | ${drainFailed} | ${f2(drainAll / sync)} of sync |`,
    `| 4a. labels, raw pool (shipping batches 1–3, 12/8/4 parcels) | ${f0(rawLab)} renders | ${all(r.rawLabels.map((x) => x.rate))} | ${loopLat(r.rawLabels)} | ${r.rawLabels.reduce((n, x) => n + x.errors, 0)} | 1.00 |`,
    `| 4b. labels, service (HTTPS sync, 1 SQL dataset) | ${f0(lab)} requests | ${all(r.labels.map((x) => x.result.requestsPerSec))} | ${lat(r.labels)} | ${errs(r.labels)} | **${f2(lab / rawLab)}** of raw |`,
    `| 5a. this engine, pool of ${r.threads} (same invoices) | ${f0(eng)} renders | ${all(r.engineOne.map((x) => x.rate))} | ${loopLat(r.engineOne)} | 0 | 1.00 |`,
    `| 5b. plain pdfkit 0.20, pool of ${r.threads} | ${f0(pk)} renders | ${all(r.pdfkit.map((x) => x.rate))} | ${loopLat(r.pdfkit)} | ${r.pdfkit.reduce((n, x) => n + x.errors, 0)} | ${f2(pk / eng)} (engine ${f1(eng / pk)}×) |`,
    `| 5c. pdfmake 0.3, pool of ${r.threads} | ${f0(pm)} renders | ${all(r.pdfmake.map((x) => x.rate))} | ${loopLat(r.pdfmake)} | ${r.pdfmake.reduce((n, x) => n + x.errors, 0)} | ${f2(pm / eng)} (engine ${f1(eng / pm)}×) |`,
    jsreportRow(r, eng, sync),
    '',
    '## Targets',
    '',
    `- Server CPU per sync invoice ≤ 1.4 × the raw engine's CPU per render, median of the runs' paired ratios: **${f2(cpuRatio)}×**: ${ok(cpuRatio <= 1.4)} ` +
      `(run by run: ${byRun((a, b) => b.serverCpuMsPerRequest / a.cpuMs)}; medians of the series ${f2(serverCpu)} ÷ ${f2(rawCpu)} ms = ${f2(serverCpu / rawCpu)}×).`,
    `- Service ÷ raw engine ≥ 0.55 (req/s at saturation), median of the runs' paired ratios: **${f2(rateRatio)}**: ${ok(rateRatio >= 0.55)} ` +
      `(run by run: ${byRun((a, b) => b.result.requestsPerSec / a.rate)}; medians of the series ${f0(sync)} ÷ ${f0(raw)} = ${f2(sync / raw)}).`,
    `- p99 ≤ 3 × p50 at saturation: p50 ${f1(syncP50)} ms, p99 ${f1(syncP99)} ms = **${f2(p99ratio)}×**: ${ok(p99ratio <= 3)}; timeouts ${syncTimeouts}, errors ${syncErrors}: ${ok(syncErrors === 0)}.`,
    `- Async drain ≥ 0.95 × sync throughput: **${f2(drain / sync)}** (the queue drained by the job loop, row 3a): ${ok(drain / sync >= 0.95)}. ` +
      `End to end with the submissions (row 3b, each job is two HTTPS requests' worth of work where a sync render is one): ${f2(drainAll / sync)}.`,
    ...(floorRuns.length === 0
      ? []
      : [`- What the stack alone reaches (row 2b, no target), medians of the paired ratios: CPU per request **${f2(floorCpuRatio)}×** ` +
          `(run by run: ${floorByRun((a, b) => b.serverCpuMsPerRequest / a.cpuMs)}), req/s ÷ raw **${f2(floorRateRatio)}** (run by run: ` +
          `${floorByRun((a, b) => b.result.requestsPerSec / a.rate)}). svc's own request logic on top of it, main thread ` +
          `(service − floor within each run): **${f2(median(ownLogic))} ms** per request (run by run: ${ownLogic.map(f2).join(', ')}).`]),
    '- Upper bound for service ÷ raw on these shared cores, were the server\'s own overhead zero: raw CPU per render ÷ (raw CPU per render + MariaDB and load generator CPU per request) = ' +
      `${f2(rawCpu)} ÷ (${f2(rawCpu)} + ${f2(dbCpu)} + ${f2(genCpu)}) = **${f2(rawCpu / (rawCpu + dbCpu + genCpu))}**.`,
    ...(r.rss.length === 0
      ? []
      : [`- Server RSS under ${r.connections} clients of sync invoices ≤ 250 MB after 60 s: **${f0(rssEnd)} MB** after ` +
        `${f0(r.rss.at(-1)?.seconds ?? NaN)} s (${f0(r.rssRequests ?? NaN)} req/s): ${ok(rssEnd <= 250)}. Curve (s: MB): ` +
        `${r.rss.map((p) => `${f0(p.seconds)}: ${f0(p.rssMb)}`).join(', ')}.`]),
    '',
    '## Where the CPU went (share of all cores over each service run, medians)',
    '',
    '| run | server (HTTP + render threads) | MariaDB | load generator | other processes | idle | server CPU ms per request | of which main thread | SQL statements per request |',
    '|---|---|---|---|---|---|---|---|---|',
    `| sync invoice | ${split(r.sync, 'server')} | ${split(r.sync, 'mariadb')} | ${split(r.sync, 'loadGenerator')} | ${split(r.sync, 'others')} | ${split(r.sync, 'idle')} | ${f2(serverCpu)} | ${mainCpu(r.sync)} | ${f1(median(r.sync.map((x) => x.statements)))} |`,
    `| async drain (submission included) | ${drainSplit('server')} | ${drainSplit('mariadb')} | ${drainSplit('loadGenerator')} | ${drainSplit('others')} | ${drainSplit('idle')} | ${f2(median(r.drain.map((x) => x.serverCpuMsPerJob ?? NaN)))} per job | ${f2(median(r.drain.map((x) => (x.serverCpuMsPerJob ?? NaN) * (x.cpu?.serverMain ?? NaN) / (x.cpu?.server ?? NaN))))} | ${f1(median(r.drain.map((x) => x.statements ?? NaN)))} per job |`,
    ...(floorRuns.length === 0
      ? []
      : [`| the stack's floor (row 2b) | ${split(floorRuns, 'server')} | ${split(floorRuns, 'mariadb')} | ${split(floorRuns, 'loadGenerator')} | ${split(floorRuns, 'others')} | ${split(floorRuns, 'idle')} | ${f2(floorCpu)} | ${mainCpu(floorRuns)} | ${f1(median(floorRuns.map((x) => x.statements)))} |`]),
    `| labels | ${split(r.labels, 'server')} | ${split(r.labels, 'mariadb')} | ${split(r.labels, 'loadGenerator')} | ${split(r.labels, 'others')} | ${split(r.labels, 'idle')} | ${f2(median(r.labels.map((x) => x.serverCpuMsPerRequest)))} | ${mainCpu(r.labels)} | ${f1(median(r.labels.map((x) => x.statements)))} |`,
    '',
    `The raw pool used ${f2(median(r.raw.map((x) => x.cpuMs)))} ms CPU per invoice render (this process, all threads: clients, pool, workers) and ` +
      `${f2(median(r.rawLabels.map((x) => x.cpuMs)))} ms per label batch; the server's figure above adds HTTPS, auth, the SQL round trips, run history and logging.`,
    '',
    'SQL statements per request = MariaDB\'s `Questions` counter over the run ÷ requests: the service database and the demo data sources together,',
    'plus the batched run-history inserts and the job loop\'s polling.',
    '',
    ...(NOTES.length > 0 ? ['## Findings', '', ...NOTES, ''] : [])
  ]
}

const RESULTS = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url))

/** Replaces the section (from its heading, lines[0], to the next top-level heading) or appends it. */
export function replaceSection (lines: string[], file = RESULTS): void {
  const heading = lines[0]
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
