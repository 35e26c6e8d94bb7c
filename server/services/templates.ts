// Template versions in the store: publish (validate, compile once, store version + event in one
// transaction), resolve for renders and dataset runs (hot path), and the read API's records.
import { LRUCache } from 'lru-cache'
import type { TemplateDefinition } from '../../engine/template/definition.js'
import { compileParameterCheck, publicTemplateView } from '../../engine/template/parameters.js'
import type { ParameterCheckResult } from '../../engine/template/parameters.js'
import { TEMPLATE_CODE } from '../../engine/template/schema.js'
import { parseTemplateText } from '../../engine/template/json-text.js'
import { validateAndCompile, type ValidationIssue } from '../../engine/template/validate.js'
import { transaction } from '../store/db.js'
import type { Db } from '../store/db.js'
import type { RecordRow, ResolveRow, TemplateFormat, TemplatesRepo } from '../store/repos/templates.js'
import type { ApiKeyRow } from '../store/repos/api-keys.js'
import type { Environment } from '../store/repos/environments.js'
import type { Outbox } from '../webhooks/outbox.js'
import { problem } from '../errors.js'
import { safeEqual } from '../util/crypto.js'

/** A published version ready to render; immutable, so cached per versionKey. */
export interface ResolvedTemplate {
  templateId: string
  code: string
  format: 'document' | 'label'
  outputFormat: 'pdf' | 'zpl'
  version: number
  /** `<templateId>:<version>`: the engine's compile-cache key. */
  versionKey: string
  /** The template file as published (JSON text), handed to the engine. */
  definitionJson: string
  definition: TemplateDefinition
  checkParameters: (values: unknown) => ParameterCheckResult
}

export interface PublishResult { templateId: string, code: string, version: number, previousVersion: number | null, format: 'document' | 'label' }

type PublicView = ReturnType<typeof publicTemplateView>

/** Template record of spec 2.3 (never the SQL of a dataset). */
export interface TemplateRecord extends PublicView {
  code: string
  description: string
  documentType: string
  format: TemplateFormat
  version: number
  updatedAt: string
}
export interface TemplatePage { data: TemplateRecord[], nextCursor: string | null }
/** The admin view (CLI): every template, disabled ones too. */
export interface TemplateSummary {
  code: string
  format: TemplateFormat
  version: number | null
  disabled: boolean
  updatedAt: string
  description: string
}

const CODE = new RegExp(TEMPLATE_CODE)
/** How long a held render resolution may go without a re-read (hand edits without the revision bump). */
export const HELD_TTL_MS = 5_000
/** A render's template version in force and its environment (undefined: the workspace has none of that key). */
export interface Resolution { resolved: ResolvedTemplate, environment: Environment | undefined }

