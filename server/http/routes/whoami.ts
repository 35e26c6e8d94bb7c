// GET /v1/whoami: which key and workspace a request authenticates as. Not in the spec's list;
// a small diagnostic that admins and client authors expect (like Stripe's account endpoint).
// Any valid key may call it: it needs the `render` scope only because every key in practice
// has one of the spec's scopes and this one reveals nothing beyond the key itself.
import type { FastifyInstance } from 'fastify'

const schema = {
  operationId: 'whoami',
  tags: ['keys'],
  summary: 'Describe the calling API key',
  description: 'Which key and workspace a request authenticates as, with the key\'s scopes and default ' +
    'environment: a diagnostic for setting up a caller. Not in the spec\'s list of endpoints.',
  response: {
    200: {
      description: 'The calling key',
      type: 'object',
      required: ['keyId', 'prefix', 'name', 'mode', 'scopes', 'workspaceId', 'defaultEnvironment'],
      properties: {
        keyId: { type: 'string' },
        prefix: { type: 'string' },
        name: { type: 'string' },
        mode: { type: 'string', enum: ['live', 'test'] },
        scopes: { type: 'array', items: { type: 'string' } },
        workspaceId: { type: 'string' },
        defaultEnvironment: { type: 'string' }
      }
    },
    '4xx': { $ref: 'problem#' }
  }
} as const

export function whoamiRoute (api: FastifyInstance): void {
  api.get('/whoami', { schema, config: { scope: 'render' } }, async (request) => ({ ...request.auth, scopes: [...request.auth.scopes] }))
}
