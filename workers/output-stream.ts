// Output streaming from a render worker to the pool's caller (RenderTaskOptions.stream).
// The worker holds what the writer produces up to `holdBytes`: a document that ends within
// that (most: an invoice is a few KB) goes back with the result, as if not streamed, so a
// small render pays nothing for the stream. Past it, the worker copies the output into pieces
// of CHUNK_BYTES and transfers each piece's ArrayBuffer on its parentPort, tagged with the
// render's token (Piscina hands a worker's own messages to the pool's 'message' event; one hub
// per pool routes them). No MessageChannel per render: creating and transferring ports cost
// ~5-10% of a small render's CPU (measured). Flow control is a credit counter in a
// SharedArrayBuffer: the worker spends one credit per piece and, out of credit, blocks in
// Atomics.wait until the main thread gives one back (after the consumer's onChunk promise for
// an earlier piece resolved), bounded by the render's time limit. So a slow consumer holds the
// render back instead of piling up bytes in either thread.
import { RenderError } from './errors.js'
import { deadlineError } from './deadline.js'
import type { CancelSignal } from './deadline.js'
import type { OutputSink } from './pdf/render-pdf.js'
import type { RenderStream } from './pool.js'
import type { RenderSuccess } from './types.js'

/** Size of each piece but the last. */
export const CHUNK_BYTES = 64 * 1024
/** Pieces the worker may produce ahead of the consumer's last resolved onChunk. */
export const CREDIT = 4
/** The member that marks a worker's output message (and carries its render's token). */
export const OUTPUT_TAG = 'svcOutput'

// Int32 slots of the shared state.
const CREDIT_SLOT = 0 // pieces the worker may still post
const CANCEL = 1 // 1: the consumer is gone or the render is over; the worker stops
const PRODUCED = 2 // pieces posted so far
const WAITING = 3 // 1 while the worker is blocked for credit
const SLOTS = 4

/** Travels with the task (structured clone: the SharedArrayBuffer is shared, not copied). */
export interface OutputChannel {
  /** Names this render's messages for the hub. */
  token: number
  state: SharedArrayBuffer
  /** The worker gives up waiting for credit after this long since the task started. */
  timeoutMs: number
  /** Output up to this many bytes is held and returned with the result instead of streamed. */
  holdBytes: number
}

type Message =
  | { [OUTPUT_TAG]: number, pages: number }
  | { [OUTPUT_TAG]: number, chunk: ArrayBuffer, length: number }

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
    else this.port.postMessage({ [OUTPUT_TAG]: this.token, pages: n } satisfies Message)
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
    const buffer = this.piece.buffer as ArrayBuffer
    Atomics.add(this.state, PRODUCED, 1)
    this.port.postMessage({ [OUTPUT_TAG]: this.token, chunk: buffer, length: this.used } satisfies Message, [buffer])
    this.piece = new Uint8Array(0)
    this.used = 0
  }

  private takeCredit (): void {
    const s = this.state
    while (Atomics.load(s, CREDIT_SLOT) <= 0) {
      if (Atomics.load(s, CANCEL) !== 0) throw new RenderError('RENDER_FAILED', 'the output stream was closed by its consumer')
      const left = this.deadline - performance.now()
      if (left <= 0) throw new RenderError('RENDER_TIMEOUT', `render took longer than ${this.timeoutMs} ms (waiting for the consumer)`)
      Atomics.store(s, WAITING, 1)
      Atomics.wait(s, CREDIT_SLOT, 0, left)
      Atomics.store(s, WAITING, 0)
    }
    Atomics.sub(s, CREDIT_SLOT, 1)
  }
}

