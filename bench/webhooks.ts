// Webhook delivery throughput: N events appended, then fanned out, signed and delivered over
// HTTPS to a local receiver (in a worker thread, verifying every signature) by one dispatcher.
// Reports deliveries per second and checks that nothing was lost or duplicated. Not a test.
//   make bench-webhooks            (or: node dist/bench/webhooks.js [events])
// Database: SVC_BENCH_DATABASE_URL (server URL without a database), else the suite's private
// MariaDB (.svc/test, port 3317), started if needed.
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, cpus } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import pino from 'pino'
import type { RowDataPacket } from 'mysql2/promise'
import { loadConfig } from '../server/config.js'
import { createContext } from '../server/context.js'
import { createDb, transaction } from '../server/store/db.js'
import { migrate } from '../server/store/migrate.js'
import { createWebhookDispatcher } from '../server/webhooks/dispatcher.js'
import { load1 } from './stats.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const EVENTS = Number(process.argv[2] ?? 10_000)

function serverUrl (): string {
  if (process.env.SVC_BENCH_DATABASE_URL !== undefined) return process.env.SVC_BENCH_DATABASE_URL.replace(/\/$/, '')
  const home = join(root, '.svc', 'test')
  execFileSync(process.execPath, [join(root, 'bin', 'svc'), '--home', home, 'db', 'start'],
    { env: { ...process.env, SVC_DB_PORT: '3317' }, stdio: 'ignore' })
  const info = JSON.parse(readFileSync(join(home, 'db', 'instance.json'), 'utf8')) as { url: string }
  return info.url.replace(/\/[^/]*$/, '')
}

// The receiver: its own thread, so its TLS and parsing do not share the dispatcher's event loop.
const RECEIVER = `
const { parentPort, workerData } = require('node:worker_threads')
const { createServer } = require('node:https')
const { createHmac, timingSafeEqual } = require('node:crypto')
const seen = new Set(); let bad = 0; let dup = 0
const server = createServer({ cert: workerData.cert, key: workerData.key, keepAliveTimeout: 10000 }, (req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const raw = Buffer.concat(chunks)
    const m = /^t=(\\d+), v1=([0-9a-f]{64})$/.exec(req.headers['svc-signature'] || '')
    const ok = m !== null && timingSafeEqual(Buffer.from(m[2], 'hex'), createHmac('sha256', workerData.secret).update(m[1] + '.').update(raw).digest())
    if (!ok) { bad++; res.writeHead(400).end(); return }
    const id = req.headers['svc-delivery']
    if (seen.has(id)) dup++; else seen.add(id)
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
  })
})
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }))
parentPort.on('message', (m) => { if (m === 'stats') parentPort.postMessage({ received: seen.size, bad, dup }); if (m === 'close') { server.closeAllConnections(); server.close(); parentPort.close() } })
`

interface Stats { received: number, bad: number, dup: number }

