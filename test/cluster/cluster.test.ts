// Three real `svc serve` nodes on one MariaDB behind a real HAProxy (TCP mode, TLS passed
// through, /readyz checks), as `make cluster` runs them: migrations raced by three nodes apply
// once; one key's limit holds across the nodes; a revocation and a publish are seen by every
// node on its next request; async load survives a node SIGKILLed mid-load (every job succeeds
// exactly once, every document.generated reaches a real receiver, no document is lost).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { execFile, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Agent, request } from 'undici'
import type { RowDataPacket } from 'mysql2/promise'
import { createDb } from '../../server/store/db.js'
import type { Db } from '../../server/store/db.js'
import { loadConfig } from '../../server/config.js'
import { createContext } from '../../server/context.js'
import type { Context } from '../../server/context.js'
import { migrationsDir, projectRoot } from '../../server/util/paths.js'
import { serverUrl, testDataSourceAllow } from '../helpers/db.js'
import { startChildServer } from '../helpers/child-server.js'
import type { ChildServer } from '../helpers/child-server.js'
import { createDataDatabase, dropDataDatabase, renderWorkspace, readExample } from '../helpers/render-data.js'
import { makeCert, startReceiver, waitFor } from '../server/webhooks/helpers.js'
import type { Cert, Receiver } from '../server/webhooks/helpers.js'

const run = promisify(execFile)
const masterKey = randomBytes(32).toString('hex')
const name = `cluster_${randomBytes(5).toString('hex')}`
let db: Db
let dbUrl: string
let cert: Cert
let home: string
let ctx: Context
let rx: Receiver
let agent: Agent
let haproxy: ChildProcess
let lb: string
const nodes: ChildServer[] = []
let ws: Awaited<ReturnType<typeof renderWorkspace>>

async function freePort (): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

/** One request on a connection of its own, so the balancer spreads requests, not connections. */
async function call (base: string, method: 'GET' | 'POST', path: string, key?: string, body?: unknown) {
  const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await request(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: agent, reset: true })
  const raw = Buffer.from(await res.body.arrayBuffer())
  return { status: res.statusCode, raw, json: () => JSON.parse(raw.toString('utf8')) }
}

async function metric (node: ChildServer, pattern: RegExp): Promise<number> {
  const res = await request(`${node.adminUrl}/metrics`)
  const m = pattern.exec(await res.body.text())
  return m === null ? 0 : Number(m[1])
}

before(async () => {
  // A fresh, empty database: the nodes migrate it themselves, all three at once.
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  await admin.end()
  dbUrl = `${serverUrl()}/${name}`
  db = createDb(dbUrl, { connectionLimit: 4 })
  cert = await makeCert()
  home = await mkdtemp(join(tmpdir(), 'svc-cluster-'))
  agent = new Agent({ connect: { ca: cert.cert } })
  rx = await startReceiver(cert)
  const env = {
    SVC_HOME: home,
    SVC_DATABASE_URL: dbUrl,
    SVC_MASTER_KEY: masterKey,
    SVC_TLS_CERT: cert.certFile,
    SVC_TLS_KEY: cert.keyFile,
    SVC_LOG_LEVEL: 'error',
    // HAProxy sends each client's address in a PROXY protocol header (scripts/haproxy-cfg.sh).
    SVC_PROXY_PROTOCOL_FROM: '127.0.0.2',
    SVC_RENDER_THREADS: '1',
    SVC_JOB_POLL: '50ms',
    SVC_JOB_LEASE: '2s',
    SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
    SVC_WEBHOOK_CA_FILE: cert.certFile,
    SVC_WEBHOOK_TIMEOUT: '1s',
    SVC_WEBHOOK_POLL: '100ms'
  }
  const ports = await Promise.all([1, 2, 3].map(async () => await freePort()))
  const started = await Promise.allSettled(
    ports.map(async (port) => await startChildServer({ ...env, SVC_PORT: String(port) }, 90_000))
  )
  for (const s of started) if (s.status === 'fulfilled') nodes.push(s.value)
  for (const s of started) if (s.status === 'rejected') throw s.reason
  const lbPort = await freePort()
  const cfg = join(home, 'haproxy.cfg')
  const { stdout } = await run('bash', [join(projectRoot, 'scripts', 'haproxy-cfg.sh'), String(lbPort), ...ports.map(String)])
  await writeFile(cfg, stdout)
  haproxy = spawn('haproxy', ['-db', '-f', cfg], { stdio: 'ignore' })
  lb = `https://127.0.0.1:${lbPort}`
  await waitFor('the balancer', async () => await call(lb, 'GET', '/readyz').then((r) => r.status === 200, () => false), 20_000, 100)

  const config = loadConfig({}, { SVC_HOME: home, SVC_DATABASE_URL: dbUrl, SVC_MASTER_KEY: masterKey, SVC_LOG_LEVEL: 'silent', SVC_WEBHOOKS_ALLOW_PRIVATE: 'true', SVC_DATASOURCE_ALLOW: testDataSourceAllow() }, 2)
  ctx = await createContext(config, { db })
  const dataUrl = await createDataDatabase(`${name}_data`)
  ws = await renderWorkspace(ctx, dataUrl)
  // Jobs hold their render for a second: the node killed below is sure to be mid-job.
  const slow = await readExample('shipping-label') as { code: string, datasets: Array<{ query: string }> }
  slow.code = 'slow-label'
  slow.datasets[0]!.query = slow.datasets[0]!.query.replace('SELECT ', 'SELECT pause_for(1) AS pause, ')
  await ctx.services.templates.publish(ws.workspace.id, slow, {})
  await ctx.services.webhooks.create({ workspaceId: ws.workspace.id, url: rx.url, events: ['document.generated'] })
})

