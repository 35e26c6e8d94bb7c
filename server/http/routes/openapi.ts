// GET /api/v1/openapi.json (no key): the OpenAPI document. It is generated from the same route
// schemas that validate requests and serialise answers (server/openapi/, a floor above http/,
// so it is handed in here rather than imported), once per process.
import type { FastifyInstance } from 'fastify'

/** Builds the document for the address this server is bound to (the URL it names as its server). */
export type OpenApiProvider = (bound: unknown) => Promise<object>

export function openapiRoute (app: FastifyInstance, build: OpenApiProvider): void {
  let document: Promise<object> | undefined
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => {
    // Built on first use (the bound port is known by then); a failure is not kept.
    document ??= build(app.server.address())
      .catch((err: unknown) => { document = undefined; throw err })
    return await document
  })
}
