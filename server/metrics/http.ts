// HTTP metrics through one Fastify hook: the route template (bounded) and the errorCode of the
// problem a request was answered with (request.errorCode, set where every problem is sent:
// http/plugins/problems.ts). A callback hook: an async one costs a promise per request.
import type { FastifyInstance } from 'fastify'
import type { Metrics } from './metrics.js'

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export function httpMetrics (app: FastifyInstance, metrics: Pick<Metrics, 'observeHttp'>): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label: a scanner must not create a series per path.
    const route = request.routeOptions.url ?? 'unmatched'
    const method = METHODS.has(request.method) ? request.method : 'OTHER'
    // Requests answered before routing (frameworkErrors) have no decorations: '' then.
    const errorCode = (request.errorCode as string | undefined) ?? ''
    metrics.observeHttp(method, route, reply.statusCode, errorCode, reply.elapsedTime / 1000)
    done()
  })
}
