// `svc secrets status` and `svc secrets rotate`: count sealed values per master key, and re-seal
// every value under the sealing key. Rotation walks each sealed column in primary-key order, in
// batches, and writes a value back only if it is still the ciphertext it opened (compare and
// swap): a password or secret changed meanwhile by a running server is left as that server wrote
// it. Values already under the sealing key are not selected, so an interrupted rotation simply
// runs again. Nothing else of the row changes (no ds_version bump: open pools keep working); a
// data-source password's workspace gets its render revision bumped (SEALED_COLUMNS).
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import { transaction } from '../store/db.js'
import type { Conn, Db } from '../store/db.js'
import { bumpRenderRevision } from '../store/repos/workspaces.js'
import { SealedValueError } from './keyring.js'
import type { Keyring, SealedRef } from './keyring.js'

/**
 * Every sealed column. A new one is added here, or rotation would leave it under an old key.
 * `renders`: the column is part of what a render resolves to, so its write bumps the workspace's
 * render revision (migration 014) and processes holding the old ciphertext read it again.
 */
export const SEALED_COLUMNS: ReadonlyArray<{ table: string, column: string, renders?: true }> = [
  { table: 'environments', column: 'ds_password_enc', renders: true },
  { table: 'webhook_endpoints', column: 'secret_enc' }
]

export interface SecretsStatus {
  activeKeyId: string
  configuredKeyIds: string[]
  /** Sealed values per key id ('legacy': sealed before envelopes), per table.column. */
  counts: Array<{ table: string, column: string, keyId: string, values: number, configured: boolean }>
}

export interface RotateResult {
  activeKeyId: string
  /** Re-sealed under the sealing key. */
  resealed: number
  /** Changed by someone else between read and write: left as written (already current). */
  skipped: number
  /** Could not be opened with any configured key: left untouched, listed with the reason. */
  unreadable: Array<{ table: string, column: string, id: string, reason: string }>
}

const KEY_OF = (column: string): string =>
  `IF(LENGTH(${column}) >= 35 AND SUBSTRING(${column}, 1, 3) = 0xff5302, ` +
    `LOWER(HEX(SUBSTRING(${column}, 4, 4))), 'legacy')`

export interface SecretsService {
  status(): Promise<SecretsStatus>
  rotate(options?: {
    batchSize?: number
    onBatch?: (table: string, done: number) => void
  }): Promise<RotateResult>
}

export function createSecretsService (db: Db, ring: Keyring): SecretsService {
  return {
    async status (): Promise<SecretsStatus> {
      const counts: SecretsStatus['counts'] = []
      for (const { table, column } of SEALED_COLUMNS) {
        const [rows] = await db.query<RowDataPacket[]>(
          `SELECT ${KEY_OF(column)} AS key_id, COUNT(*) AS n FROM ${table}
            WHERE ${column} IS NOT NULL GROUP BY key_id ORDER BY key_id`)
        for (const r of rows) {
          counts.push({ table, column, keyId: r.key_id, values: Number(r.n), configured: ring.ids.includes(r.key_id) })
        }
      }
      return { activeKeyId: ring.activeId, configuredKeyIds: ring.ids, counts }
    },

    async rotate (options: { batchSize?: number, onBatch?: (table: string, done: number) => void } = {}):
    Promise<RotateResult> {
      const batchSize = options.batchSize ?? 200
      const result: RotateResult = { activeKeyId: ring.activeId, resealed: 0, skipped: 0, unreadable: [] }
      for (const { table, column, renders } of SEALED_COLUMNS) {
        let after = ''
        for (;;) {
          const [rows] = await db.query<RowDataPacket[]>(
            `SELECT id, ${renders === true ? 'workspace_id' : 'NULL'} AS workspace_id, ${column} AS sealed FROM ${table}
              WHERE id > ? AND ${column} IS NOT NULL AND LEFT(${column}, 7) <> ? ORDER BY id LIMIT ?`,
            [after, ring.activeHeader, batchSize])
          const last = rows.at(-1)
          if (last === undefined) break
          for (const r of rows) {
            const ref: SealedRef = { table, column, id: r.id }
            let plain: string
            try {
              plain = ring.open(r.sealed, ref)
            } catch (err) {
              if (!(err instanceof SealedValueError)) throw err
              result.unreadable.push({ table, column, id: r.id, reason: err.message })
              continue
            }
            const write = async (conn: Conn): Promise<boolean> => {
              if (r.workspace_id !== null) await bumpRenderRevision(conn, r.workspace_id as string)
              const [res] = await conn.execute<ResultSetHeader>(`UPDATE ${table} SET ${column} = ? WHERE id = ? AND ${column} = ?`,
                [ring.seal(plain, ref), r.id, r.sealed])
              return res.affectedRows === 1
            }
            if (await transaction(db, write)) result.resealed++
            else result.skipped++
          }
          after = last.id
          options.onBatch?.(table, result.resealed)
        }
      }
      return result
    }
  }
}
