// Authentication per spec Part 5, attached at registration to every route that declares
// `config.scope`: key (401) → rate limit (429) → Svc-Workspace (403) → scope (403).
//
// Routes with `config.deferAuth` (POST /v1/render, the hot path) read the key's row in the same
// query as their own first read: onRequest checks only the key's form (missing or malformed →
// 401 before the body is read), and the route calls request.completeAuth(reply, row) with the
// row. The order of answers stays the spec's: an error raised before the route's handler (body
// unparsable, too large, invalid) is answered only after the key has been checked in full, so
// a bad key is still a 401 whatever the body.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import { problem } from '../../errors.js'
import { parseToken, verifyKey } from '../../services/api-keys.js'
import { sha256 } from '../../util/crypto.js'
import type { ApiKeysService, AuthContext } from '../../services/api-keys.js'
import type { LastUsedRecorder } from '../../services/last-used.js'
import type { ApiKeyRow } from '../../store/repos/api-keys.js'
import type { TokenBuckets } from './rate-limit.js'
import type { Scope } from '../../auth/api-key-format.js'
import { announcesLargeBody } from '../../auth/early-check.js'

function bearer (request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  // A header that is present but not a bearer token is a malformed key, not a missing one.
  return match === null ? '' : match[1]
}

export function authPlugin (app: FastifyInstance, deps: { apiKeys: ApiKeysService, lastUsed: LastUsedRecorder, buckets: TokenBuckets }): void {
  app.decorateRequest('auth', null as unknown as FastifyRequest['auth'])
  app.decorateRequest('apiKey', null)

  /** Everything after the key itself: rate limit, workspace header, scope. */
  function admit (request: FastifyRequest, reply: FastifyReply, auth: AuthContext, scope: Scope): void {
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

  function guard (scope: Scope): preHandlerAsyncHookHandler {
    return async function authenticate (request, reply) {
      admit(request, reply, await deps.apiKeys.authenticate(bearer(request)), scope)
    }
  }

  function formOnly (scope: Scope): preHandlerAsyncHookHandler {
    return async function checkKeyForm (request, reply) {
      const parsed = parseToken(bearer(request))
      // Digested once: the route's query and verifyKey both use it.
      const key = { ...parsed, secretHash: sha256(parsed.secret) }
      // Issue 12: a large or chunked body is read only for a key that exists (auth/early-check.ts).
      if (announcesLargeBody(request)) admit(request, reply, await deps.apiKeys.authenticate(bearer(request)), scope)
      request.apiKey = key
    }
  }

  app.decorateRequest('completeAuth', function (this: FastifyRequest, reply: FastifyReply, row: ApiKeyRow | undefined): void {
    const scope = this.routeOptions.config.scope
    const parsed = this.apiKey
    if (parsed === null || scope === undefined) throw new Error('completeAuth on a route without deferred auth')
    this.apiKey = null // checked now: the error handler must not check it again
    if (this.auth !== null) return // checked in full before the body (issue 12, auth/early-check.ts)
    admit(this, reply, verifyKey(parsed, row, parsed.secretHash), scope)
  })

  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope
    if (scope === undefined) return
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    if (route.config?.deferAuth !== true) {
      // onRequest runs before the body is parsed: a bad key is answered without reading a large body.
      route.onRequest = [...existing, guard(scope) as unknown as onRequestHookHandler]
      return
    }
    route.onRequest = [...existing, formOnly(scope) as unknown as onRequestHookHandler]
    const fullCheck = guard(scope)
    // Errors before the handler (body, validation) fall through to here with the key unchecked:
    // check it first, so its problem (401/429/403) wins. Throwing hands over to the app's handler.
    route.errorHandler = async function deferredAuthFirst (error, request, reply) {
      if (request.auth === null && request.apiKey !== null) await fullCheck.call(this, request, reply)
      throw error
    }
  })
}
