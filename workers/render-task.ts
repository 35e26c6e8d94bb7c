// Piscina worker entry. Answers with a value, never a thrown error (custom error fields do not
// survive the thread hop), and transfers the output bytes instead of copying them.
import { Piscina } from 'piscina'
import { RenderError, TemplateError } from './errors.js'
import { render } from './render.js'
import { getCompiled } from './template/cache.js'
import type { RenderInput, RenderResult, RenderSuccess } from './types.js'

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
    if (err instanceof RenderError) return { ok: false, code: err.code, message: err.message }
    if (err instanceof TemplateError) return { ok: false, code: 'RENDER_FAILED', message: err.message }
    // A bug, not a template problem: do not leak internals into the answer.
    return { ok: false, code: 'RENDER_FAILED', message: 'internal error while rendering' }
  }
}

export default async function renderTask (input: RenderInput): Promise<RenderResult> {
  const result = renderResult(input)
  if (!result.ok) return result
  let bytes = result.bytes
  // Small Buffers share Node's allocation pool (one ArrayBuffer of Buffer.poolSize bytes):
  // transferring that would detach it under other Buffers. Copy those (cheap, they are small).
  // A larger ArrayBuffer belongs to this render's output alone, even when the bytes are a view
  // of part of it (the ZPL writer's growing Buffer): move it whole rather than copy megabytes.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  if (!own && (bytes.buffer.byteLength <= Buffer.poolSize || !(bytes.buffer instanceof ArrayBuffer))) bytes = new Uint8Array(bytes)
  return Piscina.move(new MovedResult({ ...result, bytes }) as never) as unknown as RenderResult
}
