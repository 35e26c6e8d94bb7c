// Authentication per spec Part 5, attached at registration to every route that declares
// `config.scope`: key (401) → rate limit (429) → Svc-Workspace (403) → scope (403).
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import { problem } from '../../errors.js'
import type { ApiKeysService } from '../../services/api-keys.js'
import type { LastUsedRecorder } from '../../services/last-used.js'
import type { TokenBuckets } from './rate-limit.js'
import type { Scope } from '../../auth/api-key-format.js'

function bearer (request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  // A header that is present but not a bearer token is a malformed key, not a missing one.
  return match === null ? '' : match[1]
}

export function authPlugin (app: FastifyInstance, deps: { apiKeys: ApiKeysService, lastUsed: LastUsedRecorder, buckets: TokenBuckets }): void {
  app.decorateRequest('auth', null as unknown as FastifyRequest['auth'])

  function guard (scope: Scope): preHandlerAsyncHookHandler {
    return async function authenticate (request, reply) {
      const auth = await deps.apiKeys.authenticate(bearer(request))
      request.auth = auth
      request.log = request.log.child({ keyPrefix: auth.prefix })
      reply.log = request.log
      const rate = deps.buckets.take(auth.keyId)
      reply.header('RateLimit-Remaining', rate.remaining)
      if (!rate.allowed) {
        throw problem('RATE_LIMITED', `Too many requests for this key; retry in ${rate.retryAfterSeconds} s`,
          { headers: { 'Retry-After': String(rate.retryAfterSeconds) } })
      }
      deps.lastUsed.record(auth.keyId)
      const workspace = request.headers['svc-workspace']
      if (workspace !== undefined && workspace !== auth.workspaceId) {
        throw problem('WORKSPACE_MISMATCH', 'Svc-Workspace names another workspace than the key\'s')
      }
      if (!auth.scopes.has(scope)) throw problem('SCOPE_MISSING', `This endpoint needs the scope "${scope}"`)
    }
  }

  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope
    if (scope === undefined) return
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    // onRequest runs before the body is parsed: a bad key is answered without reading a large body.
    route.onRequest = [...existing, guard(scope) as unknown as onRequestHookHandler]
  })
}
