// A render's input rows (issue 15): the datasets are read, then the engine renders them. When
// a `multiple` dataset passes SVC_DATASET_FEED_ABOVE rows, the render starts there and then with
// a row feed (pool/row-feed.ts): that dataset's further rows go to the worker in batches as
// they are read, with backpressure down to the data-source connection, and every other dataset
// follows when it is complete. Rows then exist once, in the worker. The row limit, the
// data-source checks and the statement time limit are those of every read (server/datasources).
// A read that fails aborts the feed (the task ends without rendering) and its problem is the
// answer; a render that ends first (busy, timed out) stops the read and its failure is the answer.
import type { RenderLimits, RenderResult } from '../../engine/types.js'
import type { RenderTaskOptions } from '../../pool/render-pool.js'
import { FeedClosed, rowFeedSender } from '../../pool/row-feed.js'
import type { RowFeedSender } from '../../pool/row-feed.js'
import type { RenderPool } from '../../pool/render-pool.js'
import type { Config } from '../config.js'
import type { DataSources } from '../datasources/index.js'
import type { ResolvedTemplate } from './resolution.js'
import type { Environment } from '../store/repos/environments.js'
import { engineProblem } from './outcome.js'
import { labelDpiOf } from './checks.js'

/** Rows per message to the worker. */
const FEED_BATCH = 500

type Values = Record<string, unknown>

/** What reading a render's rows and rendering them takes. */
export interface RowInputDeps {
  config: { render: Pick<Config['render'], 'feedRowsAbove'> }
  pool: Pick<RenderPool, 'render'>
  dataSources: Pick<DataSources, 'readAll'>
}

export async function readAndRender (
  deps: RowInputDeps,
  resolved: ResolvedTemplate,
  env: Environment,
  values: { parameters: Values, context: Values },
  limits: RenderLimits,
  task: RenderTaskOptions
): Promise<RenderResult> {
  const { versionKey, definitionJson: definition } = resolved
  const { parameters, context } = values
  // Labels: the request's context.labelDpi, else the environment's default, else as authored.
  const labelDpi = resolved.outputFormat === 'zpl' ? labelDpiOf(context, env) : undefined
  let feed: { sender: RowFeedSender, rendering: Promise<RenderResult> } | undefined
  const start = (): { sender: RowFeedSender, rendering: Promise<RenderResult> } => {
    const sender = rowFeedSender()
    const rendering = deps.pool.render({ versionKey, definition, parameters, context, datasets: {}, limits, labelDpi },
      { ...task, rows: sender.port })
    // However it ended, the feed is over: a read still waiting on it stops (FeedClosed).
    void rendering.finally(() => { sender.abort() })
    return { sender, rendering }
  }
  const above = deps.config.render.feedRowsAbove
  let read
  try {
    read = await deps.dataSources.readAll(env, resolved.definition, parameters, context, limits.maxRows, {
      above,
      batch: Math.max(1, Math.min(FEED_BATCH, above)),
      rows: (dataset, rows) => (feed ??= start()).sender.rows(dataset, rows)
    })
  } catch (err) {
    if (feed === undefined) throw err
    feed.sender.abort()
    const r = await feed.rendering
    if (err instanceof FeedClosed && !r.ok) throw engineProblem(r)
    throw err
  }
  if (feed === undefined) {
    const datasets = read.datasets
    return await deps.pool.render({ versionKey, definition, parameters, context, datasets, limits, labelDpi }, task)
  }
  for (const [code, value] of Object.entries(read.datasets)) feed.sender.value(code, value)
  feed.sender.end()
  return await feed.rendering
}
