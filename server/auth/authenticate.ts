// Authentication of an API request (spec Part 5), in the spec's order: key (401) → rate limit
// (429) → Svc-Workspace (403) → scope (403). The one entry for every route that declares a
// scope; the HTTP plugin (http/plugins/auth.ts) only decides when it runs.
//
// The sync render's first read brings the key's row together with the template and environment
// (one statement instead of two per render): authenticateForRender. The checks are the same.
import { problem } from '../errors.js'
import { defaultEnvironment } from './api-key-format.js'
import type { Scope } from './api-key-format.js'
import { bearer, parseToken, verifyKey } from './keys.js'
import type { AuthContext, PresentedKey } from './keys.js'
import type { LastUsedRecorder } from './last-used.js'
import type { ApiKeysRepo, ApiKeyRow } from '../store/repos/api-keys.js'
import type { TemplatesService } from '../services/templates.js'

export interface RateDecision {
  allowed: boolean
  /** An estimate of what is left of the key's limit (this node's view). */
  remaining: number
  /** Whole seconds until a request of this key can succeed; 0 when allowed. */
  retryAfterSeconds: number
  /** The key's limit per 60 s. */
  limit: number
  /** Refused because the limit could not be checked (database unreachable: fail closed, 503). */
  unavailable?: boolean
}

/** The key as admission sees it: its id and its own limit (null = SVC_RATE_LIMIT). */
export interface AdmitKey { keyId: string, rateLimit: number | null }

/** Rate-limit admission of one request of a key (auth/rate-limiter.ts: one window across every node). */
export interface Admission { admit: (key: AdmitKey) => Promise<RateDecision> }

/** What authentication reads of a request. */
export interface AuthRequest { headers: { authorization?: string, 'svc-workspace'?: string | string[] } }

/** What it tells the caller on the way: the key once identified (for logs) and response headers. */
export interface AuthHooks {
  identified?: (auth: AuthContext) => void
  header?: (name: string, value: string | number) => void
}

/** The template lookup that rides along with the render's key read. */
export interface RenderTarget { template: string, version?: number, environment?: string }
type Found = Awaited<ReturnType<TemplatesService['resolveForKey']>>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface AuthDeps {
  keys: Pick<ApiKeysRepo, 'get'>
  templates: Pick<TemplatesService, 'resolveForKey'>
  admission: Admission
  lastUsed: Pick<LastUsedRecorder, 'record'>
}
type Route = { scope: Scope }

export function authenticator (deps: AuthDeps) {
  /** Everything after the key's row was read; throws the first refusal. */
  async function check (key: PresentedKey, row: ApiKeyRow | undefined, request: AuthRequest, route: Route,
    hooks: AuthHooks): Promise<AuthContext> {
    const auth = verifyKey(key, row)
    hooks.identified?.(auth)
    const rate = await deps.admission.admit(auth)
    if (rate.unavailable === true) {
      throw problem('SERVICE_UNAVAILABLE', 'The rate limit cannot be checked (database unreachable); retry',
        { headers: { 'Retry-After': String(rate.retryAfterSeconds) } })
    }
    // IETF draft-ietf-httpapi-ratelimit-headers: the policy (limit per 60 s) and what is left.
    hooks.header?.('RateLimit-Policy', `"default";q=${rate.limit};w=60`)
    const wait = rate.allowed ? '' : `;t=${rate.retryAfterSeconds}`
    hooks.header?.('RateLimit', `"default";r=${rate.remaining}${wait}`)
    hooks.header?.('RateLimit-Remaining', rate.remaining)
    if (!rate.allowed) {
      throw problem('RATE_LIMITED', `Too many requests for this key; retry in ${rate.retryAfterSeconds} s`,
        { headers: { 'Retry-After': String(rate.retryAfterSeconds) } })
    }
    const workspace = request.headers['svc-workspace']
    // UUIDs compare canonically: the key's own workspace id in upper case is the same workspace.
    const same = typeof workspace === 'string' && UUID.test(workspace) && workspace.toLowerCase() === auth.workspaceId.toLowerCase()
    if (workspace !== undefined && !same) {
      throw problem('WORKSPACE_MISMATCH', 'Svc-Workspace names another workspace than the key\'s')
    }
    if (!auth.scopes.has(route.scope)) throw problem('SCOPE_MISSING', `This endpoint needs the scope "${route.scope}"`)
    // Only a request the key was allowed to make counts as its use (docs/api.md).
    deps.lastUsed.record(auth.keyId)
    return auth
  }

  return {
    /** The key's form (no query): 401 for a missing or malformed key, before the body is read. */
    presented (request: AuthRequest): PresentedKey {
      return parseToken(bearer(request.headers.authorization))
    },

    /** The whole check: the key's row by primary key, then rate limit, workspace, scope. */
    async authenticate (request: AuthRequest, route: Route, hooks: AuthHooks = {}, key?: PresentedKey): Promise<AuthContext> {
      const presented = key ?? parseToken(bearer(request.headers.authorization))
      return await check(presented, await deps.keys.get(presented.keyId), request, route, hooks)
    },

    /**
     * authenticate() for POST /v1/render: the same checks, with the template and environment read
     * in the key's query (only for a usable key; see templates.resolveForKey). `found` answers
     * the template's problems in the spec's order, after the key's.
     */
    async authenticateForRender (request: AuthRequest, route: Route, target: RenderTarget, key: PresentedKey,
      hooks: AuthHooks = {}): Promise<{ auth: AuthContext, found: Found['resolve'] }> {
      const envKey = target.environment ?? defaultEnvironment(key.mode)
      const read = await deps.templates.resolveForKey(key, target.template, target.version, envKey)
      return { auth: await check(key, read.key, request, route, hooks), found: read.resolve }
    }
  }
}
export type Authenticator = ReturnType<typeof authenticator>
