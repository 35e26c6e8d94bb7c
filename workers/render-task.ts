// Piscina worker entry. Answers with a value, never a thrown error (custom error fields do not
// survive the thread hop), and transfers the output bytes instead of copying them.
import { Piscina } from 'piscina'
import { RenderError, TemplateError, TemplateLimitError } from './errors.js'
import { parentPort, type MessagePort } from 'node:worker_threads'
import { ChunkSender, type OutputChannel, type OutputPort } from './output-stream.js'
import { render } from './render.js'
import { receiveRows } from './row-feed.js'
import { getCompiled, peekCompiled } from './template/cache.js'
import type { RenderFailure, RenderInput, RenderResult, RenderSuccess } from './types.js'

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

/** A result whose bytes' ArrayBuffer goes in the postMessage transfer list. */
class MovedResult {
  private readonly result: RenderSuccess
  constructor (result: RenderSuccess) { this.result = result }
  get [Piscina.transferableSymbol] (): ArrayBufferLike[] { return [this.result.bytes.buffer] }
  get [Piscina.valueSymbol] (): RenderSuccess { return this.result }
}

export function renderResult (input: RenderInput): RenderResult {
  try {
    const compiled = getCompiled(input.versionKey, input.definition)
    return render(compiled, input)
  } catch (err) {
    return failure(err)
  }
}

function failure (err: unknown): RenderFailure {
  if (err instanceof RenderError) return { ok: false, code: err.code, message: err.message }
  if (err instanceof TemplateLimitError) return { ok: false, code: 'RENDER_LIMIT_EXCEEDED', message: err.message }
  if (err instanceof TemplateError) return { ok: false, code: 'RENDER_FAILED', message: err.message }
  // A bug, not a template problem: do not leak internals into the answer.
  return { ok: false, code: 'RENDER_FAILED', message: 'internal error while rendering' }
}

function taskResult (input: RenderTaskInput): RenderTaskResult {
  let compiled
  try {
    compiled = input.definition === undefined
      ? peekCompiled(input.versionKey)
      : getCompiled(input.versionKey, input.definition)
  } catch (err) {
    return failure(err)
  }
  if (compiled === undefined) return { ok: false, code: 'NEED_DEFINITION', message: `worker has no compiled ${input.versionKey}` }
  try {
    if (input.output === undefined) return render(compiled, input as RenderInput)
    // Stream mode: the output comes back with the result when it stayed within the hold.
    const sender = new ChunkSender(input.output, parentPort as OutputPort)
    const result = render(compiled, input as RenderInput, sender)
    result.bytes = sender.end() ?? new Uint8Array(0)
    return result
  } catch (err) {
    return failure(err)
  }
}

export default async function renderTask (task: RenderTaskInput): Promise<RenderTaskResult> {
  let input = task
  if (task.feed !== undefined) {
    const fed = await receiveRows(task.feed)
    if (fed === undefined) return { ok: false, code: 'RENDER_FAILED', message: 'the render\'s rows were not delivered' }
    input = { ...task, feed: undefined, datasets: { ...task.datasets, ...fed } }
  }
  const result = taskResult(input)
  if (!result.ok) return result
  let bytes = result.bytes
  // Small Buffers share Node's allocation pool (one ArrayBuffer of Buffer.poolSize bytes):
  // transferring that would detach it under other Buffers. Copy those (cheap, they are small).
  // A larger ArrayBuffer belongs to this render's output alone, even when the bytes are a view
  // of part of it (the ZPL writer's growing Buffer): move it whole rather than copy megabytes.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  if (!own && (bytes.buffer.byteLength <= Buffer.poolSize || !(bytes.buffer instanceof ArrayBuffer))) {
    bytes = new Uint8Array(bytes)
  }
  return Piscina.move(new MovedResult({ ...result, bytes }) as never) as unknown as RenderResult
}
