// `svc serve` in a child process: prints its URL, answers /healthz over HTTPS with the generated
// certificate, and exits 0 soon after SIGTERM.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'undici'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { childEnv, svcBin } from './foundation-helpers.js'

let database: TestDatabase
let home: string
let child: ChildProcess | undefined

before(async () => {
  database = await createTestDatabase('serve')
  home = await mkdtemp(join(tmpdir(), 'svc-serve-'))
})
after(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await database?.drop()
  await rm(home, { recursive: true, force: true })
})

test('serve prints its URL, answers /healthz over HTTPS, and exits 0 on SIGTERM', { timeout: 120_000 }, async () => {
  // A global flag before the command: `svc --home … serve` must keep running too.
  const proc = spawn(process.execPath, [svcBin, '--home', home, 'serve', '--port', '0'], {
    env: childEnv({ SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: randomBytes(32).toString('hex'), SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'info', SVC_ADMIN_PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  child = proc
  let output = ''
  // Null for other stdio settings; kept as a guard.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  proc.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString() })
  // Null for other stdio settings; kept as a guard.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  proc.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })))
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 30 s: ${output}`)), 30_000)
    // Null for other stdio settings; kept as a guard.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    proc.stdout?.on('data', () => {
      // the URL line, then the certificate line (two writes, maybe two chunks)
      const match = /svc listening on (https:\/\/127\.0\.0\.1:\d+)\/api\/v1[^]*self-signed certificate: .*\n/.exec(output)
      if (match !== null) { clearTimeout(timer); resolve(match[1]!) }
    })
    void exited.then((e) => { clearTimeout(timer); reject(new Error(`serve exited (${e.code}) before listening: ${output}`)) })
  })
  assert.match(output, new RegExp(`self-signed certificate: ${join(home, 'tls', 'cert.pem').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))

  const agent = new Agent({ connect: { ca: await readFile(join(home, 'tls', 'cert.pem')) } })
  try {
    const res = await request(`${base}/healthz`, { dispatcher: agent })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(await res.body.json(), { status: 'ok' })
    assert.match(String(res.headers['x-correlation-id']), /^[0-9a-f-]{36}$/)
    const ready = await request(`${base}/readyz`, { dispatcher: agent })
    assert.deepEqual(await ready.body.json(), { status: 'ready' })
    // The admin listener (loopback, plain HTTP) serves the metrics of what was just answered.
    const admin = /metrics: (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(output)
    assert.ok(admin !== null, output)
    const metrics = await request(`${admin[1]}/metrics`)
    assert.equal(metrics.statusCode, 200)
    assert.match(String(metrics.headers['content-type']), /^text\/plain/)
    const text = await metrics.body.text()
    assert.match(text, /^svc_http_requests_total\{method="GET",route="\/healthz",status="200",error_code=""\} 1$/m)
    assert.match(text, /^svc_http_request_duration_seconds_count\{method="GET",route="\/readyz"\} 1$/m)
    assert.match(text, /^svc_render_threads\{state="idle"\} \d+$/m)
    assert.match(text, /^svc_jobs\{status="queued"\} 0$/m)
    assert.match(text, /^svc_webhook_deliveries\{status="pending"\} 0$/m)
    assert.match(text, /^svc_nodejs_eventloop_lag_seconds \S+$/m)
    assert.match(text, /^svc_process_resident_memory_bytes \d+$/m)
    // Plain HTTP is not served.
    const plain = new Agent()
    try {
      await assert.rejects(request(base.replace('https:', 'http:') + '/healthz', { dispatcher: plain }).then(async (r) => { await r.body.text() }))
    } finally {
      await plain.destroy()
    }
  } finally {
    await agent.close()
  }

  // Exits by itself, with 0; the test's own timeout only keeps a process that never exits from
  // hanging the suite.
  proc.kill('SIGTERM')
  const result = await exited
  assert.deepEqual(result, { code: 0, signal: null }, output)
  assert.match(output, /shutting down/)
})
