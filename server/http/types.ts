import type { AuthContext } from '../services/api-keys.js'
import type { Scope } from '../auth/api-key-format.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route that declares `config.scope`. */
    auth: AuthContext
  }
  interface FastifyContextConfig {
    /** The scope a route needs (spec Part 5); routes without it need no key. */
    scope?: Scope
  }
}
