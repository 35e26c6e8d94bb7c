// Hooks the failure throttle (server/auth/failure-throttle.ts) into the app without touching
// the auth plugin: an app-wide onRequest hook runs before every route's own key check, so a
// throttled address is answered 429 before its key is looked up or its body read; every 401
// answer counts as one failure of the client's address.
import type { FastifyInstance } from 'fastify'
import { problem } from '../../errors.js'
import type { FailureThrottle } from '../../auth/failure-throttle.js'

export function authThrottlePlugin (app: FastifyInstance, throttle: FailureThrottle): void {
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.scope === undefined) return
    const wait = throttle.retryAfter(request.ip)
    if (wait > 0) {
      throw problem('RATE_LIMITED', `Too many failed authentications from this address; retry in ${wait} s`,
        { headers: { 'Retry-After': String(wait) } })
    }
  })
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode === 401) throttle.fail(request.ip)
  })
}
