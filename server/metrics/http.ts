// HTTP metrics through Fastify hooks only: the route template (bounded) and the problem's
// errorCode (read from the problem body, which is small) of every answer.
import type { FastifyInstance } from 'fastify'
import type { Metrics } from './metrics.js'

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
const CODE = /"errorCode":"([A-Z_]{1,40})"/

export function httpMetrics (app: FastifyInstance, metrics: Pick<Metrics, 'observeHttp'>): void {
  const codes = new WeakMap<object, string>()
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload === 'string' && String(reply.getHeader('content-type') ?? '').startsWith('application/problem+json')) {
      codes.set(request, CODE.exec(payload)?.[1] ?? '')
    }
    return payload
  })
  app.addHook('onResponse', async (request, reply) => {
    // Unmatched URLs share one label: a scanner must not create a series per path.
    const route = request.routeOptions.url ?? 'unmatched'
    const method = METHODS.has(request.method) ? request.method : 'OTHER'
    metrics.observeHttp(method, route, reply.statusCode, codes.get(request) ?? '', reply.elapsedTime / 1000)
  })
}
