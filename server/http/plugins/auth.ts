// When authentication runs (what it checks is server/auth/authenticate.ts): attached at
// registration to every route that declares `config.scope`, in onRequest, before the body is read.
//
// Routes with `config.deferAuth` (POST /v1/render, the hot path) read the key's row in the same
// query as their first read: onRequest checks only the key's form (missing or malformed → 401
// before the body is read), and the route calls request.authenticateForRender(reply, target).
// A body announced larger than 16 KiB, or chunked, is read only after the key was checked in
// full in onRequest (auth.beforeBody, issue 12); authenticateForRender then does not check it again.
// The order of answers stays the spec's: an error raised before the route's handler (body
// unparsable, too large, invalid) is answered only after the key has been checked in full, so a
// bad key is still a 401 whatever the body.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { Resolution } from '../../render/resolution.js'
import type { Authenticator, AuthHooks, RenderTarget } from '../../auth/authenticate.js'
import type { AuthContext } from '../../auth/keys.js'

function hooksFor (request: FastifyRequest, reply: FastifyReply): AuthHooks {
  return {
    identified (auth) {
      request.auth = auth
      request.log = request.log.child({ keyPrefix: auth.prefix })
      reply.log = request.log
    },
    header (name, value) { reply.header(name, value) }
  }
}

export function authPlugin (app: FastifyInstance, deps: { auth: Authenticator<Resolution> }): void {
  app.decorateRequest('auth', null as unknown as FastifyRequest['auth'])
  app.decorateRequest('apiKey', null)

  app.decorateRequest('authenticateForRender', async function (this: FastifyRequest, reply: FastifyReply,
    target: RenderTarget) {
    const scope = this.routeOptions.config.scope
    const key = this.apiKey
    if (key === null || scope === undefined) throw new Error('authenticateForRender on a route without deferred auth')
    this.apiKey = null // checked now: the error handler must not check it again
    // request.auth is set only once the key's own check passed (AuthHooks.identified): early, in full.
    // request.auth is decorated null until the key is checked; its type omits null
    const early = (this.auth as AuthContext | null) ?? undefined
    return await deps.auth.authenticateForRender(this, { scope }, target, key, hooksFor(this, reply), early)
  })

  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope
    if (scope === undefined) return
    const existing =
      route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    if (route.config?.deferAuth !== true) {
      // onRequest runs before the body is parsed: a bad key is answered without reading a large body.
      const authenticate: onRequestAsyncHookHandler = async function authenticate (request, reply) {
        await deps.auth.authenticate(request, { scope }, hooksFor(request, reply))
      }
      route.onRequest = [...existing, authenticate]
      return
    }
    const checkKeyForm: onRequestAsyncHookHandler = async function checkKeyForm (request, reply) {
      request.apiKey = (await deps.auth.beforeBody(request, { scope }, hooksFor(request, reply))).key
    }
    route.onRequest = [...existing, checkKeyForm]
    // Errors before the handler (body, validation) fall through to here with the key unchecked:
    // check it first, so its problem (401/429/403) wins. Throwing hands over to the app's handler.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- fastify awaits an async error handler
    route.errorHandler = async function deferredAuthFirst (error, request, reply) {
      const key = request.apiKey
      // request.auth is decorated null until the key is checked; its type omits null
      if ((request.auth as AuthContext | null) === null && key !== null) {
        request.apiKey = null
        await deps.auth.authenticate(request, { scope }, hooksFor(request, reply), key)
      }
      throw error
    }
  })
}
