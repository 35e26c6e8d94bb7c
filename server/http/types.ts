import type { FastifyReply } from 'fastify'
import type { AuthContext } from '../services/api-keys.js'
import type { ParsedKey, Scope } from '../auth/api-key-format.js'
import type { ApiKeyRow } from '../store/repos/api-keys.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route that declares `config.scope`. */
    auth: AuthContext
    /** The key's parsed form and secret digest, on routes with `config.deferAuth` (checked in full by completeAuth). */
    apiKey: (ParsedKey & { secretHash: Buffer }) | null
    /** Deferred auth: verifies the key's row read by the route, then rate limit, workspace, scope. */
    completeAuth: (reply: FastifyReply, row: ApiKeyRow | undefined) => Promise<void>
  }
  interface FastifyContextConfig {
    /** The scope a route needs (spec Part 5); routes without it need no key. */
    scope?: Scope
    /** The route reads the key's row itself, in its first query (see plugins/auth.ts). */
    deferAuth?: boolean
  }
}
