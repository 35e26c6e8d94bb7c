// Output streaming from a render worker to the pool's caller (RenderTaskOptions.stream).
// The worker copies what the writer produces into pieces of CHUNK_BYTES and transfers each
// piece's ArrayBuffer over a MessagePort that came with the task. Flow control is a credit
// counter in a SharedArrayBuffer: the worker spends one credit per piece and, out of credit,
// blocks in Atomics.wait until the main thread gives one back (after the consumer's onChunk
// promise for an earlier piece resolved), bounded by the render's time limit. So a slow
// consumer holds the render back instead of piling up bytes in either thread.
import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { RenderError } from './errors.js'
import type { OutputSink } from './pdf/render-pdf.js'
import type { RenderStream } from './pool.js'

/** Size of each piece but the last. */
export const CHUNK_BYTES = 64 * 1024
/** Pieces the worker may produce ahead of the consumer's last resolved onChunk. */
export const CREDIT = 4

// Int32 slots of the shared state.
const CREDIT_SLOT = 0 // pieces the worker may still post
const CANCEL = 1 // 1: the consumer is gone or the render is over; the worker stops
const PRODUCED = 2 // pieces posted so far
const WAITING = 3 // 1 while the worker is blocked for credit
const SLOTS = 4

/** Travels with the task (the port in its transfer list). */
export interface OutputChannel {
  port: MessagePort
  state: SharedArrayBuffer
  /** The worker gives up waiting for credit after this long since the task started. */
  timeoutMs: number
}

type Message = { pages: number } | { chunk: ArrayBuffer, length: number }

/** Worker side: the OutputSink the writer pushes into. `end()` sends the last, partial piece. */
export class ChunkSender implements OutputSink {
  private readonly port: MessagePort
  private readonly state: Int32Array
  private readonly deadline: number
  private readonly timeoutMs: number
  private piece = new Uint8Array(CHUNK_BYTES)
  private used = 0

  constructor (channel: OutputChannel) {
    this.port = channel.port
    this.state = new Int32Array(channel.state)
    this.timeoutMs = channel.timeoutMs
    this.deadline = performance.now() + channel.timeoutMs
  }

  count (n: number): void { this.port.postMessage({ pages: n } satisfies Message) }

  write (chunk: Uint8Array): void {
    let at = 0
    while (at < chunk.length) {
      const n = Math.min(chunk.length - at, CHUNK_BYTES - this.used)
      this.piece.set(n === chunk.length ? chunk : chunk.subarray(at, at + n), this.used)
      this.used += n
      at += n
      if (this.used === CHUNK_BYTES) this.send()
    }
  }

  end (): void { if (this.used > 0) this.send() }

  private send (): void {
    this.takeCredit()
    const buffer = this.piece.buffer as ArrayBuffer
    Atomics.add(this.state, PRODUCED, 1)
    this.port.postMessage({ chunk: buffer, length: this.used } satisfies Message, [buffer])
    this.piece = new Uint8Array(CHUNK_BYTES)
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
  /** Put in the task; `transferList` goes with it. */
  readonly channel: OutputChannel
  readonly transferList: [MessagePort]
  /** Pieces the worker has posted, and pieces whose onChunk has resolved. */
  produced (): number
  delivered (): number
  /** Whether the worker is blocked waiting for credit now. */
  waiting (): boolean
  /**
   * After the worker answered `ok`: resolves once every piece it posted went through onChunk;
   * rejects with the consumer's error, or when `signal` aborts first.
   */
  drained (signal: AbortSignal): Promise<void>
  /** Releases a worker waiting for credit and closes the port (idempotent). */
  close (): void
}

export function createOutputReceiver (stream: RenderStream, timeoutMs: number): OutputReceiver {
  const { port1, port2 } = new MessageChannel()
  const shared = new SharedArrayBuffer(SLOTS * 4)
  const state = new Int32Array(shared)
  Atomics.store(state, CREDIT_SLOT, CREDIT)
  const queue: Message[] = []
  let delivered = 0
  let pumping = false
  let failure: { error: unknown } | undefined
  let wake: (() => void) | undefined

  const close = (): void => {
    Atomics.store(state, CANCEL, 1)
    Atomics.notify(state, CREDIT_SLOT)
    port1.close()
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

  port1.on('message', (m: Message) => {
    if (failure !== undefined) return
    queue.push(m)
    if (!pumping) void pump()
  })

  return {
    channel: { port: port2, state: shared, timeoutMs },
    transferList: [port2],
    produced: () => Atomics.load(state, PRODUCED),
    delivered: () => delivered,
    waiting: () => Atomics.load(state, WAITING) === 1,
    drained: async (signal) => {
      const target = Atomics.load(state, PRODUCED)
      const settled = (): boolean => failure !== undefined || delivered >= target
      while (!settled()) {
        signal.throwIfAborted()
        await new Promise<void>((resolve) => {
          const done = (): void => { wake = undefined; signal.removeEventListener('abort', done); resolve() }
          wake = done
          signal.addEventListener('abort', done)
        })
      }
      if (failure !== undefined) throw failure.error
    },
    close
  }
}
