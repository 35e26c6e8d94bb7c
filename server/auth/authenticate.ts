// Authentication of an API request (spec Part 5), in the spec's order: key (401) → rate limit
// (429) → Svc-Workspace (403) → scope (403). The one entry for every route that declares a
// scope; the HTTP plugin (http/plugins/auth.ts) only decides when it runs.
//
// The sync render's first read brings the key's row together with the template and environment
// (one statement instead of two per render): authenticateForRender. The checks are the same.
// Before that, beforeBody checks the key's form, or the whole key when the body announces itself
// as large or chunked (auth/early-check.ts); a request checked there is not checked again.
//
// Failed authentications (auth/failure-throttle.ts) never stop a working key: a key refused
// before (unknown id, wrong secret, revoked, expired) is answered from memory without a read, and
// every failure counts against its address and key id, a failure past their budget being
// answered 429 instead of 401. A request that fails is never more than one key read.
import { Problem, problem } from '../errors.js'
import { defaultEnvironment, parseApiKey } from '../util/api-key-format.js'
import type { Scope } from '../util/api-key-format.js'
import { bearer, parseToken, verifyKey } from './keys.js'
import type { AuthContext, PresentedKey } from './keys.js'
import type { LastUsedRecorder } from './last-used.js'
import { announcesLargeBody } from './early-check.js'
import type { BodyHeaders } from './early-check.js'
import type { FailureThrottle } from './failure-throttle.js'
import type { ApiKeysRepo, ApiKeyRow } from '../store/repos/api-keys.js'

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
  /** The key has no limit (SVC_RATE_LIMIT=0 and none of its own): no RateLimit headers. */
  unlimited?: boolean
}

/** The key as admission sees it: its id and its own limit (null = SVC_RATE_LIMIT). */
export interface AdmitKey { keyId: string, rateLimit: number | null }

/** Rate-limit admission of one request of a key (auth/rate-limiter.ts: one window across every node). */
export interface Admission { admit: (key: AdmitKey) => Promise<RateDecision> }

/** What authentication reads of a request: its headers and the client's address (for the throttle). */
export interface AuthRequest {
  headers: BodyHeaders & { authorization?: string, 'svc-workspace'?: string | string[] }
  ip?: string
}

/** What it tells the caller on the way: the key once identified (for logs) and response headers. */
export interface AuthHooks {
  identified?: (auth: AuthContext) => void
  header?: (name: string, value: string | number) => void
}

/** The template lookup that rides along with the render's key read. */
export interface RenderTarget { template: string, version?: number, environment?: string }

/**
 * The render's first read: the key's row (undefined: no key of that id) and, to call once the key
 * passed its checks, what the render names (its template and environment: opaque to auth/).
 */
export interface KeyRead<T> { key: ApiKeyRow | undefined, resolve: () => Promise<T> }

/**
 * Reads a key's row together with a render's target in one statement (POST /v1/render), plugged
 * in by the composition root (render/resolver.ts), as Admission is. `key`: the presented key.
 */
