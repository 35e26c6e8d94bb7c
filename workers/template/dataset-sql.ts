// Publish-time shape check of dataset SQL: exactly one read-only SELECT (or WITH … SELECT). The
// data-source session is read-only as well (server/datasources/session.ts); this check answers a
// template author early, with the JSON path, instead of failing every render later.

// Quoted text and ordinary comments cannot hold a statement; executable comments (/*! … */,
// /*M! … */) can, so they are kept and refused below.
const QUOTED_OR_COMMENT = /'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|`[^`]*`|--[^\n]*|#[^\n]*|\/\*(?![!M]!?)[\s\S]*?\*\//g
// Reserved words that write, lock, call procedures or reach files, wherever they appear.
const FORBIDDEN = /\b(INSERT|UPDATE|DELETE|REPLACE\s+INTO|INTO|CALL|LOCK|HANDLER|LOAD_FILE|LOAD\s+DATA|DO)\b/i

/** Why `sql` is not one read-only SELECT/WITH statement, or undefined when it is. */
export function datasetSqlProblem (sql: string): string | undefined {
  const code = sql.replace(QUOTED_OR_COMMENT, ' ')
  if (/\/\*[!M]/.test(code)) return 'executable comments (/*! … */) are not allowed in a dataset query'
  const body = code.trim().replace(/;\s*$/, '')
  if (body.includes(';')) return 'must be a single statement (no ";" between statements)'
  if (!/^\(*\s*(SELECT|WITH)\b/i.test(body)) return 'must be one SELECT or WITH … SELECT statement'
  const word = FORBIDDEN.exec(body)
  if (word !== null) return `must only read: "${word[1].toUpperCase().replace(/\s+/g, ' ')}" is not allowed in a dataset query`
  return undefined
}
