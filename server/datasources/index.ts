// Data sources: one small mysql2 pool per environment's data source (pools.ts), dataset SQL
// compiled once into a positional statement (sql.ts), values bound as prepared-statement
// parameters, rows streamed under a row budget and a byte budget (run.ts, byte-budget.ts),
// failures mapped to problems that name the dataset and never the SQL or the connection (errors.ts).
import { performance } from 'node:perf_hooks'
import { LRUCache } from 'lru-cache'
import type { DatasetValues } from '../../engine/types.js'
import type { DatasetDef, TemplateDefinition } from '../../engine/template/definition.js'
import type { Environment } from '../store/repos/environments.js'
import type { DataSourceOpener } from './source.js'
import type { Config } from '../config.js'
import { problem } from '../errors.js'
import { compileQuery, bindQuery } from './sql.js'
import type { CompiledQuery } from './sql.js'
import { createPoolCache } from './pools.js'
import type { DataSourceGuard } from './destinations.js'
import { mapDriverError } from './errors.js'
import { runStatement } from './run.js'
import type { RowBudget, RowSpill, StatementResult } from './run.js'
import { ByteLimitExceeded } from './byte-budget.js'
import type { ByteBudget } from './byte-budget.js'
import { FeedClosed } from '../../pool/row-feed.js'
import { describeColumns, jsonRows } from './columns.js'

export interface DatasetResult {
  columns: Array<{ name: string, type: string }>
  /** JSON-ready: DATE as `YYYY-MM-DD`, DATETIME as an ISO timestamp, DECIMAL as a string. */
  rows: Array<Record<string, unknown>>
  rowCount: number
  truncated: boolean
  elapsedMs: number
}

/** What went wrong, for the server log: the driver's symbolic code only, never SQL or a message. */
export interface DatasetFailure { environment: string, dataset: string, errorCode: string, reason: string }

/** Where big `multiple` datasets' rows go while they are read (server/render/row-input.ts). */
export interface DatasetFeed {
  /** Rows held per dataset before the rest go to rows(). */
  above: number
  /** Rows per batch. */
  batch: number
  rows (dataset: string, rows: Array<Record<string, unknown>>): Promise<void>
}

export interface DataSourcesOptions {
  /** The destination check every pool passes before it opens (createDataSourceGuard()). */
  guard: DataSourceGuard
  onError?: (failure: DatasetFailure) => void
  /** Every statement's time and whether it succeeded (metrics). */
  onQuery?: (ms: number, ok: boolean) => void
}

const CLIENT_TIMEOUT_GRACE_MS = 1000

export interface DataSources {
  /**
   * Runs every dataset of the template in parallel on the environment's data source:
   * `single` → first row or null, `multiple` → rows. All rows read count toward `maxRows`
   * (over all datasets). Errors: DATASET_FAILED (422, query error or past the query time limit),
   * DATA_SOURCE_UNAVAILABLE (503 with Retry-After: no data source, unreachable, refused, connect
   * timeout, bad credentials),
   * RENDER_LIMIT_EXCEEDED (422, more than maxRows rows in all, more than SVC_DATASET_MAX_BYTES
   * bytes in all, or a value past SVC_DATASET_MAX_CELL_BYTES). With a `feed`, a `multiple`
   * dataset of more than feed.above rows goes to it in batches and is left out of `datasets`.
   */
  readAll(env: Environment, def: TemplateDefinition, parameters: Record<string, unknown>,
    context: Record<string, unknown>, maxRows: number, feed?: DatasetFeed): Promise<{
      datasets: DatasetValues
      rowCount: number
    }>
  /**
   * One dataset, for POST /v1/datasets/{template}/{dataset}/execute: at most `maxRows` rows.
   * `truncated` means rows were left out because of `maxRows` (spec 2.4). A `single` dataset
   * answers its first row, as a render sees it: further rows of its query are not read and are
   * not "truncated" (maxRows ≥ 1 always holds its one row). A `required` one with no row answers
   * no rows here (exploring data is not a render). Its bytes are bounded by
   * SVC_DATASET_EXECUTE_MAX_BYTES and SVC_DATASET_MAX_CELL_BYTES before the answer is
   * serialised: past either, 422 DATASET_FAILED naming the limit (never `truncated`).
   */
  execute(env: Environment, def: TemplateDefinition, dataset: string, parameters: Record<string, unknown>,
    context: Record<string, unknown>, maxRows: number): Promise<DatasetResult>
  /** Open pools (for tests and metrics). */
  poolCount: () => number
  close(): Promise<void>
}

