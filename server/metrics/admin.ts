// The admin listener: GET /metrics (Prometheus text) and /healthz on plain HTTP, apart from the
// API (SVC_ADMIN_HOST/SVC_ADMIN_PORT, loopback by default: metrics are for the operator's
// scraper, not for callers, and need no key).
import Fastify from 'fastify'
import type { FastifyInstance } from 'fastify'
import type { Metrics } from './metrics.js'

export function buildAdminApp (metrics: Pick<Metrics, 'registry'>): FastifyInstance {
  const app = Fastify({ logger: false })
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType)
    return await metrics.registry.metrics()
  })
  app.get('/healthz', async () => ({ status: 'ok' }))
  return app
}
