// The stack's floor (issue 15): what the parts svc is built from cost per sync invoice, with none
// of svc's own request logic. A child process serves POST /api/v1/render over HTTPS (Fastify, the
// server's TLS pair, a body schema) and per request does what cannot be left out: it reads the
// key's row (one statement on the service database, as the real path must for revocation to be
// immediate), reads the invoice's two datasets through svc's data-source code, renders in the
// render pool and answers the bytes. No key check, rate limit, template lookup (held from start),
// run history, log line, metrics, problems or output spool.
//
// `make bench` measures it beside the service and the raw engine in every run (part "floor"): its
// CPU per request ÷ the raw engine's CPU per render is what "server CPU ÷ raw" comes to on this
// machine before svc adds anything, and its req/s ÷ raw the same for "service ÷ raw throughput".
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../server/config.js'
import { createContext } from '../server/context.js'
import { renderLimits } from '../server/render/pipeline.js'
import { bearer, parseToken } from '../server/auth/keys.js'
import { loadTls } from '../server/process/tls.js'
import { createRenderPool } from '../pool/render-pool.js'
import { startChildServer, type ChildServer } from './child-server.js'

const SERVE = '--serve-stack-floor'

async function serve (workspaceId: string, templateCode: string): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const config = loadConfig(process.env)
  const ctx = await createContext(config)
  const t = await ctx.resolver.resolve(workspaceId, templateCode)
  const env = await ctx.repos.environments.get(workspaceId, 'production')
  if (env === undefined) throw new Error('no production environment: run svc demo')
  const { threads, maxQueue, workspaceRunning, workspaceQueue, timeoutMs } = config.render
  const pool = createRenderPool({ threads, maxQueue, workspaceRunning, workspaceQueue, timeoutMs })
  const limits = renderLimits(config.render)
  const tls = await loadTls(config)
  const app = Fastify({ https: { key: tls.key, cert: tls.cert }, logger: false })
  const body = {
    type: 'object',
    required: ['template'],
    properties: { template: { type: 'string' }, parameters: { type: 'object' } }
  } as const
  app.post<{ Body: { template: string, parameters?: Record<string, unknown> } }>('/api/v1/render',
    { schema: { body } }, async (req, reply) => {
      const key = parseToken(bearer(req.headers.authorization))
      if (await ctx.repos.apiKeys.get(key.keyId) === undefined) throw new Error('unknown key')
      const parameters = req.body.parameters ?? {}
      const { datasets } = await ctx.dataSources.readAll(env, t.definition, parameters, {}, limits.maxRows)
      const r = await pool.render(
        { versionKey: t.versionKey, definition: t.definitionJson, parameters, context: {}, datasets, limits },
        { lane: 'interactive', workspaceId }
      )
      if (!r.ok) throw new Error(r.message)
      void reply.header('content-type', 'application/pdf').header('x-page-count', String(r.pageCount))
      return r.bytes
    })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  process.stdout.write(`${address}\n`)
}

/**
 * The settings and Node flags bin/svc starts the server with (its first line), so both run alike;
 * all but --heap-growing-percent. That one trades CPU for RSS on the server's heap; on the floor's
 * small heap it made full collections so frequent that they cost 0.5-0.8 ms per request more (lab,
 * 16 clients: 3.21-3.22 ms against 2.43-2.71 without it, V8's helper threads 0.36 against 0.11 ms):
 * a floor that pays for a setting it does not need is not a floor.
 */
function serverStart (): { env: Record<string, string>, flags: string[] } {
  const [first = ''] = readFileSync(join(process.cwd(), 'bin', 'svc'), 'utf8').split('\n', 1)
  const words = first.split(/\s+/)
  const env: Record<string, string> = {}
  for (const w of words) {
    const [, name, value] = /^([A-Z_]+)=(.*)$/.exec(w) ?? []
    if (name !== undefined && value !== undefined) env[name] = value
  }
  return { env, flags: words.filter((w) => w.startsWith('--') && !w.startsWith('--heap-growing-percent')) }
}

/** Starts the floor's server (the environment's SVC_* settings, the demo workspace's invoice). */
export async function startStackFloor (workspaceId: string, templateCode: string): Promise<ChildServer> {
  const start = serverStart()
  return await startChildServer(new URL(import.meta.url).pathname, [SERVE, workspaceId, templateCode], start)
}

const [, , mode, workspaceId, templateCode] = process.argv
if (mode === SERVE) {
  if (workspaceId === undefined || templateCode === undefined) {
    throw new Error(`${SERVE}: workspace id and template code expected`)
  }
  await serve(workspaceId, templateCode)
}