export function createDataSources (config: Pick<Config, 'datasources'>, environments: DataSourceOpener, options: DataSourcesOptions): DataSources {
  const pools = createPoolCache(config, environments, options.guard)
  // Keyed by the SQL text itself: identical across versions of a template, immutable per version.
  const compiled = new LRUCache<string, CompiledQuery>({ max: 2000 })
  // mysql2's own timer, the bound when the server does not answer at all, is set a second past the
  // session's statement limit (session.ts): a live server's own timeout error comes first, and its
  // connection stays usable (mysql2's timer leaves it in an unknown state, so run.ts destroys it).
  const clientTimeoutMs = config.datasources.queryTimeoutMs + CLIENT_TIMEOUT_GRACE_MS
  const { maxBytes, executeMaxBytes, maxCellBytes } = config.datasources
  const byteBudget = (limit: number): ByteBudget => ({ limit, used: 0, cellLimit: maxCellBytes })

  /** The problem of a read cut by its byte budget (`code`: the render's or the execution's). */
  function byteProblem (err: ByteLimitExceeded, env: Environment, d: DatasetDef, code: 'RENDER_LIMIT_EXCEEDED' | 'DATASET_FAILED') {
    options.onError?.({ environment: env.key, dataset: d.code, errorCode: code, reason: err.kind === 'cell' ? 'CELL_LIMIT' : 'BYTE_LIMIT' })
    if (err.kind === 'cell') {
      return problem(code, `Dataset "${d.code}" returns a value of more than ${err.limit} bytes (cell limit ${err.limit} bytes)`)
    }
    return code === 'RENDER_LIMIT_EXCEEDED'
      ? problem(code, `The datasets return more than ${err.limit} bytes in all (byte limit ${err.limit} bytes)`)
      : problem(code, `Dataset "${d.code}" returns more than ${err.limit} bytes (byte limit ${err.limit} bytes of a dataset execution); ask for fewer rows`)
  }

  function statementOf (
    d: DatasetDef,
    def: TemplateDefinition,
    parameters: Record<string, unknown>,
    context: Record<string, unknown>
  ) {
    let q = compiled.get(d.query)
    if (q === undefined) {
      q = compileQuery(d.query, d.code)
      compiled.set(d.query, q)
    }
    return bindQuery(q, (name) => {
      if (name.startsWith('context.')) {
        const key = name.slice(8)
        return Object.hasOwn(context, key) ? context[key] : null
      }
      const v = Object.hasOwn(parameters, name) ? parameters[name] : null
      // ISO date-times ('…T10:00:00Z') are not DATETIME literals: bind them as Date (sent in UTC).
      if (typeof v === 'string' && def.parameters?.find((p) => p.name === name)?.type === 'datetime') return new Date(v)
      return v
    })
  }

  async function run (
    env: Environment,
    def: TemplateDefinition,
    d: DatasetDef,
    parameters: Record<string, unknown>,
    context: Record<string, unknown>,
    budget: RowBudget,
    bytes: ByteBudget,
    spill?: RowSpill
  ): Promise<StatementResult> {
    let connecting = true
    const started = performance.now()
    try {
      const q = statementOf(d, def, parameters, context)
      const conn = await pools.connection(env)
      connecting = false
      const r = await runStatement(conn, q, clientTimeoutMs, budget, bytes, spill)
      options.onQuery?.(performance.now() - started, true)
      return r
    } catch (err) {
      // The render this read was feeding ended first: its own outcome is the answer.
      if (err instanceof FeedClosed) throw err
      // The caller names the limit in its own problem (a render's or an execution's).
      if (err instanceof ByteLimitExceeded) throw err
      options.onQuery?.(performance.now() - started, false)
      const mapped = mapDriverError(err, d.code, env.key, connecting)
      options.onError?.({
        environment: env.key,
        dataset: d.code,
        errorCode: mapped.problem.code,
        reason: mapped.reason
      })
      throw mapped.problem
    }
  }

  return {
    async readAll (
      env: Environment,
      def: TemplateDefinition,
      parameters: Record<string, unknown>,
      context: Record<string, unknown>,
      maxRows: number,
      feed?: DatasetFeed
    ): Promise<{ datasets: DatasetValues, rowCount: number }> {
      const list = def.datasets ?? []
      const datasets: DatasetValues = {}
      if (list.length === 0) return { datasets, rowCount: 0 }
      const budget: RowBudget = { limit: maxRows, used: 0 }
      const bytes = byteBudget(maxBytes)
      const results = await Promise.all(
        list.map(async (d) => {
          const spill = feed === undefined || d.cardinality !== 'multiple'
            ? undefined
            : {
                above: feed.above,
                batch: feed.batch,
                push: (rows: Array<Record<string, unknown>>) => feed.rows(d.code, rows)
              }
          let r: StatementResult
          try {
            r = await run(env, def, d, parameters, context, budget, bytes, spill)
          } catch (err) {
            throw err instanceof ByteLimitExceeded ? byteProblem(err, env, d, 'RENDER_LIMIT_EXCEEDED') : err
          }
          if (r.exceeded) {
            throw problem(
              'RENDER_LIMIT_EXCEEDED',
              `The datasets return more than ${maxRows} rows in all (row limit ${maxRows})`
            )
          }
          return r
        })
      )
      list.forEach((d, i) => {
        const { rows, spilled } = results[i]!
        if (spilled) return
        // A `required` single dataset with no row would render blanks ("Please pay by  quoting ."):
        // the render fails instead, naming the dataset (docs/api.md).
        if (d.cardinality === 'single' && d.required === true && rows.length === 0) {
          const failure = {
            environment: env.key,
            dataset: d.code,
            errorCode: 'DATASET_FAILED',
            reason: 'REQUIRED_ROW_MISSING'
          }
          options.onError?.(failure)
          throw problem('DATASET_FAILED', `Dataset "${d.code}" is required and returned no row for these parameters`, {
            errors: { [d.code]: ['required: the query returned no row'] }
          })
        }
        datasets[d.code] = d.cardinality === 'single' ? (rows[0] ?? null) : rows
      })
      return { datasets, rowCount: budget.used }
    },

    async execute (
      env: Environment,
      def: TemplateDefinition,
      dataset: string,
      parameters: Record<string, unknown>,
      context: Record<string, unknown>,
      maxRows: number
    ): Promise<DatasetResult> {
      const d = def.datasets?.find((x) => x.code === dataset)
      if (d === undefined) throw problem('DATASET_NOT_FOUND', `Template "${def.code}" has no dataset "${dataset}"`)
      const started = performance.now()
      let r: StatementResult
      try {
        r = await run(env, def, d, parameters, context, { limit: d.cardinality === 'single' ? 1 : maxRows, used: 0 }, byteBudget(executeMaxBytes))
      } catch (err) {
        throw err instanceof ByteLimitExceeded ? byteProblem(err, env, d, 'DATASET_FAILED') : err
      }
      const columns =
        r.fields.length > 0
          ? describeColumns(r.fields, d.fields)
          : d.fields.map((f) => ({ name: f.name, type: f.type }))
      const rows = jsonRows(r.rows, r.fields)
      const truncated = d.cardinality === 'multiple' && r.exceeded
      return { columns, rows, rowCount: rows.length, truncated, elapsedMs: Math.round(performance.now() - started) }
    },

    poolCount: (): number => pools.size(),

    async close (): Promise<void> {
      await pools.close()
    }
  }
}
