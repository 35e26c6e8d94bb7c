// The check of dataset SQL, at publish (validate.ts, with the JSON path) and again before a
// dataset first runs (server/datasources/sql.ts: a version stored before this check, or written
// some other way, fails with DATASET_FAILED): exactly one read-only SELECT (or WITH … SELECT)
// that reaches nothing outside the tenant's own data. It reads the tokens of sql-lexer.ts, so a
// name is seen in every form MariaDB accepts it — any case, `backticked`, "double-quoted"
// (ANSI_QUOTES), with spaces or comments before its parenthesis — and nothing hides in a comment.
// The data-source session is read-only as well (server/datasources/session.ts), and every
// connection's user locks are released after each use (pools.ts): a tenant's own stored function
// or view can call what this check refuses by name.
import { SqlLexError, tokenizeSql } from './sql-lexer.js'
import type { SqlToken } from './sql-lexer.js'

/**
 * Keywords that write, lock, call procedures or write files, wherever they stand unquoted (REPLACE
 * is also a string function: REPLACE INTO is caught by INTO). `INTO`
 * covers INTO OUTFILE/DUMPFILE/@var/local variables (MariaDB reads `SELECT 1--1 INTO @v` as a
 * SELECT … INTO); `LOCK`/`UPDATE` cover LOCK IN SHARE MODE and FOR UPDATE (row locks in the
 * tenant's own database only, for one statement: refused anyway, a report never needs them).
 */
const KEYWORDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'INTO', 'CALL', 'LOCK', 'HANDLER', 'DO', 'PROCEDURE'])
/** Keyword pairs: LOAD DATA/XML (a statement of its own), MySQL 8's FOR SHARE lock clause. */
const PAIRS = [['LOAD', 'DATA'], ['LOAD', 'XML'], ['FOR', 'SHARE']]
/**
 * Functions that reach server-wide state (user locks: one namespace for the whole server,
 * shared with svc's own migration lock when a data source lives on the service's server), hold a
 * connection on purpose (sleep, benchmark, replication waits) or read the server's files.
 */
const FUNCTIONS = new Set([
  'GET_LOCK', 'RELEASE_LOCK', 'RELEASE_ALL_LOCKS', 'IS_FREE_LOCK', 'IS_USED_LOCK',
  'SLEEP', 'BENCHMARK', 'LOAD_FILE',
  'MASTER_POS_WAIT', 'MASTER_GTID_WAIT', 'SOURCE_POS_WAIT', 'WAIT_FOR_EXECUTED_GTID_SET',
  'WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS'
])

/** Why `sql` is not one read-only SELECT/WITH statement, or undefined when it is. */
export function datasetSqlProblem (sql: string): string | undefined {
  let tokens: SqlToken[]
  try {
    tokens = tokenizeSql(sql)
  } catch (err) {
    if (err instanceof SqlLexError) return err.message
    throw err
  }
  if (tokens.some((t) => t.kind === 'executable')) {
    return 'executable comments (/*! … */, /*M! … */) and optimizer hints (/*+ … */) are not allowed in a dataset query'
  }
  const code = tokens.filter((t) => t.kind !== 'space' && t.kind !== 'comment')
  const body = code.at(-1)?.value === ';' ? code.slice(0, -1) : code
  if (body.some((t) => t.kind === 'op' && t.value === ';')) {
    return 'must be a single statement (no ";" between statements)'
  }
  const first = body.find((t) => !(t.kind === 'op' && t.value === '('))
  if (first?.kind !== 'word' || (first.value !== 'SELECT' && first.value !== 'WITH')) {
    return 'must be one SELECT or WITH … SELECT statement'
  }
  for (let i = 0; i < body.length; i++) {
    const t = body[i]! // i < body.length
    const after = body[i + 1]
    if (t.kind === 'word' && KEYWORDS.has(t.value)) {
      return `must only read: "${t.value}" is not allowed in a dataset query`
    }
    if (t.kind === 'word' && after?.kind === 'word' && PAIRS.some(([a, b]) => a === t.value && b === after.value)) {
      return `must only read: "${t.value} ${after.value}" is not allowed in a dataset query`
    }
    // A call is a name and "(": unquoted, `backticked` or, under ANSI_QUOTES, "double-quoted".
    const name = t.kind === 'word'
      ? t.value
      : t.kind === 'identifier' || t.kind === 'string' ? t.value.toUpperCase() : undefined
    if (name !== undefined && FUNCTIONS.has(name) && after?.kind === 'op' && after.value === '(') {
      return `must not call ${name}(): lock, sleep, benchmark, replication-wait and file functions are not allowed ` +
        'in a dataset query'
    }
  }
  return undefined
}
