import type { FastifyReply, FastifyTypeProvider } from 'fastify'
import type { FromRouteSchema } from './schema-types.js'
import type { AuthContext, PresentedKey } from '../auth/keys.js'
import type { Authenticator, RenderTarget } from '../auth/authenticate.js'
import type { Resolution } from '../render/resolution.js'
import type { Scope } from '../util/api-key-format.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route that declares `config.scope`. */
    auth: AuthContext
    /** The key's parsed form and secret digest, on routes with `config.deferAuth` until it is checked in full. */
    apiKey: PresentedKey | null
    /** The errorCode of the problem this request was answered with ('' when none; plugins/problems.ts). */
    errorCode: string
    /** Deferred auth: the key's row read with the render's template and environment, then every check. */
    authenticateForRender: (reply: FastifyReply, target: RenderTarget)
    => ReturnType<Authenticator<Resolution>['authenticateForRender']>
  }
  interface FastifyContextConfig {
    /** The scope a route needs (spec Part 5); routes without it need no key. */
    scope?: Scope
    /** The route reads the key's row itself, in its first query (see plugins/auth.ts). */
    deferAuth?: boolean
  }
}

/**
 * Request types (body, params, querystring, headers) derived from each route's JSON schema, so
 * the schema that validates a request is the one source of its type. Answers stay as the
 * modules type them (the response schemas serialise them); `api.withTypeProvider<SchemaTypes>()`.
 */
export interface SchemaTypes extends FastifyTypeProvider {
  validator: FromRouteSchema<this['schema']>
  serializer: unknown
}
