// Worker side of streamed output (the protocol: output-protocol.ts; the main-thread side:
// pool/output-hub.ts). The worker holds what the writer produces up to `holdBytes`; past it, it
// copies the output into pieces of CHUNK_BYTES and transfers each on its parentPort, spending
// one credit per piece and, out of credit, blocking in Atomics.wait until the main thread
// gives one back, bounded by the render's time limit.
import { RenderError } from '../engine/errors.js'
import type { OutputSink } from '../engine/pdf/render-pdf.js'
import {
  CANCEL, CHUNK_BYTES, CREDIT_SLOT, OUTPUT_TAG, PRODUCED, WAITING, type OutputChannel, type OutputMessage
} from './output-protocol.js'

/** Where the worker posts its pieces: its parentPort (or, in tests, any port to the hub's thread). */
export interface OutputPort {
  postMessage (message: unknown, transferList?: readonly ArrayBuffer[]): void
}

/**
 * Worker side: the OutputSink the writer pushes into. `end()` returns the whole output when it
 * stayed within holdBytes (nothing was posted), else posts the last, partial piece.
 */
export class ChunkSender implements OutputSink {
  private readonly port: OutputPort
  private readonly token: number
  private readonly state: Int32Array
  private readonly deadline: number
  private readonly timeoutMs: number
  private readonly holdBytes: number
  /** The output so far while it is held; undefined once streaming. */
  private held: Uint8Array[] | undefined = []
  private heldBytes = 0
  private pages: number | undefined
  private piece = new Uint8Array(0)
  private used = 0

  constructor (channel: OutputChannel, port: OutputPort) {
    this.port = port
    this.token = channel.token
    this.state = new Int32Array(channel.state)
    this.timeoutMs = channel.timeoutMs
    this.holdBytes = channel.holdBytes
    this.deadline = performance.now() + channel.timeoutMs
  }

  count (n: number): void {
    if (this.held !== undefined) this.pages = n
    else this.port.postMessage({ [OUTPUT_TAG]: this.token, pages: n } satisfies OutputMessage)
  }

  write (chunk: Uint8Array): void {
    if (this.held === undefined) return this.copy(chunk)
    this.held.push(chunk)
    this.heldBytes += chunk.length
    if (this.heldBytes <= this.holdBytes) return
    // Past the hold: from now on the output streams, the count ahead of the first byte.
    const held = this.held
    this.held = undefined
    if (this.pages !== undefined) this.count(this.pages)
    for (const c of held) this.copy(c)
  }

  end (): Uint8Array | undefined {
    if (this.held !== undefined) {
      const held = this.held
      this.held = []
      return held.length === 1 ? held[0] : Buffer.concat(held, this.heldBytes)
    }
    if (this.used > 0) this.send()
    return undefined
  }

  private copy (chunk: Uint8Array): void {
    let at = 0
    while (at < chunk.length) {
      if (this.piece.length === 0) this.piece = new Uint8Array(CHUNK_BYTES)
      const n = Math.min(chunk.length - at, CHUNK_BYTES - this.used)
      this.piece.set(n === chunk.length ? chunk : chunk.subarray(at, at + n), this.used)
      this.used += n
      at += n
      if (this.used === CHUNK_BYTES) this.send()
    }
  }

  private send (): void {
    this.takeCredit()
    const buffer = this.piece.buffer
    Atomics.add(this.state, PRODUCED, 1)
    const message: OutputMessage = { [OUTPUT_TAG]: this.token, chunk: buffer, length: this.used }
    this.port.postMessage(message, [buffer])
    this.piece = new Uint8Array(0)
    this.used = 0
  }

  private takeCredit (): void {
    const s = this.state
    while (Atomics.load(s, CREDIT_SLOT) <= 0) {
      if (Atomics.load(s, CANCEL) !== 0) {
        throw new RenderError('RENDER_FAILED', 'the output stream was closed by its consumer')
      }
      const left = this.deadline - performance.now()
      if (left <= 0) {
        const message = `render took longer than ${this.timeoutMs} ms (waiting for the consumer)`
        throw new RenderError('RENDER_TIMEOUT', message)
      }
      Atomics.store(s, WAITING, 1)
      Atomics.wait(s, CREDIT_SLOT, 0, left)
      Atomics.store(s, WAITING, 0)
    }
    Atomics.sub(s, CREDIT_SLOT, 1)
  }
}
