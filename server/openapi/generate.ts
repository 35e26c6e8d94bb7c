// The OpenAPI document from the route schemas, offline: the /api/v1 routes are registered on an
// app of their own that only @fastify/swagger reads (never listened on, nothing validated, no
// handler run), so `svc openapi` needs no database and no network, and the served document is
// the same text (http/routes/openapi.ts).
import Fastify from 'fastify'
import swagger from '@fastify/swagger'
import { problemSchema } from '../errors.js'
import { apiRoutes } from '../http/routes/index.js'
import type { ApiDeps } from '../http/routes/index.js'
import { finishDocument } from './document.js'
import type { OpenApiDocument } from './document.js'

export type { OpenApiDocument } from './document.js'

export async function openapiDocument (serverUrl: string): Promise<OpenApiDocument> {
  const app = Fastify({ logger: false })
  // Only the schemas' text is read: compiling validators and serialisers would be wasted work.
  app.setValidatorCompiler(() => () => true)
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  app.addSchema(problemSchema)
  await app.register(swagger, {
    openapi: { openapi: '3.1.0', info: { title: 'svc', version: '1' } },
    // The problem document keeps a readable name in components.schemas.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => json.$id === 'problem' ? 'Problem' : `def-${i}`
    }
  })
  // The handlers never run here (no request reaches this app), so they get no dependencies.
  const noDeps = {} as ApiDeps
  await app.register(async (api) => { await apiRoutes(api, noDeps) }, { prefix: '/api/v1' })
  await app.ready()
  const raw = app.swagger() as unknown as Record<string, unknown>
  await app.close()
  return finishDocument(raw, serverUrl)
}
