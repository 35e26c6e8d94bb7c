// A real HTTPS server on port 0 that answers like the render API, with knobs for the bench
// tests: a fixed render delay, every Nth render refused 503 RENDER_BUSY, async jobs that succeed
// (or fail) after N polls, and a one-off stall holding every answer, like a GC pause would.
import { createServer } from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'

export const KEY = 'svc_test_benchkey_secret'
export const DOCUMENT_BYTES = 1000

export interface FakeOptions {
  delayMs?: number
  /** Every Nth sync render answers 503 RENDER_BUSY (0 = never). */
  busyEvery?: number
  /** Async jobs are `running` for this many polls, then final. */
  pollsToFinish?: number
  /** Every Nth async job ends `failed` with RENDER_FAILED (0 = never). */
  failEvery?: number
}

export interface FakeServer {
  url: string
  ca: Buffer
  caFile: string
  renders: number
  submits: number
  polls: number
  /** Parsed bodies of every POST /api/v1/render, in arrival order. */
  bodies: Array<Record<string, unknown>>
  /** Hold every answer (including those already waiting) until `ms` from now. */
  stall (ms: number): void
  close (): Promise<void>
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-test-'))
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
  '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
const cert = readFileSync(join(dir, 'cert.pem'))
const key = readFileSync(join(dir, 'key.pem'))
process.once('exit', () => { rmSync(dir, { recursive: true, force: true }) })

function problem (res: ServerResponse, status: number, errorCode: string): void {
  res.writeHead(status, { 'content-type': 'application/problem+json' })
  res.end(JSON.stringify({ type: 'about:blank', title: errorCode, status, detail: errorCode, errorCode, correlationId: 'fake' }))
}

export async function startFake (options: FakeOptions = {}): Promise<FakeServer> {
  const delayMs = options.delayMs ?? 5
  const jobs = new Map<string, { polls: number, fail: boolean }>()
  let stalledUntil = 0
  const document = Buffer.alloc(DOCUMENT_BYTES, 0x25)
  const hold = async (): Promise<void> => {
    await sleep(delayMs)
    while (Date.now() < stalledUntil) await sleep(stalledUntil - Date.now())
  }
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    await hold()
    if (req.headers.authorization !== `Bearer ${KEY}`) { problem(res, 401, 'API_KEY_INVALID'); return }
    if (req.method === 'POST' && req.url === '/api/v1/render') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      fake.bodies.push(body)
      if (body.async === true) {
        const jobId = randomUUID()
        fake.submits++
        jobs.set(jobId, {
          polls: 0,
          fail: options.failEvery !== undefined && options.failEvery > 0 && fake.submits % options.failEvery === 0
        })
        res.writeHead(202, { 'content-type': 'application/json', location: `${fake.url}/api/v1/jobs/${jobId}` })
        res.end(JSON.stringify({ jobId, status: 'queued', statusUrl: `${fake.url}/api/v1/jobs/${jobId}` }))
        return
      }
      fake.renders++
      if (options.busyEvery !== undefined && options.busyEvery > 0 && fake.renders % options.busyEvery === 0) { problem(res, 503, 'RENDER_BUSY'); return }
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': DOCUMENT_BYTES })
      res.end(document)
      return
    }
    const match = /^\/api\/v1\/jobs\/([0-9a-f-]+)$/.exec(req.url ?? '')
    if (req.method === 'GET' && match !== null) {
      const job = jobs.get(match[1]!)
      if (job === undefined) { problem(res, 404, 'JOB_NOT_FOUND'); return }
      fake.polls++
      job.polls++
      const done = job.polls >= (options.pollsToFinish ?? 2)
      const status = !done ? 'running' : job.fail ? 'failed' : 'succeeded'
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jobId: match[1], status, error: status === 'failed' ? { code: 'RENDER_FAILED', message: 'boom' } : null }))
      return
    }
    problem(res, 404, 'NOT_FOUND')
  }
  const server = createServer({ cert, key }, (req, res) => { handle(req, res).catch(() => { res.destroy() }) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const fake: FakeServer = {
    url: `https://127.0.0.1:${port}`,
    ca: cert,
    caFile: join(dir, 'cert.pem'),
    renders: 0,
    submits: 0,
    polls: 0,
    bodies: [],
    stall (ms) { stalledUntil = Date.now() + ms },
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
  return fake
}
