// mysql2 failures → problems. Two families: the data source cannot be used right now (503,
// retry later) or this dataset's query failed on a working server (422, fix the template). A
// statement past the query time limit is the query's failure (422): retrying would run the same
// slow query again for as long (spec Part 7: only 429, 503 and network failures are retried).
// mysql2 errors carry the SQL (`err.sql`) and server messages that may quote it, so a raw error
// never leaves this module: the problem names only the dataset, and callers log only `reason`.
import { Problem, problem } from '../errors.js'

/** Seconds a client should wait before retrying a 503 from a data source. */
export const RETRY_AFTER_SECONDS = 5

/**
 * Codes that mean "the server, the network or the credentials are the problem". Bad credentials,
 * a missing database or too many connections make the data source unusable for every dataset
 * until an operator fixes it, which is what 503 DATA_SOURCE_UNAVAILABLE says.
 */
const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT', 'PROTOCOL_ENQUEUE_HANDSHAKE_TWICE', 'POOL_CLOSED', 'HANDSHAKE_NO_SSL_SUPPORT',
  'ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR', 'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS', 'ER_USER_LIMIT_REACHED', 'ER_HOST_IS_BLOCKED', 'ER_HOST_NOT_PRIVILEGED',
  'ER_SERVER_SHUTDOWN', 'ER_NORMAL_SHUTDOWN', 'ER_QUERY_INTERRUPTED',
  'ER_LOCK_WAIT_TIMEOUT', 'ER_LOCK_DEADLOCK', 'ER_OUT_OF_RESOURCES', 'ER_OUTOFMEMORY', 'ER_CLIENT_INTERACTION_TIMEOUT',
  // The data source's password cannot be opened with the configured master keys (server/secrets).
  'SECRET_UNREADABLE'
])

// Server errors the driver has no symbolic name for: the session's statement time limit
// (MariaDB max_statement_time 1969, MySQL MAX_EXECUTION_TIME 3024).
const TIMEOUT_ERRNOS: Record<number, string> = { 1969: 'ER_STATEMENT_TIMEOUT', 3024: 'ER_QUERY_TIMEOUT' }
/**
 * The statement ran past SVC_DATASOURCE_QUERY_TIMEOUT: the server's own limit, or mysql2's timer
 * (set a little later, index.ts, so a live server's own error comes first) when the server did
 * not answer at all. Connecting is bounded by SVC_DATASOURCE_CONNECT_TIMEOUT instead (503).
 */
const STATEMENT_TIMEOUTS = new Set(['ER_STATEMENT_TIMEOUT', 'ER_QUERY_TIMEOUT', 'PROTOCOL_SEQUENCE_TIMEOUT'])
// Access errors after login (a statement needing FILE, say) are the query's fault, not the source's.
const QUERY_ACCESS = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_SPECIFIC_ACCESS_DENIED_ERROR'])

export interface MappedError { problem: Problem, reason: string }

export function unavailable (detail: string): Problem {
  return problem('DATA_SOURCE_UNAVAILABLE', detail, { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } })
}

/** `reason` is the driver's symbolic code (ER_PARSE_ERROR, ECONNREFUSED …): safe to log, never SQL. */
/** `connecting`: the error came while opening or preparing the session, not from the dataset's statement. */
export function mapDriverError (err: unknown, dataset: string, environment: string, connecting = false): MappedError {
  if (err instanceof Problem) return { problem: err, reason: err.code }
  const e = err as { code?: unknown, fatal?: unknown, errno?: unknown } | null | undefined
  const errno = typeof e?.errno === 'number' ? e.errno : 0
  const code = typeof e?.code === 'string' ? e.code : TIMEOUT_ERRNOS[errno] ?? 'UNKNOWN'
  if (QUERY_ACCESS.has(code) && !connecting && e?.fatal !== true) {
    return {
      problem: problem('DATASET_FAILED', `Dataset "${dataset}" could not be read from the data source of ` +
      `environment "${environment}"`),
      reason: code
    }
  }
  if (STATEMENT_TIMEOUTS.has(code) && !connecting) {
    return {
      problem: problem('DATASET_FAILED', `Dataset "${dataset}" did not finish within the query time limit on ` +
      `the data source of environment "${environment}"`),
      reason: code
    }
  }
  if (UNAVAILABLE.has(code) || STATEMENT_TIMEOUTS.has(code) || e?.fatal === true || /^E[A-Z]+$/.test(code)) {
    return {
      problem: unavailable(`The data source of environment "${environment}" cannot be reached now; ` +
      'retry later'),
      reason: code
    }
  }
  return {
    problem: problem('DATASET_FAILED', `Dataset "${dataset}" could not be read from the data source of ` +
    `environment "${environment}"`),
    reason: code
  }
}