export interface RenderKeyReader<T> {
  resolveForKey: (key: { keyId: string, mode: string, secretHash: Buffer }, code: string,
    version: number | undefined, envKey: string) => Promise<KeyRead<T>>
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface AuthDeps<T> {
  keys: Pick<ApiKeysRepo, 'get'>
  templates: RenderKeyReader<T>
  admission: Admission
  lastUsed: Pick<LastUsedRecorder, 'record'>
  /** Remembered refusals and failure budgets (per address and key id); none: neither. */
  failures?: FailureThrottle
}
type Route = { scope: Scope }

export interface Authenticator<T> {
  authenticate: (request: AuthRequest, route: Route, hooks?: AuthHooks, key?: PresentedKey) => Promise<AuthContext>
  /**
   * The first check of a route that reads the key's row in its own first query (POST /v1/render),
   * before the body is read: the key's form (no query; 401 for a missing or malformed key); the
   * whole check, when the body is announced larger than 16 KiB or chunked, so an unknown key never
   * uploads it. `auth` is then the result, to hand to authenticateForRender.
   */
  beforeBody(request: AuthRequest, route: Route, hooks?: AuthHooks): Promise<{
    key: PresentedKey
    auth?: AuthContext
  }>
  /**
   * authenticate() for POST /v1/render: the same checks, with the template and environment read
   * in the key's query (only for a usable key; see RenderKeyReader). `found` answers
   * the template's problems in the spec's order, after the key's. `checked`: the request was
   * authenticated in full by beforeBody; it is not checked (nor counted, nor rate-limited) again.
   */
  authenticateForRender(request: AuthRequest, route: Route, target: RenderTarget, key: PresentedKey,
    hooks?: AuthHooks, checked?: AuthContext): Promise<{
      auth: AuthContext
      found: () => Promise<T>
    }>
}

export function createAuthenticator<T> (deps: AuthDeps<T>): Authenticator<T> {
  /** Everything after the key's row was read; throws the first refusal. */
  async function check (key: PresentedKey, row: ApiKeyRow | undefined, request: AuthRequest, route: Route,
    hooks: AuthHooks): Promise<AuthContext> {
    let auth: AuthContext
    try {
      auth = verifyKey(key, row)
    } catch (err) {
      deps.failures?.remember(key, row)
      throw err
    }
    hooks.identified?.(auth)
    const rate = await deps.admission.admit(auth)
    if (rate.unavailable === true) {
      throw problem('SERVICE_UNAVAILABLE', 'The rate limit cannot be checked (database unreachable); retry',
        { headers: { 'Retry-After': String(rate.retryAfterSeconds) } })
    }
    if (rate.unlimited !== true) {
      // IETF draft-ietf-httpapi-ratelimit-headers: the policy (limit per 60 s) and what is left.
      hooks.header?.('RateLimit-Policy', `"default";q=${rate.limit};w=60`)
      const wait = rate.allowed ? '' : `;t=${rate.retryAfterSeconds}`
      hooks.header?.('RateLimit', `"default";r=${rate.remaining}${wait}`)
      hooks.header?.('RateLimit-Remaining', rate.remaining)
    }
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

  /**
   * A request's first check, before any read: the key's form, and a refusal this key earned
   * before (failure-throttle.ts refuseKnown), both answered without a query.
   */
  function admitted (request: AuthRequest): PresentedKey {
    const key = presented(request)
    deps.failures?.refuseKnown(key)
    return key
  }

  /**
   * Runs one check; a 401 counts as a failed authentication of the client's address and key id,
   * and is answered 429 once their budget is spent (only failing requests are ever throttled).
   */
  async function counted<R> (request: AuthRequest, run: () => R | Promise<R>): Promise<R> {
    try {
      return await run()
    } catch (err) {
      if (!(err instanceof Problem) || err.status !== 401 || deps.failures === undefined) throw err
      const wait = deps.failures.fail(request.ip, keyIdOf(request))
      if (wait === 0) throw err
      throw problem('RATE_LIMITED', `Too many failed authentications; retry in ${wait} s`,
        { headers: { 'Retry-After': String(wait) } })
    }
  }

  /** The key id a request names, if its key is well formed. */
  function keyIdOf (request: AuthRequest): string | undefined {
    const token = bearer(request.headers.authorization)
    return token === undefined ? undefined : parseApiKey(token)?.keyId
  }

  function presented (request: AuthRequest): PresentedKey {
    return parseToken(bearer(request.headers.authorization))
  }

  /** The whole check: the key's row by primary key, then rate limit, workspace, scope. */
  async function authenticate (request: AuthRequest, route: Route, hooks: AuthHooks = {},
    key?: PresentedKey): Promise<AuthContext> {
    return await counted(request, async () => {
      // A given key continues a request whose first check already ran (beforeBody).
      const shown = key ?? admitted(request)
      return check(shown, await deps.keys.get(shown.keyId), request, route, hooks)
    })
  }

  return {
    authenticate,

    async beforeBody (request: AuthRequest, route: Route,
      hooks: AuthHooks = {}): Promise<{ key: PresentedKey, auth?: AuthContext }> {
      const key = await counted(request, () => admitted(request))
      if (!announcesLargeBody(request.headers)) return { key }
      return { key, auth: await authenticate(request, route, hooks, key) }
    },

    async authenticateForRender (request: AuthRequest, route: Route, target: RenderTarget, key: PresentedKey,
      hooks: AuthHooks = {}, checked?: AuthContext): Promise<{ auth: AuthContext, found: () => Promise<T> }> {
      const envKey = target.environment ?? defaultEnvironment(key.mode)
      const read = await deps.templates.resolveForKey(key, target.template, target.version, envKey)
      // A key revoked since its early check finds no row here: its 401 is the answer then.
      if (checked !== undefined && read.key !== undefined) return { auth: checked, found: read.resolve }
      return { auth: await counted(request, () => check(key, read.key, request, route, hooks)), found: read.resolve }
    }
  }
}
