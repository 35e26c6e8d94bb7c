// Webhook test kit: a real HTTPS receiver on loopback with its own certificate, a context and
// dispatcher configured to trust it, and the test's OWN signature code (never the project's).
import { execFile } from 'node:child_process'
import { createHmac, randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:https'
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pino from 'pino'
import { loadConfig } from '../../../server/config.js'
import type { Config } from '../../../server/config.js'
import { createContext } from '../../../server/context.js'
import type { Context } from '../../../server/context.js'
import { createWebhookDispatcher } from '../../../server/webhooks/dispatcher.js'
import type { DispatcherDeps } from '../../../server/webhooks/dispatcher.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'

const run = promisify(execFile)

export interface Cert { dir: string, certFile: string, keyFile: string, cert: Buffer, key: Buffer }

/** A self-signed certificate for 127.0.0.1, ::1 and localhost, made by openssl. */
export async function makeCert (): Promise<Cert> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-wh-cert-'))
  const certFile = join(dir, 'cert.pem')
  const keyFile = join(dir, 'key.pem')
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1', '-keyout', keyFile, '-out', certFile])
  return { dir, certFile, keyFile, cert: await readFile(certFile), key: await readFile(keyFile) }
}

// Parsed JSON under test.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Received { headers: IncomingHttpHeaders, raw: Buffer, at: number, json: any }
type Answer = { status: number, body?: string } | 'hang'

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** How to answer the n-th request (0-based); default 200. */
  answer: (req: Received, n: number) => Answer
  close (): Promise<void>
}

export async function startReceiver (cert: Cert, answer: Receiver['answer'] = () => ({ status: 200, body: '{"ok":true}' })): Promise<Receiver> {
  const received: Received[] = []
  const hanging = new Set<ServerResponse>()
  const receiver = { answer } as Receiver
  const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      let json: unknown
      try { json = JSON.parse(raw.toString('utf8')) } catch { json = undefined }
      const r: Received = { headers: req.headers, raw, at: Date.now(), json }
      received.push(r)
      const a = receiver.answer(r, received.length - 1)
      if (a === 'hang') { hanging.add(res); return }
      res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return Object.assign(receiver, {
    url: `https://127.0.0.1:${port}/hooks`,
    port,
    received,
    async close () {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
}

/** The test's own HMAC: lowercase hex HMAC-SHA256 of `<t>.<raw body>` keyed with the whole secret. */
export function expectedSignature (secret: string, t: string, raw: Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), raw])).digest('hex')
}

export function parseSignature (header: string | string[] | undefined): { t: string, v1: string } {
  const m = /^t=(\d+), v1=([0-9a-f]{64})$/.exec(String(header))
  if (m === null) throw new Error(`malformed Svc-Signature: ${String(header)}`)
  return { t: m[1]!, v1: m[2]! }
}

export async function waitFor<T> (
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
  everyMs = 50
): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (v !== undefined && v !== false) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

export interface Kit {
  tdb: TestDatabase
  home: string
  config: Config
  ctx: Context
  cert: Cert
  workspaceId: string
  dispatcher (deps?: Partial<DispatcherDeps>, env?: Record<string, string>): ReturnType<typeof createWebhookDispatcher>
  close (): Promise<void>
}

/** A test database, a context that trusts `cert`, a workspace; dispatchers made on demand. */
export async function kit (env: Record<string, string> = {}, cert?: Cert): Promise<Kit> {
  const tdb = await createTestDatabase('wh')
  const home = await mkdtemp(join(tmpdir(), 'svc-wh-'))
  const c = cert ?? await makeCert()
  const base = {
    SVC_HOME: home,
    SVC_DATABASE_URL: tdb.url,
    SVC_MASTER_KEY: randomBytes(32).toString('hex'),
    SVC_LOG_LEVEL: 'silent',
    SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
    SVC_WEBHOOK_CA_FILE: c.certFile,
    SVC_WEBHOOK_TIMEOUT: '2s',
    SVC_WEBHOOK_POLL: '100ms',
    ...env
  }
  const config = loadConfig({}, base, 2)
  const ctx = await createContext(config, { db: tdb.db })
  const workspaceId = (await ctx.services.workspaces.create('webhooks test')).id
  const made: Array<ReturnType<typeof createWebhookDispatcher>> = []
  return {
    tdb,
    home,
    config,
    ctx,
    cert: c,
    workspaceId,
    dispatcher (deps = {}, extra = {}) {
      const cfg = Object.keys(extra).length === 0 ? config : loadConfig({}, { ...base, ...extra }, 2)
      const d = createWebhookDispatcher(cfg, { db: tdb.db, box: ctx.box, repos: ctx.repos, outbox: ctx.services.outbox, logger: pino({ level: 'silent' }), ...deps })
      made.push(d)
      return d
    },
    async close () {
      for (const d of made) await d.close().catch(() => {})
      await tdb.drop()
      await rm(home, { recursive: true, force: true })
      if (cert === undefined) await rm(c.dir, { recursive: true, force: true })
    }
  }
}
