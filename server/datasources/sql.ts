// Dataset SQL → a positional statement. A query is split once into its text pieces and the
// ordered placeholder names; binding then only joins the pieces with `?` markers and collects
// the values. Caller values never become SQL text: they travel as prepared-statement parameters.
import { problem } from '../errors.js'
import { datasetSqlProblem } from '../../engine/template/dataset-sql.js'
import { tokenizeSql } from '../../engine/template/sql-lexer.js'

export interface CompiledQuery {
  /** Text between placeholders: `parts.length === names.length + 1`. */
  parts: string[]
  /** Placeholder names in order of appearance (`invoiceId`, `context.company`); repeats kept. */
  names: string[]
  /** The statement when no value is a list (the common case): built once. */
  sql: string
}

export interface BoundQuery { sql: string, values: unknown[] }

/**
 * Checks `sql` as publish does (datasetSqlProblem: a version stored before that check, or written
 * another way, is refused here before it runs) and splits it at its placeholders, read by the same
 * lexer as the publish check's queryPlaceholders(). A bare `?` outside quotes would shift every
 * positional value after it, so it is refused (the template must use a named placeholder).
 */
export function compileQuery (sql: string, dataset: string): CompiledQuery {
  const why = datasetSqlProblem(sql)
  if (why !== undefined) throw problem('DATASET_FAILED', `Dataset "${dataset}" cannot be read: its query ${why}`)
  const parts: string[] = []
  const names: string[] = []
  let last = 0
  for (const t of tokenizeSql(sql)) {
    if (t.kind === 'op' && t.value === '?') {
      throw problem('DATASET_FAILED', `Dataset "${dataset}" cannot be read: ` +
      'its query contains a bare "?"; use a named :placeholder')
    }
    if (t.kind !== 'placeholder') continue
    parts.push(sql.slice(last, t.start))
    names.push(t.value)
    last = t.end
  }
  parts.push(sql.slice(last))
  return { parts, names, sql: parts.join('?') }
}

/** Only scalars and lists of scalars can be bound; anything else is the caller's mistake. */
function bindable (v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || v instanceof Date
}

/**
 * Binds values by placeholder name. A list value expands to `?, ?, ?` (for `IN (:ids)`), so the
 * marker count varies with the list lengths; scalars bind as one `?`. Missing values bind NULL.
 */
export function bindQuery (q: CompiledQuery, lookup: (name: string) => unknown): BoundQuery {
  const values: unknown[] = []
  let expanded = false
  const markers: string[] = []
  for (const name of q.names) {
    let v = lookup(name)
    if (v === undefined) v = null
    if (Array.isArray(v)) {
      if (!v.every(bindable)) throw invalidValue(name)
      expanded = true
      // An empty list matches nothing: IN (NULL) is never true and is still valid SQL.
      if (v.length === 0) { markers.push('NULL'); continue }
      markers.push(v.length === 1 ? '?' : '?' + ', ?'.repeat(v.length - 1))
      for (const item of v) values.push(item)
      continue
    }
    if (!bindable(v)) throw invalidValue(name)
    markers.push('?')
    values.push(v)
  }
  if (!expanded) return { sql: q.sql, values }
  // parts has one more entry than markers (the text around each name)
  let sql = q.parts[0] ?? ''
  for (const [i, marker] of markers.entries()) sql += marker + (q.parts[i + 1] ?? '')
  return { sql, values }
}

function invalidValue (name: string): Error {
  const message = 'must be a string, number, boolean or a list of them'
  return problem('PARAMETER_INVALID', `${name}: ${message}`, { errors: { [name]: [message] } })
}
