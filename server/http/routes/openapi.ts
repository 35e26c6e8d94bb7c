// GET /api/v1/openapi.json (no key): the OpenAPI document, generated from the same route schemas
// that validate requests and serialise answers (http/openapi/), once per process, with this
// service's URL as its server (the public URL, else the address it listens on).
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.js'
import { openapiDocument } from '../openapi/generate.js'
import type { OpenApiDocument } from '../openapi/generate.js'

/** The URL clients reach this service at: SVC_PUBLIC_URL, else the bound address (as server/main.ts). */
export function serviceUrl (config: Pick<Config, 'publicUrl' | 'host' | 'port'>, bound: unknown): string {
  if (config.publicUrl !== undefined) return config.publicUrl
  const port = typeof bound === 'object' && bound !== null && 'port' in bound ? Number(bound.port) : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  return `https://${host}:${port}`
}

export function openapiRoute (app: FastifyInstance, config: Pick<Config, 'publicUrl' | 'host' | 'port'>): void {
  let document: Promise<OpenApiDocument> | undefined
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => {
    // Built on first use (the bound port is known by then); a failure is not kept.
    document ??= openapiDocument(serviceUrl(config, app.server.address()))
      .catch((err: unknown) => { document = undefined; throw err })
    return await document
  })
}
