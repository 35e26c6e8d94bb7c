// The tenancy and scaling rows of bench/service.ts (issues 11 and 13), each a closed loop of sync
// invoice renders over HTTPS through `svc bench`'s runBench:
// - noisy neighbour: workspace A alone, then A while workspace B drives 8× as many clients;
// - long neighbour (issue 30): A's one client of sequential invoices alone, then while B keeps one
//   long render (several seconds) going per render thread;
// - rate limiter: the same workspace with a key the shared limiter counts (its own high limit)
//   and a key it does not (no limit of its own, servers on SVC_RATE_LIMIT=0), SQL statements per render;
// - two nodes: one node with C clients, then two nodes on the same database with C/2 each (half windows).
// Pairs run back to back and alternate their order from run to run, so drift falls on both halves.
import { runBench } from '../cli/bench/runner.js'
import type { BenchResult } from '../cli/bench/types.js'

export interface Target { url: string, key: string }
export interface RowOptions {
  ca: Buffer
  template: string
  parameters: Array<Record<string, unknown>>
  durationMs: number
  /** MariaDB's statement counter (Questions). */
  questions: () => Promise<number>
}

export interface NeighbourRun {
  clients: number
  alone: BenchResult
  shared: BenchResult
  neighbour: BenchResult
  /** A's share of the renders served while both ran: A ÷ (A + B). */
  share: number
}
export interface LongNeighbourRun {
  /** B's clients, each keeping one long render going: as many as there are render threads. */
  longClients: number
  alone: BenchResult
  shared: BenchResult
  /** B's long renders over the same stretch (their latency is a render's length). */
  long: BenchResult
}
export interface LimiterRun {
  on: BenchResult
  off: BenchResult
  /** SQL statements per sync render (MariaDB Questions over the window ÷ renders). */
  onStatements: number
  offStatements: number
}
export interface NodesRun { one: BenchResult, two: BenchResult[], sum: number }

/** Renders answered 2xx per second of the measured window (errors such as RENDER_BUSY excluded). */
export const served = (r: BenchResult): number => r.durationMs > 0 ? (r.total - r.errors) * 1000 / r.durationMs : 0

async function load (o: RowOptions, t: Target, connections: number, durationMs = o.durationMs): Promise<BenchResult> {
  return await runBench({
    url: t.url,
    key: t.key,
    template: o.template,
    parameters: o.parameters,
    async: false,
    connections,
    durationMs,
    warmupMs: 1000,
    timeoutMs: 30_000,
    ca: o.ca,
    insecure: false,
    jobTimeoutMs: 60_000,
    // Refusals of the neighbour over its own caps are part of what is measured, not a failure.
    maxErrorRate: 1
  })
}

/** Unmeasured load, so a workspace's or node's first measured window is not its first traffic. */
export async function warm (o: RowOptions, t: Target, connections: number, ms: number): Promise<void> {
  await load(o, t, connections, ms)
}

export async function noisyNeighbour (o: RowOptions, a: Target, b: Target, clients: number): Promise<NeighbourRun> {
  const alone = await load(o, a, clients)
  const [shared, neighbour] = await Promise.all([load(o, a, clients), load(o, b, clients * 8)])
  const total = served(shared) + served(neighbour)
  return { clients, alone, shared, neighbour, share: total > 0 ? served(shared) / total : NaN }
}

/**
 * A's sequential invoices (one client) alone, then while B's `threads` clients each keep a long
 * render going. B starts first and runs one long render's worth before A's window opens, so
 * every thread has held one of B's renders when A is measured; B stops issuing once A is done.
 */
export interface TemplateTarget extends Target { template: string, parameters: Array<Record<string, unknown>> }

export async function longNeighbour (o: RowOptions, a: Target, b: TemplateTarget, threads: number,
  leadMs: number): Promise<LongNeighbourRun> {
  const alone = await load(o, a, 1)
  const longLoad = runBench({
    url: b.url,
    key: b.key,
    template: b.template,
    parameters: b.parameters,
    async: false,
    connections: threads,
    // A's window (its 1 s warm-up and o.durationMs) opens after leadMs.
    durationMs: leadMs + 1000 + o.durationMs,
    warmupMs: 0,
    timeoutMs: 120_000,
    ca: o.ca,
    insecure: false,
    jobTimeoutMs: 60_000,
    maxErrorRate: 1
  })
  await new Promise((resolve) => setTimeout(resolve, leadMs))
  const shared = await load(o, a, 1)
  return { longClients: threads, alone, shared, long: await longLoad }
}

type Counted = { r: BenchResult, statements: number }
async function counted (o: RowOptions, t: Target, connections: number): Promise<Counted> {
  const q0 = await o.questions()
  const t0 = performance.now()
  const r = await load(o, t, connections)
  const wallMs = performance.now() - t0
  // Everything served during the call (the 1 s warm-up too), at the window's rate.
  const renders = r.requestsPerSec * wallMs / 1000
  return { r, statements: (await o.questions() - q0) / Math.max(1, renders) }
}

export async function limiterOnOff (o: RowOptions, on: Target, off: Target, clients: number,
  onFirst: boolean): Promise<LimiterRun> {
  const first = await counted(o, onFirst ? on : off, clients)
  const second = await counted(o, onFirst ? off : on, clients)
  const [a, b] = onFirst ? [first, second] : [second, first]
  return { on: a.r, off: b.r, onStatements: a.statements, offStatements: b.statements }
}

export async function twoNodes (o: RowOptions, node1: Target, node2: Target, clients: number,
  oneFirst: boolean): Promise<NodesRun> {
  const half = Math.max(1, Math.round(clients / 2))
  // Half windows: this row has no target, it shows the cost of a second node on shared cores.
  const ms = o.durationMs / 2
  const both = async (): Promise<BenchResult[]> =>
    await Promise.all([load(o, node1, half, ms), load(o, node2, half, ms)])
  let one: BenchResult
  let two: BenchResult[]
  if (oneFirst) {
    one = await load(o, node1, clients, ms)
    two = await both()
  } else {
    two = await both()
    one = await load(o, node1, clients, ms)
  }
  return { one, two, sum: two.reduce((n, r) => n + served(r), 0) }
}
