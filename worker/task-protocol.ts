// What the render pool (pool/render-pool.ts, main thread) posts to a render worker
// (worker/render-task.ts) and what it answers, and the row feed's messages. Types only, so both
// sides import them and neither imports the other.
import type { MessagePort } from 'node:worker_threads'
import type { RenderInput, RenderResult, Row } from '../engine/types.js'
import type { OutputChannel } from './output-protocol.js'

/**
 * What the pool posts. Templates can carry fonts and images (megabytes of base64), so once a
 * version has compiled somewhere the pool leaves `definition` out instead of cloning it into
 * every task; a worker that lacks it answers NEED_DEFINITION and the pool sends it again.
 */
export type RenderTaskInput = Omit<RenderInput, 'definition'> & {
  definition?: string
  /** Datasets still being read arrive on this port before the render (row-feed.ts). */
  feed?: MessagePort
  /** Stream mode (output-stream.ts): output past the channel's holdBytes goes through it. */
  output?: OutputChannel
}

/** Internal answer between render-task and pool; never reaches callers of the pool. */
export interface NeedDefinition { ok: false, code: 'NEED_DEFINITION', message: string }
export type RenderTaskResult = RenderResult | NeedDefinition

/** A row feed's messages (pool/row-feed.ts sends, worker/receive-rows.ts takes). */
export type FeedMessage =
  | { dataset: string, rows: Row[] }
  | { dataset: string, value: Row | Row[] | null }
  | { end: true }
  | { abort: true }
