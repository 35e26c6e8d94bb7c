// Builds the Fastify app from a Config and its dependencies; never listens (bin/ does).
import Fastify from 'fastify'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import swagger from '@fastify/swagger'
import type { Logger } from 'pino'
import './http/types.js'
import type { Config } from './config.js'
import type { Context } from './context.js'
import { problem, problemSchema } from './errors.js'
import { correlationIdFor, correlationPlugin } from './http/plugins/correlation.js'
import { problemsPlugin, frameworkErrorHandler } from './http/plugins/problems.js'
import { authPlugin } from './http/plugins/auth.js'
import { lazyRequestLogger, RequestLog } from './http/plugins/request-log.js'
import type { Authenticator } from './auth/authenticate.js'
import { healthRoutes } from './http/routes/health.js'
import { openapiRoute } from './http/routes/openapi.js'
import { apiRoutes } from './http/routes/index.js'
import type { ApiDeps } from './http/routes/index.js'
import { httpMetrics } from './metrics/http.js'
import type { Metrics } from './metrics/metrics.js'
// Hostile input (issue 12): connection/request limits, protocol-error problems, body shapes.
import { limitConnections, fastifyLimits, nodeServerLimits } from './http/server-limits.js'
import { acceptProxyProtocol } from './http/proxy-protocol.js'
import { bodyShapePlugin } from './http/plugins/body-shape.js'
import { contentEncodingPlugin } from './http/plugins/content-encoding.js'
import { connectionReusePlugin } from './http/plugins/connection-reuse.js'
import { requestFormats } from './http/validation/file-name.js'

export interface AppOptions {
  config: Config
  context: Context
  logger: Logger
  https?: { cert: Buffer, key: Buffer }
  /** Authentication of every route that declares a scope (built by the composition root). */
  auth: Authenticator
  /** What the /api/v1 routes call (see routes/index.ts). */
  api: ApiDeps
  /** HTTP metrics (server/metrics); none when absent. */
  metrics?: Pick<Metrics, 'observeHttp'>
  /** Readiness beyond the database (the render pool's saturation); undefined = ready. */
  saturated?: () => string | undefined
  /** Extra /api/v1 routes (tests use it to exercise error paths). */
  extend?: (api: FastifyInstance) => void | Promise<void>
}

/** Turns a route path (`/api/v1/jobs/:jobId`) into a matcher for the 405 check. */
function pathPattern (url: string): RegExp {
  const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')
  return new RegExp(`^${escaped}/?$`)
}

export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const { config, context } = options
  const fastifyOptions: FastifyServerOptions & { https?: { cert: Buffer, key: Buffer } } = {
    loggerInstance: options.logger,
    genReqId: correlationIdFor,
    // One line per request (plugins/request-log.ts).
    logController: new RequestLog(options.logger),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: config.bodyLimitBytes,
    frameworkErrors: frameworkErrorHandler,
    // Requests that still arrive while closing get a problem document (below), not Fastify's plain 503.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ajv: {
      customOptions: {
        allErrors: true,
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: true,
        formats: requestFormats
      }
    },
    routerOptions: { ignoreTrailingSlash: true },
    ...fastifyLimits(config)
  }
  if (options.https !== undefined) fastifyOptions.https = { ...options.https, ...nodeServerLimits(config) }
  const app = Fastify(fastifyOptions) as unknown as FastifyInstance
  limitConnections(app.server, config)
  acceptProxyProtocol(app.server, new Set(config.http.proxyProtocolFrom), config.http.headersTimeoutMs)

  const routes: Array<{ method: string, pattern: RegExp }> = []
  app.addHook('onRoute', (route) => {
    for (const method of ([] as string[]).concat(route.method)) routes.push({ method, pattern: pathPattern(route.url) })
  })
  app.addSchema(problemSchema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc render API',
        version: '1.0.0',
        description: 'Renders published templates into PDF and ZPL (see docs/api.md).'
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }]
    }
  })

  correlationPlugin(app)
  connectionReusePlugin(app, config.http.maxRequestsPerSocket)
  if (options.metrics !== undefined) httpMetrics(app, options.metrics)
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) { done(); return }
    reply.header('Connection', 'close')
    done(problem('SERVICE_UNAVAILABLE', 'The server is shutting down; retry', { headers: { 'Retry-After': '1' } }))
  })
  problemsPlugin(app, () => routes)
  bodyShapePlugin(app)
  contentEncodingPlugin(app)
  authPlugin(app, { auth: options.auth })

  healthRoutes(app, { db: context.db, saturated: options.saturated })
  openapiRoute(app)
  await app.register(async (api) => { await apiRoutes(api, options.api); await options.extend?.(api) }, { prefix: '/api/v1' })
  return app
}
