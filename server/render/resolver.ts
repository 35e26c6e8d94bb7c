// The hot path's template read (render/resolution.ts declares it): the key's row, the template's
// version in force and the render's environment in one query, and the caches that keep that
// query small. Built once per process by the composition root (server/context.ts) and handed to
// auth/ (its RenderKeyReader) and to the render pipeline (its TemplateResolver).
//
// Invalidation: published versions never change, so `versions` and `hints` never go stale (the
// LRUs bound memory only). A held resolution carries the workspace's render revision it was read
// with; every write that can change a resolution bumps that revision first in its transaction
// (migration 014), on whichever process, and a render reads the revision with its key's row, so
// the next render after such a write reads again.
import { LRUCache } from 'lru-cache'
import type { TemplateDefinition } from '../../engine/template/definition.js'
import { compileParameterCheck } from '../../engine/template/parameters.js'
import type { KeyRead } from '../auth/authenticate.js'
import { problem } from '../errors.js'
import type { ResolveRow, TemplateFormat, TemplatesRepo } from '../store/repos/templates.js'
import type { Environment } from '../store/repos/environments.js'
import { safeEqual } from '../util/crypto.js'
import type { RenderResolver, Resolution, ResolvedTemplate } from './resolution.js'

/** How long a held render resolution may go without a re-read (hand edits without the revision bump). */
export const HELD_TTL_MS = 5_000

/** The template store's reads the resolver is made of. */
export type ResolveReads = Pick<TemplatesRepo, 'resolve' | 'resolveForKey' | 'keyState' | 'definition'>