after(async () => {
  for (const n of nodes) await n.kill('SIGKILL')
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  haproxy?.kill('SIGKILL')
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await agent?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await rx?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await db?.end()
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  await admin.query(`DROP DATABASE IF EXISTS \`${name}\``)
  await admin.end()
  await dropDataDatabase(`${name}_data`)
  await rm(home, { recursive: true, force: true })
  await rm(cert.dir, { recursive: true, force: true })
})

test('migrations started by three nodes at once are applied once each', async () => {
  const files = (await readdir(migrationsDir)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort()
  const [rows] = await db.query<RowDataPacket[]>('SELECT version, COUNT(*) AS n FROM schema_migrations GROUP BY version ORDER BY version')
  assert.deepEqual(rows.map((r) => r.version), files)
  assert.ok(rows.every((r) => Number(r.n) === 1))
  assert.equal(nodes.length, 3, 'all three nodes started on the raced schema')
})

test('one key\'s requests spread over three nodes get 429 after its limit (± 2%)', async () => {
  const limited = await ctx.services.apiKeys.create({ workspaceId: ws.workspace.id, name: 'limited', mode: 'live', scopes: ['render'], expiresAt: null, rateLimit: 150 })
  const before = await Promise.all(nodes.map(async (n) => await metric(n, /^svc_http_requests_total\{method="GET",route="\/api\/v1\/whoami",status="200",error_code=""\} (\d+)$/m)))
  const statuses: number[] = []
  for (let i = 0; i < 200; i += 4) {
    statuses.push(...(await Promise.all([0, 1, 2, 3].map(async () => (await call(lb, 'GET', '/api/v1/whoami', limited.key)).status))))
  }
  const ok = statuses.filter((s) => s === 200).length
  assert.ok(ok >= 147 && ok <= 150, `${ok} answered of a limit of 150`)
  assert.equal(statuses.filter((s) => s === 429).length, 200 - ok)
  const after = await Promise.all(nodes.map(async (n) => await metric(n, /^svc_http_requests_total\{method="GET",route="\/api\/v1\/whoami",status="200",error_code=""\} (\d+)$/m)))
  after.forEach((n, i) => assert.ok(n - before[i]! >= 20, `node ${i + 1} answered ${n - before[i]!} of them`))
})

test('a key revoked through node 1 is refused by nodes 2 and 3 on their next request', async () => {
  const key = await ctx.services.apiKeys.create({ workspaceId: ws.workspace.id, name: 'to revoke', mode: 'live', scopes: ['render'], expiresAt: null })
  for (const n of nodes) assert.equal((await call(n.url, 'GET', '/api/v1/whoami', key.key)).status, 200)
  // `svc keys revoke` with node 1's settings (a real CLI process on the shared database).
  await run(process.execPath, [join(projectRoot, 'bin', 'svc'), 'keys', 'revoke', key.prefix, '--workspace', ws.workspace.id],
    { env: { PATH: process.env.PATH ?? '', SVC_HOME: home, SVC_DATABASE_URL: dbUrl, SVC_MASTER_KEY: masterKey } })
  for (const n of nodes.slice(1)) {
    const res = await call(n.url, 'GET', '/api/v1/whoami', key.key)
    assert.equal(res.status, 401)
    assert.equal(res.json().errorCode, 'API_KEY_REVOKED')
  }
})

test('a template published while all nodes run is rendered by every node on its next request', async () => {
  const label = await readExample('shipping-label') as { label: { zpl: string } }
  const render = async (n: ChildServer) => await call(n.url, 'POST', '/api/v1/render', ws.key.key, { template: 'shipping-label', parameters: { batchId: 7 } })
  for (const n of nodes) assert.doesNotMatch((await render(n)).raw.toString(), /CLUSTER-V2/)
  label.label.zpl = label.label.zpl.replace('FROM: ACME', 'CLUSTER-V2 FROM: ACME')
  await ctx.services.templates.publish(ws.workspace.id, label, {})
  for (const n of nodes) {
    const res = await render(n)
    assert.equal(res.status, 200)
    assert.match(res.raw.toString(), /CLUSTER-V2 FROM: ACME/)
  }
})

test('async load over the balancer, one node SIGKILLed mid-load: every job succeeds exactly once, every event is delivered, no document lost', async () => {
  const ids: string[] = []
  for (let i = 0; i < 36; i += 6) {
    ids.push(...await Promise.all(Array.from({ length: 6 }, async () => {
      const res = await call(lb, 'POST', '/api/v1/render', ws.key.key, { template: 'slow-label', parameters: { batchId: 7 }, async: true })
      assert.equal(res.status, 202, res.raw.toString())
      return res.json().jobId as string
    })))
  }
  // The first node seen mid-job is killed. (It was node 3, but under load the other two nodes
  // sometimes claimed all 36 jobs before node 3 took one, and the wait timed out.)
  let victim: ChildServer | undefined
  await waitFor('a node to be mid-job', async () => {
    for (const n of nodes) {
      if (await metric(n, /^svc_jobs_running_here (\d+)$/m) > 0) { victim = n; return true }
    }
    return false
  }, 30_000, 20)
  await victim!.kill('SIGKILL')
  await waitFor('every job to finish', async () => {
    const [rows] = await db.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM render_jobs WHERE id IN (?) AND status IN ('succeeded', 'failed')", [ids])
    return Number(rows[0]?.n) === ids.length
  }, 90_000, 200)
  const [jobs] = await db.query<RowDataPacket[]>('SELECT id, status, attempts, document_id FROM render_jobs WHERE id IN (?)', [ids])
  assert.equal(jobs.length, ids.length)
  for (const j of jobs) {
    assert.equal(j.status, 'succeeded', `job ${j.id as string}`)
    assert.ok(j.attempts === 1 || j.attempts === 2, `job ${j.id as string}: ${j.attempts as number} attempts`)
  }
  assert.ok(jobs.some((j) => j.attempts === 2), 'a job of the killed node was taken over')
  // Succeeded exactly once: one document.generated event per job.
  const [events] = await db.query<RowDataPacket[]>("SELECT JSON_UNQUOTE(JSON_EXTRACT(payload, '$.data.jobId')) AS job, COUNT(*) AS n FROM events WHERE type = 'document.generated' GROUP BY job")
  const perJob = new Map(events.map((e) => [e.job as string, Number(e.n)]))
  for (const id of ids) assert.equal(perJob.get(id), 1, `events of job ${id}`)
  // Every job's document exists and is served through the balancer.
  for (const id of ids) {
    const job = await call(lb, 'GET', `/api/v1/jobs/${id}`, ws.key.key)
    assert.equal(job.status, 200)
    const doc = await call(lb, 'GET', new URL(job.json().documentUrl as string).pathname, ws.key.key)
    assert.equal(doc.status, 200)
    assert.match(doc.raw.toString('latin1'), /^\^XA/)
  }
  // At least once to a real receiver, for every job (the dead node's deliveries are retried).
  await waitFor('every document.generated delivered', () => {
    const delivered = new Set(rx.received.map((r) => (r.json?.data?.jobId ?? r.json?.jobId) as string | undefined))
    return ids.every((id) => delivered.has(id))
  }, 60_000, 200)
})
