// The `svc studio` process's HTTP server. Node's own http module, not Fastify: one local user,
// six routes, and a guard that must run before any routing or body parsing (security.ts); the
// API's Fastify app (server/app.ts) is not reachable from here by the import rules, and a second
// Fastify setup would be a second mechanism to keep in step, not one shared with the server.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RenderPool } from '../../pool/render-pool.js'
import type { Config } from '../../server/config.js'
import type { Context } from '../../server/context.js'
import { isProblem, problem } from '../../server/errors.js'
import type { PublishRequest, RenderRequest } from '../contract.js'
import { NO_BUNDLE_HTML, readAsset, WEB_DIR } from './assets.js'
import { renderStudio, type PreviewHelpers } from './render.js'
import { createGuard, isLoopbackHost, newToken } from './security.js'
import { send, sendBareNotFound, sendJson, sendProblem } from './respond.js'
import { openSession, saveText, sessionBody, type StudioOptions } from './session.js'
import { validateText } from './validate.js'

/** A template is at most a few MB (MAX_TEMPLATE_BYTES); rows sent by the page may be more. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024

export interface StudioDeps {
  config: Pick<Config, 'render'>
  pool: RenderPool
  /** Open when the studio has a workspace (--workspace): datasets, environments, publish. */
  context: Context | null
  helpers: PreviewHelpers
  /** Errors that are not problems (bugs): the CLI prints them. */
  onError: (err: unknown) => void
}

export interface StudioListenOptions extends StudioOptions {
  host: string
  port: number
  allowRemote: boolean
}

export interface Studio {
  url: string
  close: () => Promise<void>
}

async function readBody (req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? ''
  if (!/^application\/json\b/i.test(type)) throw problem('UNSUPPORTED_MEDIA_TYPE', 'send application/json')
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > MAX_BODY_BYTES) throw problem('PAYLOAD_TOO_LARGE', `at most ${MAX_BODY_BYTES} bytes`)
      chunks.push(chunk)
    }
  } catch (err) {
    // A client that goes away mid-body (the page aborted) is not the studio's error to print.
    throw isProblem(err) ? err : problem('BAD_REQUEST', 'the request body was not received whole')
  }
  let value: unknown
  try { value = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch {
    throw problem('VALIDATION_FAILED', 'body: not valid JSON')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw problem('VALIDATION_FAILED', 'body: expected a JSON object')
  return value as Record<string, unknown>
}

function requireText (body: Record<string, unknown>): string {
  if (typeof body.templateText !== 'string') {
    throw problem('VALIDATION_FAILED', 'templateText: required, a string', { errors: { templateText: ['is required'] } })
  }
  return body.templateText
}

function objectField (body: Record<string, unknown>, name: string): Record<string, unknown> {
  const v = body[name] ?? {}
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw problem('VALIDATION_FAILED', `${name}: expected an object`, { errors: { [name]: ['must be an object'] } })
  }
  return v as Record<string, unknown>
}

export async function startStudio (options: StudioListenOptions, deps: StudioDeps): Promise<Studio> {
  if (!isLoopbackHost(options.host) && !options.allowRemote) {
    throw problem('VALIDATION_FAILED', `--host ${options.host}: not a loopback address; the studio can publish ` +
      'to the workspace, so it listens on 127.0.0.1 or ::1 unless --allow-remote is given')
  }
  const state = await openSession(options, deps.context)
  const token = newToken()
  let port = 0
  // A remote listener (--allow-remote) is reached by its own name too.
  const extra = isLoopbackHost(options.host) ? [] : [options.host.includes(':') ? `[${options.host}]` : options.host]
  const guard = createGuard(token, () => port, extra)
  const workspaceId = options.workspace ?? null

  async function api (route: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && route === '/api/session') { sendJson(res, sessionBody(state)); return }
    if (req.method !== 'POST') throw problem(route.startsWith('/api/') ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND', `${req.method ?? ''} ${route}`)
    const body = await readBody(req)
    switch (route) {
      case '/api/validate': {
        const v = validateText(requireText(body))
        sendJson(res, { ok: v.ok, errors: v.errors, warnings: v.warnings })
        return
      }
      case '/api/render': {
        // The page aborts a stale render: the connection closes before we answer, and the pool
        // stops the render (its worker is replaced), so no thread keeps working for nobody.
        const aborted = new AbortController()
        res.on('close', () => { if (!res.writableFinished) aborted.abort() })
        const request: RenderRequest = {
          templateText: requireText(body),
          data: objectField(body, 'data') as unknown as RenderRequest['data'],
          parameters: objectField(body, 'parameters'),
          context: objectField(body, 'context'),
          ...(body.dpi === undefined ? {} : { dpi: body.dpi as number })
        }
        const result = await renderStudio({
          pool: deps.pool,
          config: deps.config,
          helpers: deps.helpers,
          fileRows: () => state.rows,
          context: () => deps.context,
          workspaceId
        }, request, aborted.signal)
        if (!aborted.signal.aborted) sendJson(res, result)
        return
      }
      case '/api/save': {
        sendJson(res, await saveText(state, requireText(body)))
        return
      }
      case '/api/publish': {
        const p = body as unknown as PublishRequest
        if (deps.context === null || workspaceId === null) throw problem('VALIDATION_FAILED', 'publish: svc studio was started without --workspace')
        if (p.note !== undefined && typeof p.note !== 'string') throw problem('VALIDATION_FAILED', 'note: a string')
        const r = await deps.context.services.templates.publish(workspaceId, requireText(body), { note: p.note, publishedBy: 'svc studio' })
        sendJson(res, { code: r.code, version: r.version, previousVersion: r.previousVersion })
        return
      }
      default: throw problem('NOT_FOUND', `no route ${route}`)
    }
  }

  async function handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] as string
    const route = guard.strip(path)
    if (route === null) { sendBareNotFound(res); return }
    const host = req.headers.host
    if (!guard.hostAllowed(host)) {
      send(res, 421, 'text/plain; charset=utf-8', 'Misdirected Request')
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD' && !guard.originAllowed(req.headers.origin, host)) {
      send(res, 403, 'text/plain; charset=utf-8', 'Forbidden')
      return
    }
    try {
      if (route.startsWith('/api/')) { await api(route, req, res); return }
      if (req.method !== 'GET') throw problem('METHOD_NOT_ALLOWED', `${req.method ?? ''} ${route}`)
      const file = route === '/' ? 'index.html' : route.startsWith('/assets/') ? route.slice('/assets/'.length) : null
      const asset = file === null ? null : await readAsset(WEB_DIR, file)
      if (asset !== null) { send(res, 200, asset.type, asset.body); return }
      if (route === '/') { send(res, 200, 'text/html; charset=utf-8', NO_BUNDLE_HTML); return }
      throw problem('NOT_FOUND', `no such file ${route}`)
    } catch (err) {
      if (!isProblem(err)) deps.onError(err)
      sendProblem(res, err)
    }
  }

  const server = createServer((req, res) => { void handle(req, res) })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => { server.off('error', reject); resolve() })
  })
  port = (server.address() as AddressInfo).port
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    url: `http://${shown}:${port}/${token}/`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
    }
  }
}
