// The HTTP floor: what Node, TLS and Fastify alone cost per request on this machine, for reading
// the service's "server CPU per request" (bench/RESULTS.md). A child process serves
// POST /api/v1/render with a body schema and answers a 3.4 KB document (the demo invoice's size)
// at once: no auth, SQL, render pool or logging. `svc bench`'s runner drives it over HTTPS, first
// closed loops of 16 (saturation: many requests per wake-up), then open loops at the given rates
// (one request per wake-up, as the service's HTTP thread mostly sees them); the child's CPU comes
// from /proc. Usage: node dist/bench/http-floor.js [--rates 450,900] [--seconds 8]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { runBench } from '../cli/bench/runner.js'
import type { BenchOptions } from '../cli/bench/types.js'
import { loadTls } from '../server/process/tls.js'
import { startChildServer } from './child-server.js'

const SERVE = '--serve-floor'

async function serve (home: string): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const tls = await loadTls({ home, tlsCert: undefined, tlsKey: undefined }) // a self-signed pair in `home`
  const app = Fastify({ https: { key: tls.key, cert: tls.cert }, logger: false })
  const doc = Buffer.alloc(3400, 0x41)
  const body = {
    type: 'object', required: ['template'], properties: { template: { type: 'string' }, parameters: { type: 'object' } }
  }
  app.post('/api/v1/render', { schema: { body } }, async (_req, reply) => {
    void reply.header('content-type', 'application/pdf').header('x-page-count', '1')
    return doc
  })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  process.stdout.write(`${address}\n`)
}

/** utime + stime of a process, in ms (clock ticks of 10 ms). */
function cpuMs (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(f[11]) + Number(f[12])) * 10
}

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: { rates: { type: 'string', default: '450,900' }, seconds: { type: 'string', default: '8' } }
  })
  const durationMs = Number(values.seconds) * 1000
  const home = mkdtempSync(join(tmpdir(), 'svc-floor-'))
  const server = await startChildServer(new URL(import.meta.url).pathname, [SERVE, home], { flags: process.execArgv })
  try {
    const { url, pid } = server
    const base: BenchOptions = {
      url,
      key: 'svc_test_floor_unused',
      template: 'invoice',
      parameters: [{ invoiceId: 1 }],
      async: false,
      connections: 16,
      durationMs,
      warmupMs: 0,
      timeoutMs: 30_000,
      ca: readFileSync(join(home, 'tls', 'cert.pem')),
      insecure: false,
      jobTimeoutMs: 60_000,
      maxErrorRate: 0.01
    }
    // The first loop only warms the child's JIT; its figure is not printed.
    const loops: Array<{ name: string, rate?: number }> = [{ name: 'warm-up' }, { name: 'closed loop, 16 clients' },
      ...values.rates.split(',').map((r) => ({ name: `open loop, ${r} req/s`, rate: Number(r) }))]
    console.log('| load | requests/s | server CPU ms per request |\n|---|---|---|')
    for (const loop of loops) {
      const before = cpuMs(pid)
      const r = await runBench({ ...base, rate: loop.rate, connections: loop.rate === undefined ? 16 : 32 })
      const perRequest = (cpuMs(pid) - before) / r.total
      if (loop.name !== 'warm-up') {
        console.log(`| ${loop.name} | ${r.requestsPerSec.toFixed(0)} | ${perRequest.toFixed(3)} |`)
      }
    }
  } finally {
    server.close()
    rmSync(home, { recursive: true, force: true })
  }
}

const [, , mode, serveHome] = process.argv
if (mode === SERVE) {
  if (serveHome === undefined) throw new Error(`${SERVE}: the home directory is missing`)
  await serve(serveHome)
} else await main()
