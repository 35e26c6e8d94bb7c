// Where a render's bytes go (issue 15). A render streams its output (RenderStream); the first
// `bufferBytes` are held, and a document that ends within them is answered whole, as before
// (Content-Length, one group-committed row). Past that the output is handed to a sink opened
// then (the HTTP response, the document store, or both) and no longer held: each chunk waits
// for the sink, so a slow consumer holds the render back instead of piling up bytes.
// A sink that fails (a write refused, a lease lost) does not fail the render's stream: the
// rest is dropped and the outcome reports the sink's error (onChunk never rejects).
import { Readable } from 'node:stream'
import type { RenderStream } from '../../pool/render-pool.js'

export interface OutputSink {
  /** Resolves when the sink can take more; rejects when it failed for good. */
  write (chunk: Buffer): Promise<void>
}

export type Spooled =
  | { streamed: false, bytes: Buffer }
  | { streamed: true, outputBytes: number, sinkError: unknown }

export interface Spool {
  stream: RenderStream
  /** The count given by onPageCount (undefined before it came). */
  pageCount (): number | undefined
  /** After the render succeeded: the held bytes, or what went to the sink. */
  end (): Spooled
}

export function spool (bufferBytes: number, open: () => OutputSink | Promise<OutputSink>): Spool {
  let held: Buffer[] = []
  let heldBytes = 0
  let total = 0
  let sink: OutputSink | undefined
  let sinkError: unknown
  let pages: number | undefined

  async function toSink (chunk: Buffer): Promise<void> {
    if (sinkError !== undefined || sink === undefined) return
    try {
      await sink.write(chunk)
    } catch (err) {
      sinkError = err
    }
  }

  return {
    stream: {
      // The worker holds as much as this spool would: a document within it comes whole.
      holdBytes: bufferBytes,
      onPageCount: (n) => { pages = n },
      async onChunk (chunk) {
        total += chunk.length
        if (sink !== undefined) return await toSink(chunk)
        held.push(chunk)
        heldBytes += chunk.length
        if (heldBytes <= bufferBytes) return
        try {
          sink = await open()
        } catch (err) {
          sinkError = err
          sink = { write: async () => {} }
        }
        const backlog = held
        held = []
        heldBytes = 0
        for (const b of backlog) await toSink(b)
      }
    },
    pageCount: () => pages,
    end: () => sink === undefined
      ? {
          streamed: false,
          bytes: held.length === 1 && held[0] !== undefined
            ? held[0]
            : Buffer.concat(held, heldBytes)
        }
      : { streamed: true, outputBytes: total, sinkError }
  }
}

/** Several sinks fed the same chunks (the response and the document store); the slowest paces. */
export function teeSink (sinks: OutputSink[]): OutputSink {
  return { write: async (chunk) => { await Promise.all(sinks.map((s) => s.write(chunk))) } }
}

/**
 * A response body fed by a render. write() resolves when the socket took the chunk (or the
 * stream's small buffer has room); once the body is destroyed (the client went away, or the
 * render failed) writes are dropped: they resolve at once.
 */
export class ResponseBody extends Readable implements OutputSink {
  private wake: (() => void) | undefined

  override _read (): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  override _destroy (err: Error | null, callback: (error?: Error | null) => void): void {
    this._read()
    callback(err)
  }

  async write (chunk: Buffer): Promise<void> {
    if (this.destroyed) return
    if (this.push(chunk)) return
    await new Promise<void>((resolve) => { this.wake = resolve })
  }

  /** The render succeeded: end the body (the client sees a complete chunked transfer). */
  finish (): void { if (!this.destroyed) this.push(null) }
}
