// Column types of a dataset result for the JSON API (spec 2.4 `columns`), and rows made JSON-safe.
import type { FieldDef } from '../../engine/template/definition.js'

/** The column metadata mysql2 hands to the `fields` event (a subset). */
export interface DriverField {
  name: string
  columnType?: number
  type?: number
  columnLength?: number
  characterSet?: number
}

// MySQL protocol column types (include/field_types.h); mysql2 exposes them as `columnType`.
const DECIMAL = new Set([0, 246])
const INTEGER = new Set([2, 3, 8, 9, 13])
const FLOAT = new Set([4, 5])
const DATE = new Set([10, 14])
const DATETIME = new Set([7, 12, 17, 18])
const TINY = 1
const BIT = 16
const JSON_TYPE = 245

export function columnType (f: DriverField): string {
  const t = f.columnType ?? f.type ?? -1
  if (DECIMAL.has(t) || FLOAT.has(t)) return 'decimal'
  if (t === TINY) return f.columnLength === 1 ? 'boolean' : 'integer'
  if (t === BIT && f.columnLength === 1) return 'boolean'
  if (INTEGER.has(t)) return 'integer'
  if (DATE.has(t)) return 'date'
  if (DATETIME.has(t)) return 'datetime'
  if (t === JSON_TYPE) return 'json'
  return 'string'
}

/** Declared field types win (the template author's contract); the driver's type fills the gaps. */
export function describeColumns (fields: DriverField[], declared: FieldDef[]): Array<{ name: string, type: string }> {
  const byName = new Map(declared.map((f) => [f.name, f.type]))
  return fields.map((f) => ({ name: f.name, type: byName.get(f.name) ?? columnType(f) }))
}

/**
 * Rows for the JSON API: DATE columns as `YYYY-MM-DD` (they arrive as UTC midnight because the
 * pool reads in UTC), other Dates as ISO timestamps, binary values as base64. Rows without any of
 * these are returned as they are, so the common case allocates nothing.
 */
export function jsonRows (rows: Array<Record<string, unknown>>, fields: DriverField[]): Array<Record<string, unknown>> {
  const dateOnly = new Set(fields.filter((f) => DATE.has(f.columnType ?? f.type ?? -1)).map((f) => f.name))
  return rows.map((row) => {
    let out: Record<string, unknown> | undefined
    for (const key in row) {
      const v = row[key]
      let json: unknown
      if (v instanceof Date) { json = Number.isNaN(v.getTime()) ? null : dateOnly.has(key) ? v.toISOString().slice(0, 10) : v.toISOString() } else if (Buffer.isBuffer(v)) json = v.toString('base64')
      else if (typeof v === 'bigint') json = v.toString()
      else continue
      out ??= { ...row }
      out[key] = json
    }
    return out ?? row
  })
}
