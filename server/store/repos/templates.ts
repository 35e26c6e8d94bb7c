// Templates and their immutable published versions. Every statement is one indexed lookup on
// uq_template (workspace_id, code) or the version primary key (template_id, version).
import { randomUUID } from 'node:crypto'
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import { onlyRow, transaction } from '../db.js'
import type { Conn, Db } from '../db.js'
import { createBatcher, isolating } from '../../util/batcher.js'
import { environmentColumns, toEnvironment } from './environments.js'
import { KEY_JOIN, keyColumns, toKey, usableKeySql } from './api-keys.js'
import type { ApiKeyRow } from './api-keys.js'
import type { Environment } from './environments.js'
import { bumpRenderRevision, WORKSPACE_STATE } from './workspaces.js'

export type TemplateFormat = 'document' | 'label'

/** The template row locked for a publish, with the highest stored version. */
export interface LockedTemplate {
  id: string
  format: TemplateFormat
  currentVersion: number | null
  maxVersion: number
}

/** What a resolve needs: ids, state and (only when asked for) the definition text. */
/**
 * The render's first read (resolveForKey), built once. Template, version and environment are
 * joined only for a key that is valid (digest, mode, not revoked, not expired): a bad key reads
 * the key's row alone, so neither the answer nor its time tells a caller without a working key
 * whether a template, version or environment exists. The caller still verifies the key itself
 * (constant-time, verifyKey).
 */
const RESOLVE_FOR_KEY = `SELECT ? AS i, ${keyColumns('k')}, ${WORKSPACE_STATE}, t.id, t.format, t.disabled, t.current_version, v.version,
    IF(t.id = ? AND v.version = ?, NULL, v.definition) AS definition, ${environmentColumns('e', 'env_', 'w.webhooks_version')}
  FROM api_keys k
  LEFT JOIN workspaces w ON w.id = k.workspace_id
  LEFT JOIN templates t ON t.workspace_id = k.workspace_id AND t.code = ?
    AND k.secret_hash = ? AND k.mode = ? AND ${usableKeySql('k')}
  LEFT JOIN template_versions v ON v.template_id = t.id AND v.version = COALESCE(?, t.current_version)
  LEFT JOIN environments e ON e.workspace_id = k.workspace_id AND e.env_key = ? AND t.id IS NOT NULL
  WHERE k.id = ?`

/**
 * The render's first read when this process holds the template and environment it resolves to
 * (render/resolver.ts): the key's row and its workspace's state, by primary keys. The held
 * resolution stands while the workspace's render revision is the one it was read with.
 */
const KEY_STATE = `SELECT ${keyColumns('k')}, ${WORKSPACE_STATE}
  FROM api_keys k LEFT JOIN workspaces w ON w.id = k.workspace_id WHERE k.id IN `

/**
 * Requests that arrive while a resolve is in flight go together in the next one (the batcher's
 * group commit): one statement of UNION ALL arms, each tagged with its request's index, instead
 * of one statement each. A statement per batch size is prepared once per connection.
 */
const RESOLVE_BATCH = 8
const keyStateSql = Array.from({ length: RESOLVE_BATCH }, (_, n) => `${KEY_STATE}(${Array(n + 1).fill('?').join(', ')})`)
const resolveBatchSql = Array.from({ length: RESOLVE_BATCH }, (_, n) =>
  n === 0 ? RESOLVE_FOR_KEY : Array.from({ length: n + 1 }, () => `(${RESOLVE_FOR_KEY})`).join(' UNION ALL '))
/** The statement of `sqls` for a batch of `n` (1 to RESOLVE_BATCH). */
function batchSql (sqls: string[], n: number): string {
  const sql = sqls[n - 1]
  if (sql === undefined) throw new Error(`a batch of ${n} is outside 1..${RESOLVE_BATCH}`)
  return sql
}

interface ResolveKeyItem {
  key: { keyId: string, mode: string, secretHash: Buffer }
  code: string
  version: number | undefined
  known: { templateId: string, version: number } | undefined
  envKey: string
}
/** A key's row with its workspace's state (revision: see migration 014; webhooks: 009). */
export interface KeyState { key: ApiKeyRow, renderRevision: number, webhooksVersion: number }
export type ResolveKeyResult = (KeyState & { template: ResolveRow | undefined }) | undefined

function toKeyState (r: RowDataPacket): KeyState {
  return {
    key: toKey(r, KEY_JOIN),
    renderRevision: Number(r.ws_render_revision),
    webhooksVersion: Number(r.ws_webhooks_version)
  }
}

async function keyStateBatch (db: Db, keyIds: string[]): Promise<Array<KeyState | undefined>> {
  const ids = [...new Set(keyIds)]
  const [rows] = await db.execute<RowDataPacket[]>(batchSql(keyStateSql, ids.length), ids)
  const byId = new Map(rows.map((r) => [r[KEY_JOIN.id] as string, toKeyState(r)]))
  return keyIds.map((id) => byId.get(id))
}