function unknownKey (code: string): { key: undefined, resolve: () => Promise<Resolution> } {
  return {
    key: undefined,
    resolve: async () => {
      throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`)
    }
  }
}
const ER_NO_REFERENCED_ROW_2 = 1452
const ER_LOCK_DEADLOCK = 1213

/** Opaque list cursor: base64url of the last code of the page (codes are ordered bytewise). */
export const encodeCursor = (code: string): string => Buffer.from(code, 'utf8').toString('base64url')
export function decodeCursor (cursor: string): string {
  const code = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!CODE.test(code) || encodeCursor(code) !== cursor) {
    throw problem('VALIDATION_FAILED', 'cursor: not a cursor from a previous page', { errors: { cursor: ['is not a cursor from a previous page'] } })
  }
  return code
}

function toRecord (r: RecordRow): TemplateRecord {
  const view = JSON.parse(r.publicView as string) as PublicView
  return {
    code: r.code,
    description: r.description,
    documentType: r.documentType,
    format: r.format,
    version: r.version as number,
    updatedAt: r.updatedAt.toISOString(),
    parameters: view.parameters,
    parameterSchema: view.parameterSchema,
    datasets: view.datasets
  }
}

function parseFile (file: unknown): { text: string, json: unknown } {
  if (typeof file !== 'string') return { text: JSON.stringify(file), json: file }
  const parsed = parseTemplateText(file)
  if (parsed.ok) return { text: file, json: parsed.json }
  const message = parsed.errors[0].message
  throw problem('TEMPLATE_INVALID', `template file ${message}`, { errors: { '/': [message] } })
}

/**
 * Parses, validates and compiles a template file (JSON text or a parsed value) to fail early;
 * TEMPLATE_INVALID lists every error keyed by its JSON pointer. Shared by publish and the CLI.
 */
export function checkTemplateFile (file: unknown): {
  text: string
  definition: TemplateDefinition
  warnings: ValidationIssue[]
} {
  const { text, json } = parseFile(file)
  const checked = validateAndCompile(json)
  if (checked.ok) return { text, definition: checked.template, warnings: checked.warnings }
  const errors: Record<string, string[]> = {}
  for (const e of checked.errors) (errors[e.path] ??= []).push(e.message)
  const first = checked.errors[0]
  throw problem(
    'TEMPLATE_INVALID',
    `${checked.errors.length} error(s) in the template file; first: ${first.path} ${first.message}`,
    { errors }
  )
}

function checkText (name: string, value: string | undefined, max: number): string | null {
  if (value === undefined || value === '') return null
  if (value.length > max) throw problem('VALIDATION_FAILED', `${name}: at most ${max} characters`, { errors: { [name]: [`at most ${max} characters`] } })
  return value
}

const isErrno = (err: unknown, errno: number): boolean => (err as { errno?: number } | null)?.errno === errno

export function templatesService (db: Db, repo: TemplatesRepo, outbox: Pick<Outbox, 'append'>) {
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
  // workspace's render revision it was read with. A render reads that revision with its key's
  // row, and the held resolution stands while it is unchanged: every write that can change a
  // resolution bumps it first in its transaction (migration 014), on whichever process. A row
  // edited by hand in SQL, without the bump, is read again within HELD_TTL_MS.
  const held = new LRUCache<string, Resolution & { revision: number, environment: Environment }>({
    max: 20000,
    ttl: HELD_TTL_MS
  })
  // Keys that presented their own secret here: only they take the held path, so a caller without
  // a key's secret cannot time whether a template of its workspace is held. Also the workspace
  // of the version hint (a key's workspace never changes).
  const knownKeys = new LRUCache<string, { workspaceId: string, secretHash: Buffer }>({ max: 20000 })
  const heldKeyOf = (workspaceId: string, code: string, version: number | undefined, envKey: string): string =>
    `${workspaceId}\n${code}\n${version ?? ''}\n${envKey}`

  function prepare (
    templateId: string,
    code: string,
    version: number,
    format: TemplateFormat,
    text: string
  ): ResolvedTemplate {
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

  /**
   * Spec order: TEMPLATE_NOT_FOUND, TEMPLATE_NOT_PUBLISHED, VERSION_NOT_FOUND, TEMPLATE_DISABLED (409).
   * Reads the version in force at call time (a publish is visible to the very next render);
   * one query, which carries the definition text only when this process has not got it yet.
   */
  const hintKeyOf = (workspaceId: string, code: string, version: number | undefined): string => `${workspaceId}/${code}/${version ?? ''}`

  async function resolveRow (
    workspaceId: string,
    code: string,
    version: number | undefined,
    envKey: string | undefined
  ): Promise<{ resolved: ResolvedTemplate, environment: Environment | undefined }> {
    const hintKey = hintKeyOf(workspaceId, code, version)
    const row = await repo.resolve(workspaceId, code, version, knownFor(hintKey), envKey)
    return await finish(row, code, version, hintKey)
  }

  /** The version the last resolve of hintKey returned, if this process still holds it. */
  function knownFor (hintKey: string): ResolvedTemplate | undefined {
    const hint = hints.get(hintKey)
    return hint !== undefined && versions.has(hint.versionKey) ? hint : undefined
  }

  async function finish (
    row: ResolveRow | undefined,
    code: string,
    version: number | undefined,
    hintKey: string
  ): Promise<{ resolved: ResolvedTemplate, environment: Environment | undefined }> {
    if (row === undefined) throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`)
    if (row.currentVersion === null) { throw problem('TEMPLATE_NOT_PUBLISHED', `template ${code} has no published version`) }
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

  async function storeVersion (
    workspaceId: string,
    def: TemplateDefinition,
    text: string,
    note: string | null,
    publishedBy: string | null
  ): Promise<PublishResult> {
    return await transaction(db, async (conn, tx) => {
      const t = await repo.lockForPublish(conn, workspaceId, def.code, def.format)
      if (t.format !== def.format) {
        throw problem(
          'CONFLICT',
          `template ${def.code} is a ${t.format}; a new version cannot change its format to ${def.format}`,
          { errors: { '/format': [`must stay "${t.format}" (the format of the published versions)`] } }
        )
      }
      const version = t.maxVersion + 1
      await repo.insertVersion(conn, {
        templateId: t.id,
        version,
        description: def.description ?? '',
        documentType: def.documentType ?? '',
        definition: text,
        publicView: JSON.stringify(publicTemplateView(def)),
        note,
        publishedBy
      })
      const result: PublishResult = {
        templateId: t.id,
        code: def.code,
        version,
        previousVersion: t.currentVersion,
        format: def.format
      }
      await outbox.append(tx, {
        workspaceId,
        type: 'template.published',
        data: {
          templateId: t.id,
          template: def.code,
          version,
          previousVersion: t.currentVersion,
          format: def.format,
          note,
          publishedBy
        }
      })
      return result
    })
  }

  return {
    /** Validates, compiles once, stores a new version and the template.published event in one transaction. */
    async publish (
      workspaceId: string,
      file: unknown,
      options: { note?: string, publishedBy?: string } = {}
    ): Promise<PublishResult> {
      const note = checkText('note', options.note, 1000)
      const publishedBy = checkText('publishedBy', options.publishedBy, 200)
      const { text, definition } = checkTemplateFile(file)
      for (let attempt = 1; ; attempt++) {
        try {
          return await storeVersion(workspaceId, definition, text, note, publishedBy)
        } catch (err) {
          if (isErrno(err, ER_NO_REFERENCED_ROW_2)) throw problem('WORKSPACE_NOT_FOUND', `no workspace ${workspaceId}`)
          // InnoDB may pick a concurrent first publish of a new code as a deadlock victim; the
          // transaction was rolled back whole, so running it again is safe.
          if (!isErrno(err, ER_LOCK_DEADLOCK) || attempt >= 3) throw err
        }
      }
    },

    /** The version in force (or the one asked for); see resolveRow for the checks and their order. */
    async resolve (workspaceId: string, code: string, version?: number): Promise<ResolvedTemplate> {
      return (await resolveRow(workspaceId, code, version, undefined)).resolved
    },

    /**
     * resolve() and the environment of the render in the same round trip (the hot path reads
     * both for every render). The template's errors come first; `environment` is undefined when
     * the workspace has no environment of that key (the caller answers ENVIRONMENT_NOT_FOUND).
     */
    async resolveWithEnvironment (
      workspaceId: string,
      code: string,
      version: number | undefined,
      envKey: string
    ): Promise<{ resolved: ResolvedTemplate, environment: Environment | undefined }> {
      return await resolveRow(workspaceId, code, version, envKey)
    },

    /**
     * The render's first read (POST /v1/render): the API key's row, the template and the
     * environment in ONE query. The caller verifies `key` first (a bad key is a 401 whatever the
     * template), then calls `resolve()` for the template's problems in the spec's order.
     * When this process holds the resolution (see `held`), the query reads the key and its
     * workspace's state only.
     */
    async resolveForKey (
      key: { keyId: string, mode: string, secretHash: Buffer },
      code: string,
      version: number | undefined,
      envKey: string
    ): Promise<{ key: ApiKeyRow | undefined, resolve: () => Promise<Resolution> }> {
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
    },

    /** Published, active templates ordered by code (read API). */
    async list (workspaceId: string, options: { limit?: number, cursor?: string } = {}): Promise<TemplatePage> {
      const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 100)
      const afterCode = options.cursor === undefined || options.cursor === '' ? null : decodeCursor(options.cursor)
      const rows = await repo.page(workspaceId, { afterCode, limit: limit + 1, activeOnly: true })
      const more = rows.length > limit
      const data = (more ? rows.slice(0, limit) : rows).map(toRecord)
      return { data, nextCursor: more ? encodeCursor(data[data.length - 1].code) : null }
    },

    /** One template record; TEMPLATE_NOT_FOUND, TEMPLATE_NOT_PUBLISHED, TEMPLATE_DISABLED in that order. */
    async get (workspaceId: string, code: string): Promise<TemplateRecord> {
      const row = CODE.test(code) ? await repo.record(workspaceId, code) : undefined
      if (row === undefined) throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`)
      if (row.version === null || row.publicView === null) { throw problem('TEMPLATE_NOT_PUBLISHED', `template ${code} has no published version`) }
      if (row.disabled) throw problem('TEMPLATE_DISABLED', `template ${code} is disabled in this workspace`)
      return toRecord(row)
    },

    /** Every template of the workspace, disabled ones included (admin CLI). */
    async listAll (workspaceId: string): Promise<TemplateSummary[]> {
      const out: TemplateSummary[] = []
      let afterCode: string | null = null
      for (;;) {
        const rows = await repo.page(workspaceId, { afterCode, limit: 500, activeOnly: false })
        for (const r of rows) {
          out.push({
            code: r.code,
            format: r.format,
            version: r.version,
            disabled: r.disabled,
            updatedAt: r.updatedAt.toISOString(),
            description: r.description
          })
        }
        if (rows.length < 500) return out
        afterCode = rows[rows.length - 1].code
      }
    },

    /** Takes effect on the next resolve: state is read per call, only versions are cached. */
    async setDisabled (
      workspaceId: string,
      code: string,
      disabled: boolean
    ): Promise<{ code: string, disabled: boolean }> {
      if (!(await repo.setDisabled(workspaceId, code, disabled))) { throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`) }
      return { code, disabled }
    }
  }
}
export type TemplatesService = ReturnType<typeof templatesService>
