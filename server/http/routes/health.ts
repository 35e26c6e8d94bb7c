// Liveness and readiness for load balancers; no key needed.
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../store/db.js'
import { problem } from '../../errors.js'

const statusSchema = { type: 'object', required: ['status'], properties: { status: { type: 'string' } } } as const

export function healthRoutes (app: FastifyInstance, deps: { db: Db, saturated?: () => string | undefined }): void {
  app.get('/healthz', { schema: { hide: true, response: { 200: statusSchema } } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true, response: { 200: statusSchema, 503: { $ref: 'problem#' } } } }, async () => {
    try {
      await deps.db.query({ sql: 'SELECT 1', timeout: 2000 })
    } catch {
      throw problem('SERVICE_UNAVAILABLE', 'The database is not reachable', { headers: { 'Retry-After': '5' } })
    }
    // A saturated pool answers sync renders RENDER_BUSY: a balancer should prefer other nodes.
    const saturated = deps.saturated?.()
    if (saturated !== undefined) throw problem('SERVICE_UNAVAILABLE', `Not ready: ${saturated}`, { headers: { 'Retry-After': '1' } })
    return { status: 'ready' }
  })
}
