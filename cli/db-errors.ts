// A database failure told as what to do: which database could not be reached, and the command
// that fixes it, instead of the driver's bare "connect ECONNREFUSED 127.0.0.1:3307".
import { Problem } from '../server/errors.js'

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'PROTOCOL_CONNECTION_LOST'])
const START = 'start it with `svc db start` (or `make db-start`), or check SVC_DATABASE_URL (or --database-url)'

/** The Problem to print for a service-database error, or undefined when `err` is something else. */
export function databaseProblem (err: unknown): Problem | undefined {
  if (typeof err !== 'object' || err === null || err instanceof Problem) return undefined
  const e = err as {
    code?: unknown
    address?: unknown
    port?: unknown
    errors?: unknown
    sqlMessage?: unknown
    message?: unknown
  }
  const code = typeof e.code === 'string' ? e.code : undefined
  if (code === undefined) return undefined
  // Node's happy-eyeballs connect reports every address tried in an AggregateError.
  const first = Array.isArray(e.errors) ? e.errors[0] as { address?: unknown, port?: unknown } : e
  const where = typeof first.address === 'string' ? ` at ${first.address}${typeof first.port === 'number' ? `:${first.port}` : ''}` : ''
  if (UNREACHABLE.has(code)) {
    return new Problem('DATABASE_UNAVAILABLE', `The service database${where} is not reachable (${code}): ${START}`)
  }
  if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR' || code === 'ER_BAD_DB_ERROR') {
    return new Problem('DATABASE_UNAVAILABLE', 'The service database refused the connection ' +
      `(${code}: ${String(e.sqlMessage ?? e.message)}): check SVC_DATABASE_URL, or run \`svc db start\` for the ` +
        'private one')
  }
  if (code === 'ER_NO_SUCH_TABLE') {
    return new Problem('DATABASE_UNAVAILABLE', 'The service database has no tables yet ' +
      `(${String(e.sqlMessage ?? e.message)}): run \`svc db migrate\``)
  }
  return undefined
}
