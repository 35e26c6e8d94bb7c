// Runs one bound statement on a pool and streams its rows, so a row limit is enforced while
// reading: at most `budget.limit + 1` rows are ever held. A LIMIT wrapper around the template's
// SQL is not safe (MariaDB may drop the ORDER BY of a derived table, and a query may have its own
// LIMIT), so the limit is counted here instead. Once it is passed the connection is destroyed
// rather than drained: the rest of a huge result is never transferred, and the pool opens a
// fresh connection when it needs one. Bytes are counted the same way, on the socket as they
// arrive (byte-budget.ts): past the budget, or past the cell limit, the read is cut likewise.
import type { PoolConnection } from 'mysql2'
import type { DriverField } from './columns.js'
import type { BoundQuery } from './sql.js'
import { ByteLimitExceeded, largestCell, meterWire, rowCost } from './byte-budget.js'
import type { ByteBudget, DataStream } from './byte-budget.js'

/** Rows allowed over several parallel statements (all datasets of one render share one). */
export interface RowBudget { limit: number, used: number }

/**
 * Where a big result's rows go once more than `above` were read (a render's row feed): in
 * batches of `batch` rows, the first with every row held so far. The read is paused (the
 * connection stops taking packets, as mysql2's query streams do) until push() resolves, so a
 * consumer that is behind holds the data source back; a push that rejects ends the read.
 */
export interface RowSpill {
  above: number
  batch: number
  push (rows: Array<Record<string, unknown>>): Promise<void>
}

export interface StatementResult {
  /** The rows read, or, when `spilled`, none: they went to the spill. */
  rows: Array<Record<string, unknown>>
  fields: DriverField[]
  /** True when the budget ran out: the result is cut, one row past the limit was seen. */
  exceeded: boolean
  spilled: boolean
}

/**
 * Takes a connection out of its pool (its slot is freed at once) and closes its socket.
 * mysql2's destroy() only half-closes (FIN): the server could go on sending the rest of a result
 * and mysql2 would go on buffering it. Destroying the socket stops the reading.
 */
export function discard (conn: PoolConnection): void {
  conn.destroy()
  ;(conn as unknown as { stream?: { destroy (): void } }).stream?.destroy()
}

/**
 * Runs `q` on `conn` and gives the connection back (released, or discarded when its state is
 * unknown). Rejects with ByteLimitExceeded when `bytes` runs out or a value passes its cell limit.
 */
export async function runStatement (
  conn: PoolConnection,
  q: BoundQuery,
  timeoutMs: number,
  budget: RowBudget,
  bytes: ByteBudget,
  spill?: RowSpill
): Promise<StatementResult> {
  return await new Promise<StatementResult>((resolve, reject) => {
    let rows: Array<Record<string, unknown>> = []
    let fields: DriverField[] = []
    let perRow = 0
    let settled = false
    let spilled = false
    const finish = (err: Error | undefined, cut = false): void => {
      if (settled) return
      settled = true
      meter.stop()
      // A connection that timed out, failed fatally or was cut mid-result is in an unknown state.
      const fatal =
        err !== undefined &&
        ((err as { fatal?: boolean }).fatal === true || (err as { code?: string }).code === 'PROTOCOL_SEQUENCE_TIMEOUT')
      if (cut || fatal) discard(conn)
      else conn.release()
      if (err !== undefined) reject(err)
      else resolve({ rows, fields, exceeded: cut, spilled })
    }
    const send = (last: boolean): void => {
      const batch = rows
      rows = []
      spilled = true
      if (!last) conn.pause()
      spill?.push(batch).then(
        () => { if (last) finish(undefined); else if (!settled) conn.resume() },
        (err: Error) => { finish(err, !last) }
      )
    }
    // Attached before the statement is sent, so it counts from the first byte of the answer.
    const stream = (conn as unknown as { stream: DataStream }).stream
    const meter = meterWire(stream, bytes, () => fields.length, (err) => finish(err, true))
    const cmd = conn.execute({ sql: q.sql, values: q.values, timeout: timeoutMs })
    cmd.on('fields', (f: DriverField[]) => {
      if (fields.length > 0) return
      fields = f
      perRow = rowCost(f)
    })
    cmd.on('result', (row: Record<string, unknown>) => {
      // No column metadata = an OK packet of a non-SELECT statement, not a row.
      if (settled || fields.length === 0) return
      bytes.used += perRow
      if (bytes.used > bytes.limit) {
        finish(new ByteLimitExceeded('total', bytes.limit), true)
        return
      }
      if (largestCell(row, bytes.cellLimit) > bytes.cellLimit) {
        finish(new ByteLimitExceeded('cell', bytes.cellLimit), true)
        return
      }
      budget.used++
      if (budget.used > budget.limit) {
        finish(undefined, true)
        return
      }
      rows.push(row)
      if (spill !== undefined && rows.length >= spill.batch && (spilled || rows.length > spill.above)) send(false)
    })
    cmd.on('error', (err: Error) => finish(err))
    cmd.on('end', () => { if (spilled && !settled) send(true); else finish(undefined) })
  })
}