async function runOnce (base: string, concurrency: number, certDir: string): Promise<Record<string, number | string>> {
  const name = `bench_wh_${randomBytes(4).toString('hex')}`
  const admin = createDb(`${base}/mysql`, { connectionLimit: 1 })
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  await admin.end()
  const db = createDb(`${base}/${name}`, { connectionLimit: 20 })
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-wh-'))
  const config = loadConfig({}, {
    SVC_HOME: home,
    SVC_DATABASE_URL: `${base}/${name}`,
    SVC_MASTER_KEY: randomBytes(32).toString('hex'),
    SVC_LOG_LEVEL: 'silent',
    SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
    SVC_WEBHOOK_CA_FILE: join(certDir, 'cert.pem'),
    SVC_WEBHOOK_CONCURRENCY: String(concurrency),
    SVC_WEBHOOK_POLL: '50ms'
  }, 2)
  let worker: Worker | undefined
  try {
    await migrate(db)
    const ctx = await createContext(config, { db })
    const ws = (await ctx.services.workspaces.create('bench')).id
    const cert = readFileSync(join(certDir, 'cert.pem'))
    const key = readFileSync(join(certDir, 'key.pem'))
    // The secret is only known after create; the endpoint URL needs the port: create, then point it.
    const ep = await ctx.services.webhooks.create({
      workspaceId: ws, url: 'https://127.0.0.1:1/hook', events: ['document.generated']
    })
    worker = new Worker(RECEIVER, { eval: true, workerData: { cert, key, secret: ep.secret } })
    const w = worker
    const port = await new Promise<number>((resolve) => w.once('message', (m: { port: number }) => resolve(m.port)))
    await db.query('UPDATE webhook_endpoints SET url = ? WHERE id = ?', [`https://127.0.0.1:${port}/hook`, ep.id])
    const stats = async (): Promise<Stats> => await new Promise((resolve) => {
      w.once('message', resolve)
      w.postMessage('stats')
    })

    for (let i = 0; i < EVENTS; i += 500) {
      await transaction(db, async (_conn, tx) => {
        for (let j = i; j < Math.min(EVENTS, i + 500); j++) {
          const data = {
            template: 'invoice', version: 1, pageCount: 1, outputBytes: 3200, runId: `run-${j}`, correlationId: `bench-${j}`
          }
          await ctx.services.outbox.append(tx, { workspaceId: ws, type: 'document.generated', data })
        }
      })
    }
    const dispatcher = createWebhookDispatcher(config, {
      db, box: ctx.box, repos: ctx.repos, outbox: ctx.services.outbox, logger: pino({ level: 'silent' })
    })
    const started = performance.now()
    dispatcher.start()
    let s: Stats
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      s = await stats()
      if (s.received >= EVENTS) break
      if (performance.now() - started > 300_000) throw new Error(`stalled at ${s.received}/${EVENTS}`)
    }
    const deliveredMs = performance.now() - started
    await dispatcher.close()
    const recordedMs = performance.now() - started
    const [[row]] = await db.query<RowDataPacket[]>(`SELECT COUNT(*) AS n, SUM(status = 'succeeded') AS ok, SUM(attempts) AS attempts,
      (SELECT COUNT(*) FROM webhook_attempts) AS attempt_rows FROM webhook_deliveries`)
    if (row === undefined) throw new Error('an aggregate query over webhook_deliveries returned no row')
    s = await stats()
    const lost = EVENTS - s.received
    return {
      concurrency,
      events: EVENTS,
      received: s.received,
      lost,
      duplicates: s.dup,
      badSignatures: s.bad,
      succeededRows: Number(row.ok),
      attemptRows: Number(row.attempt_rows),
      seconds: Number((deliveredMs / 1000).toFixed(2)),
      perSecond: Math.round(EVENTS / (deliveredMs / 1000)),
      perSecondRecorded: Math.round(EVENTS / (recordedMs / 1000))
    }
  } finally {
    worker?.postMessage('close')
    await db.end()
    const a = createDb(`${base}/mysql`, { connectionLimit: 1 })
    await a.query(`DROP DATABASE IF EXISTS \`${name}\``)
    await a.end()
    rmSync(home, { recursive: true, force: true })
  }
}

function writeResults (results: Array<Record<string, number | string>>): void {
  const file = join(root, 'bench', 'RESULTS.md')
  const heading = '# Webhooks benchmark'
  const lines = [
    heading,
    '',
    `${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, Node ${process.version}. \`make ` +
      `bench-webhooks\` (bench/webhooks.ts): ${EVENTS} \`document.generated\` events`,
    'appended, then one dispatcher fans them out and delivers them signed over HTTPS (keep-alive, one undici Agent) ' +
      'to a',
    'receiver in a worker thread that checks every signature with its own HMAC. Time runs from dispatcher start to ' +
      'the last',
    'delivery received ("recorded" also waits for every outcome to be written). MariaDB shares the two cores; so did',
    `whatever else ran (1-minute load average ${loadAtStart} at start): compare runs of one table, not across days.`,
    'Concurrency is SVC_WEBHOOK_CONCURRENCY (default 16); one process opens at most 64 sockets to one receiver.',
    '',
    '| concurrency | deliveries/s | recorded/s | seconds | received | lost | duplicates | bad signatures | succeeded ' +
      'rows | attempt rows |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...results.map((r) => `| ${r.concurrency} | ${r.perSecond} | ${r.perSecondRecorded} | ${r.seconds} ` +
      `| ${r.received} | ${r.lost} | ${r.duplicates} | ${r.badSignatures} | ${r.succeededRows} | ${r.attemptRows} |`),
    ''
  ].join('\n')
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const start = text.indexOf(heading)
  let next: string
  if (start < 0) next = text.replace(/\n*$/, '\n\n') + lines
  else {
    // Replace only this section: up to the next top-level heading.
    const after = text.indexOf('\n# ', start + heading.length)
    next = text.slice(0, start) + lines + (after < 0 ? '' : '\n' + text.slice(after + 1))
  }
  writeFileSync(file, next)
}

const loadAtStart = load1().toFixed(1)
const base = serverUrl()
const certDir = mkdtempSync(join(tmpdir(), 'svc-bench-cert-'))
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
  '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem')], { stdio: 'ignore' })
const results = []
for (const concurrency of (process.env.BENCH_CONCURRENCY ?? '16,64,256').split(',').map(Number)) {
  const r = await runOnce(base, concurrency, certDir)
  console.log(JSON.stringify(r))
  if (r.lost !== 0 || r.duplicates !== 0 || r.badSignatures !== 0 || r.succeededRows !== EVENTS) {
    console.error('LOST, DUPLICATED OR UNSIGNED DELIVERIES')
    process.exitCode = 1
  }
  results.push(r)
}
rmSync(certDir, { recursive: true, force: true })
writeResults(results)
console.log('appended to bench/RESULTS.md under "# Webhooks benchmark"')