async function resolveBatch (db: Db, items: ResolveKeyItem[]): Promise<ResolveKeyResult[]> {
  const params: Array<string | number | Buffer | null> = []
  items.forEach((it, i) => {
    params.push(i, it.known?.templateId ?? '', it.known?.version ?? 0, it.code, it.key.secretHash, it.key.mode,
      it.version ?? null, it.envKey, it.key.keyId)
  })
  const [rows] = await db.execute<RowDataPacket[]>(batchSql(resolveBatchSql, items.length), params)
  const out: ResolveKeyResult[] = new Array<ResolveKeyResult>(items.length).fill(undefined)
  for (const r of rows) {
    out[Number(r.i)] = { ...toKeyState(r), template: r.id === null ? undefined : toResolveRow(r, true) }
  }
  return out
}

function toResolveRow (r: RowDataPacket, withEnvironment: boolean): ResolveRow {
  return {
    templateId: r.id,
    format: r.format,
    disabled: r.disabled === 1,
    currentVersion: r.current_version,
    version: r.version,
    definition: r.definition,
    environment: !withEnvironment || r.env_id === null ? undefined : toEnvironment(r, 'env_')
  }
}

export interface ResolveRow {
  templateId: string
  format: TemplateFormat
  disabled: boolean
  currentVersion: number | null
  /** null when the requested (or current) version does not exist. */
  version: number | null
  /** null when the caller said it has this version cached already. */
  definition: string | null
  /** The environment asked for (envKey), undefined when the workspace has none of that key. */
  environment?: Environment
}

/** A published version's public pieces (spec 2.3), as stored at publish time. */
export interface RecordRow {
  code: string
  format: TemplateFormat
  version: number | null
  disabled: boolean
  updatedAt: Date
  description: string
  documentType: string
  /** JSON text of { parameters, parameterSchema, datasets }; null when never published. */
  publicView: string | null
}

export interface NewVersion {
  templateId: string
  version: number
  description: string
  documentType: string
  definition: string
  publicView: string
  note: string | null
  publishedBy: string | null
}

const RECORD = `SELECT t.code, t.format, t.current_version, t.disabled, t.updated_at, v.description,
  v.document_type, v.public_view
  FROM templates t LEFT JOIN template_versions v ON v.template_id = t.id AND v.version = t.current_version`

function toRecord (r: RowDataPacket): RecordRow {
  return {
    code: r.code,
    format: r.format,
    version: r.current_version,
    disabled: r.disabled === 1,
    updatedAt: r.updated_at,
    description: r.description ?? '',
    documentType: r.document_type ?? '',
    publicView: r.public_view ?? null
  }
}

export interface TemplatesRepo {
  /**
   * Creates the row if the code is new, then locks it FOR UPDATE: concurrent publishes of one
   * code queue on this row lock, so each computes its version after the previous one committed.
   * The insert comes first because a FOR UPDATE on a missing row only takes a gap lock, and two
   * gap locks followed by two inserts deadlock.
   */
  lockForPublish(conn: Conn, workspaceId: string, code: string, format: TemplateFormat): Promise<LockedTemplate>
  insertVersion(conn: Conn, v: NewVersion): Promise<void>
  /**
   * One round trip for a render: the template joined with the requested (or current) version.
   * The definition text is sent only when it is not the version the caller already holds
   * (`known`), so the hot path does not move a large LONGTEXT for every render.
   */
  resolve(workspaceId: string, code: string, version: number | undefined, known?: {
    templateId: string
    version: number
  }, envKey?: string): Promise<ResolveRow | undefined>
  /**
   * resolve() with the environment AND the API key of the request in one round trip (the sync
   * render's hot path: key, template, version and environment were two queries). The key's
   * row comes back whatever the template; the caller checks the key first (401 before 404).
   * undefined: no key of that id.
   */
  resolveForKey(key: {
    keyId: string
    mode: string
    secretHash: Buffer
  }, code: string, version: number | undefined, known: {
    templateId: string
    version: number
  } | undefined, envKey: string): Promise<ResolveKeyResult>
  /** The key's row and its workspace's state (batched like resolveForKey); undefined: no key of that id. */
  keyState(keyId: string): Promise<KeyState | undefined>
  /** The definition of one version (after a cache eviction raced the resolve query). */
  definition(templateId: string, version: number): Promise<string | undefined>
  record(workspaceId: string, code: string): Promise<RecordRow | undefined>
  /**
   * A page of templates ordered by code, after `afterCode`; walks uq_template (workspace_id,
   * code) so paging costs the same on every page. `activeOnly` = published and not disabled.
   */
  page(workspaceId: string, options: {
    afterCode: string | null
    limit: number
    activeOnly: boolean
  }): Promise<RecordRow[]>
  setDisabled(workspaceId: string, code: string, disabled: boolean): Promise<boolean>
}

