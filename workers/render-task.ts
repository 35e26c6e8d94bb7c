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
  // Small Buffers share Node's 8 KB allocation pool: transferring that ArrayBuffer would detach
  // it under other Buffers. Copy those (cheap, they are small); move everything else.
  if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) bytes = new Uint8Array(bytes)
  return Piscina.move(new MovedResult({ ...result, bytes }) as never) as unknown as RenderResult
}
