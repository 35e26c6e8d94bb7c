// Piscina worker entry. Answers with a value, never a thrown error (custom error fields do not
// survive the thread hop), and transfers the output bytes instead of copying them.
import { Piscina } from 'piscina'
import { parentPort } from 'node:worker_threads'
import { render, toFailure as failure } from '../engine/render.js'
import { getCompiled, peekCompiled } from '../engine/template/cache.js'
import type { RenderInput, RenderResult, RenderSuccess } from '../engine/types.js'
import { ChunkSender, type OutputPort } from './chunk-sender.js'
import { receiveRows } from './receive-rows.js'
import type { RenderTaskInput, RenderTaskResult } from './task-protocol.js'

/** A result whose bytes' ArrayBuffer goes in the postMessage transfer list. */
class MovedResult {
  private readonly result: RenderSuccess
  constructor (result: RenderSuccess) { this.result = result }
  get [Piscina.transferableSymbol] (): ArrayBufferLike[] { return [this.result.bytes.buffer] }
  get [Piscina.valueSymbol] (): RenderSuccess { return this.result }
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
  if (compiled === undefined) {
    return {
      ok: false,
      code: 'NEED_DEFINITION',
      message: `worker has no compiled ${input.versionKey}`
    }
  }
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