function unknownKey (code: string): KeyRead<Resolution> {
  return {
    key: undefined,
    resolve: async () => {
      throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`)
    }
  }
}

function prepare (templateId: string, code: string, version: number, format: TemplateFormat,
  text: string): ResolvedTemplate {
  const definition = JSON.parse(text) as TemplateDefinition
  return Object.freeze({
    templateId,
    code,
    format,
    outputFormat: format === 'label' ? 'zpl' : 'pdf',
    version,
    versionKey: `${templateId}:${version}`,
    definitionJson: text,
    definition,
    checkParameters: compileParameterCheck(definition)
  })
}

const hintKeyOf = (workspaceId: string, code: string, version: number | undefined): string =>
  `${workspaceId}/${code}/${version ?? ''}`
const heldKeyOf = (workspaceId: string, code: string, version: number | undefined, envKey: string): string =>
  `${workspaceId}\n${code}\n${version ?? ''}\n${envKey}`

export function createTemplateResolver (repo: ResolveReads): RenderResolver {
  // Published versions never change, so an entry never goes stale; the LRU bounds memory only
  // (sized by definition length: embedded fonts and images can make a file large).
  const versions = new LRUCache<string, ResolvedTemplate>({
    max: 2000,
    maxSize: 128 * 1024 * 1024,
    sizeCalculation: (t) => t.definitionJson.length + 1
  })
  // Per (workspace, code, requested version): the version the last resolve returned. Sent as a
  // hint so the query leaves out the definition text when it is still the version in force.
  const hints = new LRUCache<string, ResolvedTemplate>({ max: 20000 })
  // Render resolutions this process holds (the hot path's template version and environment),
  // per (workspace, code, requested version, environment): only successful ones, each with the
  // workspace's render revision it was read with (see the invalidation note above). A row
  // edited by hand in SQL, without the bump, is read again within HELD_TTL_MS.
  const held = new LRUCache<string, Resolution & { revision: number, environment: Environment }>({
    max: 20000,
    ttl: HELD_TTL_MS
  })
  // Keys that presented their own secret here: only they take the held path, so a caller without
  // a key's secret cannot time whether a template of its workspace is held. Also the workspace
  // of the version hint (a key's workspace never changes).
  const knownKeys = new LRUCache<string, { workspaceId: string, secretHash: Buffer }>({ max: 20000 })

  /** The version the last resolve of hintKey returned, if this process still holds it. */
  function knownFor (hintKey: string): ResolvedTemplate | undefined {
    const hint = hints.get(hintKey)
    return hint !== undefined && versions.has(hint.versionKey) ? hint : undefined
  }

  /** The checks in the spec's order, then the version from the cache or the row's text. */
  async function finish (row: ResolveRow | undefined, code: string, version: number | undefined,
    hintKey: string): Promise<Resolution> {
    if (row === undefined) throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`)
    if (row.currentVersion === null) {
      throw problem('TEMPLATE_NOT_PUBLISHED', `template ${code} has no published version`)
    }
    if (row.version === null) throw problem('VERSION_NOT_FOUND', `template ${code} has no version ${String(version)}`)
    if (row.disabled) throw problem('TEMPLATE_DISABLED', `template ${code} is disabled in this workspace`)
    const versionKey = `${row.templateId}:${row.version}`
    let resolved = versions.get(versionKey)
    if (resolved === undefined) {
      // The definition is null only when the hint matched and the entry was evicted since.
      const text = row.definition ?? (await repo.definition(row.templateId, row.version))
      if (text === undefined) throw problem('VERSION_NOT_FOUND', `template ${code} has no version ${row.version}`)
      resolved = prepare(row.templateId, code, row.version, row.format, text)
      versions.set(versionKey, resolved)
    }
    if (hints.get(hintKey) !== resolved) hints.set(hintKey, resolved)
    return { resolved, environment: row.environment }
  }

  /** One query, which carries the definition text only when this process has not got it yet. */
  async function resolveRow (workspaceId: string, code: string, version: number | undefined,
    envKey: string | undefined): Promise<Resolution> {
    const hintKey = hintKeyOf(workspaceId, code, version)
    const row = await repo.resolve(workspaceId, code, version, knownFor(hintKey), envKey)
    return await finish(row, code, version, hintKey)
  }

  return {
    async resolve (workspaceId, code, version) {
      return (await resolveRow(workspaceId, code, version, undefined)).resolved
    },

    async resolveWithEnvironment (workspaceId, code, version, envKey) {
      return await resolveRow(workspaceId, code, version, envKey)
    },

    /**
     * The render's first read (POST /v1/render): the API key's row, the template and the
     * environment in ONE query. The caller verifies `key` first (a bad key is a 401 whatever the
     * template), then calls `resolve()` for the template's problems in the spec's order.
     * When this process holds the resolution (see `held`), the query reads the key and its
     * workspace's state only.
     */
    async resolveForKey (key, code, version, envKey) {
      const own = knownKeys.get(key.keyId)
      const workspaceId = own !== undefined && safeEqual(own.secretHash, key.secretHash) ? own.workspaceId : undefined
      const heldKey = workspaceId === undefined ? undefined : heldKeyOf(workspaceId, code, version, envKey)
      const entry = heldKey === undefined ? undefined : held.get(heldKey)
      if (entry !== undefined) {
        const state = await repo.keyState(key.keyId)
        if (state === undefined) return unknownKey(code)
        if (state.renderRevision === entry.revision) {
          const { resolved, environment } = entry
          const found = state.webhooksVersion === environment.webhooksVersion
            ? entry
            : { resolved, environment: { ...environment, webhooksVersion: state.webhooksVersion } }
          return { key: state.key, resolve: async () => found }
        }
      }
      const found = await repo.resolveForKey(
        key,
        code,
        version,
        workspaceId === undefined ? undefined : knownFor(hintKeyOf(workspaceId, code, version)),
        envKey
      )
      if (found === undefined) return unknownKey(code)
      const row = found.key
      if (safeEqual(row.secretHash, key.secretHash)) {
        knownKeys.set(key.keyId, { workspaceId: row.workspaceId, secretHash: row.secretHash })
      }
      return {
        key: row,
        // Called once the key passed its checks; only then does the query join the template.
        resolve: async () => {
          const r = await finish(found.template, code, version, hintKeyOf(row.workspaceId, code, version))
          if (r.environment !== undefined) {
            held.set(heldKeyOf(row.workspaceId, code, version, envKey),
              { revision: found.renderRevision, resolved: r.resolved, environment: r.environment })
          }
          return r
        }
      }
    }
  }
}
