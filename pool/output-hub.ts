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
import { deadlineError } from '../engine/deadline.js'
import type { CancelSignal } from '../engine/deadline.js'
import type { RenderSuccess } from '../engine/types.js'
import { CANCEL, CREDIT, CREDIT_SLOT, OUTPUT_TAG, PRODUCED, SLOTS, WAITING } from '../worker/output-protocol.js'
import type { OutputChannel, OutputMessage } from '../worker/output-protocol.js'

/** Where a streamed render's output goes, on the main thread (RenderTaskOptions.stream). */
export interface RenderStream {
  /** Called once, before the first chunk, with the document's page count (PDF; labels: label count).
   *  In stream mode the engine knows it before drawing (measuring pass), so `X-Page-Count` can be
   *  sent as a header ahead of the bytes. */
  onPageCount?: (pages: number) => void
  /** Called on the main thread, in order, with each piece of output (about 64 KiB each except the
   *  last). The pool lets the worker run at most a few chunks ahead of the promise returned:
   *  a slow consumer (socket, document store) holds the worker back instead of piling up bytes. */
  onChunk: (chunk: Buffer) => void | Promise<void>
  /** Output up to this many bytes is held by the worker: the count and then the whole output in
   *  one onChunk when the render ends (no per-piece traffic for a small document). Default 0. */
  holdBytes?: number
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
  const routes = new Map<number, (m: OutputMessage) => void>()
  let last = 0
  return {
    dispatch (message) {
      if (typeof message !== 'object' || message === null || !(OUTPUT_TAG in message)) return false
      const m = message as OutputMessage
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

type RoutedReceiver = OutputReceiver & { receive: (m: OutputMessage) => void }

function createReceiver (stream: RenderStream, channel: OutputChannel, unroute: () => void): RoutedReceiver {
  const state = new Int32Array(channel.state)
  Atomics.store(state, CREDIT_SLOT, CREDIT)
  const queue: OutputMessage[] = []
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