/** Main-thread side of one streamed render. */
export interface OutputReceiver {
  /** Put in the task. */
  readonly channel: OutputChannel
  /** Pieces the worker has posted, and pieces whose onChunk has resolved. */
  produced (): number
  delivered (): number
  /** Whether the worker is blocked waiting for credit now. */
  waiting (): boolean
  /**
   * After the worker answered `ok`: a held output (nothing posted) goes to the consumer now,
   * its count first; a streamed one resolves once every piece went through onChunk. Rejects
   * with the consumer's error, or when `signal` aborts first.
   */
  complete (result: RenderSuccess, signal: CancelSignal): Promise<void>
  /** Releases a worker waiting for credit and stops routing its messages (idempotent). */
  close (): void
}

/** Routes the workers' output messages (one hub per pool) to the receivers of their renders. */
export interface OutputHub {
  /** For a worker's 'message' event: true when the message was output (routed or dropped). */
  dispatch (message: unknown): boolean
  /** A receiver for one render; `close()` it when the render is over. */
  open (stream: RenderStream, timeoutMs: number): OutputReceiver
}

export function createOutputHub (): OutputHub {
  const routes = new Map<number, (m: Message) => void>()
  let last = 0
  return {
    dispatch (message) {
      if (typeof message !== 'object' || message === null || !(OUTPUT_TAG in message)) return false
      const m = message as Message
      // A render that is over (timed out, consumer gone) drops late pieces.
      routes.get(m[OUTPUT_TAG])?.(m)
      return true
    },
    open (stream, timeoutMs) {
      const token = ++last
      const channel = { token, state: new SharedArrayBuffer(SLOTS * 4), timeoutMs, holdBytes: stream.holdBytes ?? 0 }
      const receiver = createReceiver(stream, channel, () => routes.delete(token))
      routes.set(token, receiver.receive)
      return receiver
    }
  }
}

type RoutedReceiver = OutputReceiver & { receive: (m: Message) => void }

function createReceiver (stream: RenderStream, channel: OutputChannel, unroute: () => void): RoutedReceiver {
  const state = new Int32Array(channel.state)
  Atomics.store(state, CREDIT_SLOT, CREDIT)
  const queue: Message[] = []
  let delivered = 0
  let pumping = false
  let failure: { error: unknown } | undefined
  let wake: (() => void) | undefined

  const close = (): void => {
    Atomics.store(state, CANCEL, 1)
    Atomics.notify(state, CREDIT_SLOT)
    unroute()
  }

  async function pump (): Promise<void> {
    pumping = true
    try {
      for (let m = queue.shift(); m !== undefined; m = queue.shift()) {
        if ('pages' in m) { stream.onPageCount?.(m.pages); continue }
        await stream.onChunk(Buffer.from(m.chunk, 0, m.length))
        delivered++
        Atomics.add(state, CREDIT_SLOT, 1)
        Atomics.notify(state, CREDIT_SLOT)
      }
    } catch (error) {
      // The consumer is gone: stop the worker rather than render for nobody.
      failure = { error }
      queue.length = 0
      close()
    } finally {
      pumping = false
      wake?.()
    }
  }

  async function drained (signal: CancelSignal): Promise<void> {
    const target = Atomics.load(state, PRODUCED)
    const settled = (): boolean => failure !== undefined || delivered >= target
    while (!settled()) {
      if (signal.aborted) throw deadlineError()
      await new Promise<void>((resolve) => {
        const done = (): void => { wake = undefined; signal.off('abort', done); resolve() }
        wake = done
        signal.once('abort', done)
      })
    }
    if (failure !== undefined) throw failure.error
  }

  return {
    channel,
    receive (m) {
      if (failure !== undefined) return
      queue.push(m)
      if (!pumping) void pump()
    },
    produced: () => Atomics.load(state, PRODUCED),
    delivered: () => delivered,
    waiting: () => Atomics.load(state, WAITING) === 1,
    async complete (result, signal) {
      if (Atomics.load(state, PRODUCED) > 0) return await drained(signal)
      // Held by the worker: the whole output came with the result.
      stream.onPageCount?.(result.format === 'zpl' ? result.labelCount : result.pageCount)
      if (result.bytes.byteLength > 0) await stream.onChunk(result.bytes as Buffer)
    },
    close
  }
}