export function createTemplatesRepo (db: Db): TemplatesRepo {
  // One batch in flight: a request waits at most one round trip for the next, and under load
  // the batches fill (a second writer measured smaller batches and more statements). Requests
  // of several workspaces share a statement: should it fail, each is read again alone
  // (isolating), so one request's values can never fail another's.
  const resolves = createBatcher<ResolveKeyItem, ResolveKeyResult>(
    isolating(async (items) => await resolveBatch(db, items)), { maxItems: RESOLVE_BATCH })
  const keyStates = createBatcher<string, KeyState | undefined>(
    isolating(async (keyIds) => await keyStateBatch(db, keyIds)), { maxItems: RESOLVE_BATCH })
  return {
    async lockForPublish (
      conn: Conn,
      workspaceId: string,
      code: string,
      format: TemplateFormat
    ): Promise<LockedTemplate> {
      await bumpRenderRevision(conn, workspaceId) // the new version will be in force
      await conn.execute(
        'INSERT INTO templates (id, workspace_id, code, format) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE id = id',
        [randomUUID(), workspaceId, code, format]
      )
      const [rows] = await conn.execute<RowDataPacket[]>(
        `SELECT t.id, t.format, t.current_version,
          (SELECT COALESCE(MAX(v.version), 0) FROM template_versions v WHERE v.template_id = t.id) AS max_version
        FROM templates t WHERE t.workspace_id = ? AND t.code = ? FOR UPDATE`,
        [workspaceId, code]
      )
      const r = onlyRow(rows)
      return { id: r.id, format: r.format, currentVersion: r.current_version, maxVersion: Number(r.max_version) }
    },

    async insertVersion (conn: Conn, v: NewVersion): Promise<void> {
      await conn.execute(
        `INSERT INTO template_versions (template_id, version, description, document_type, definition, public_view,
          note, published_by)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [v.templateId, v.version, v.description, v.documentType, v.definition, v.publicView, v.note, v.publishedBy]
      )
      await conn.execute('UPDATE templates SET current_version = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?', [
        v.version,
        v.templateId
      ])
    },

    async resolve (
      workspaceId: string,
      code: string,
      version: number | undefined,
      known?: { templateId: string, version: number },
      envKey?: string
    ): Promise<ResolveRow | undefined> {
      // With envKey, the render's environment rides along (the same workspace, LEFT JOINed, so a
      // missing environment is a row without it): one round trip instead of two per render.
      const env = envKey === undefined ? '' : `, ${environmentColumns('e', 'env_')}`
      const join =
        envKey === undefined ? '' : ' LEFT JOIN environments e ON e.workspace_id = t.workspace_id AND e.env_key = ?'
      const [rows] = await db.execute<RowDataPacket[]>(
        `SELECT t.id, t.format, t.disabled, t.current_version, v.version,
          IF(t.id = ? AND v.version = ?, NULL, v.definition) AS definition${env}
        FROM templates t LEFT JOIN template_versions v ON v.template_id = t.id AND v.version = COALESCE(?, t.current_version)${join}
        WHERE t.workspace_id = ? AND t.code = ?`,
        envKey === undefined
          ? [known?.templateId ?? '', known?.version ?? 0, version ?? null, workspaceId, code]
          : [known?.templateId ?? '', known?.version ?? 0, version ?? null, envKey, workspaceId, code]
      )
      return rows[0] === undefined ? undefined : toResolveRow(rows[0], envKey !== undefined)
    },

    async resolveForKey (
      key: { keyId: string, mode: string, secretHash: Buffer },
      code: string,
      version: number | undefined,
      known: { templateId: string, version: number } | undefined,
      envKey: string
    ): Promise<ResolveKeyResult> {
      return await resolves.push({ key, code, version, known, envKey })
    },

    async keyState (keyId: string): Promise<KeyState | undefined> {
      return await keyStates.push(keyId)
    },

    async definition (templateId: string, version: number): Promise<string | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>(
        'SELECT definition FROM template_versions WHERE template_id = ? AND version = ?',
        [templateId, version]
      )
      return rows[0] === undefined ? undefined : rows[0].definition
    },

    async record (workspaceId: string, code: string): Promise<RecordRow | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>(`${RECORD} WHERE t.workspace_id = ? AND t.code = ?`, [
        workspaceId,
        code
      ])
      return rows[0] === undefined ? undefined : toRecord(rows[0])
    },

    async page (
      workspaceId: string,
      options: { afterCode: string | null, limit: number, activeOnly: boolean }
    ): Promise<RecordRow[]> {
      const filter = options.activeOnly ? ' AND t.disabled = 0 AND t.current_version IS NOT NULL' : ''
      const [rows] = await db.query<RowDataPacket[]>(
        `${RECORD} WHERE t.workspace_id = ? AND t.code > ?${filter} ORDER BY t.code LIMIT ?`,
        [workspaceId, options.afterCode ?? '', options.limit]
      )
      return rows.map(toRecord)
    },

    async setDisabled (workspaceId: string, code: string, disabled: boolean): Promise<boolean> {
      return await transaction(db, async (conn) => {
        await bumpRenderRevision(conn, workspaceId)
        const [res] = await conn.execute<ResultSetHeader>(
          'UPDATE templates SET disabled = ?, updated_at = UTC_TIMESTAMP(3) WHERE workspace_id = ? AND code = ?',
          [disabled ? 1 : 0, workspaceId, code]
        )
        return res.affectedRows > 0
      })
    }
  }
}
