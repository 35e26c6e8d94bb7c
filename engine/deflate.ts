// The zlib deflate of the streams the engine compresses itself: page content streams
// (pdf/render-pdf.ts), the ICC profile (pdf/output-intent.ts), image samples (pdf/images.ts) and
// ZPL's Z64 graphics (zpl/gf.ts); the level is chosen where each kind of stream is written. (The
// one other compressor, piece-deflate.ts, is for text generated from repeating templates, the
// CII XML, whose repeats its writer knows.) zlib's window and memLevel stay at their
// defaults: sizing them to the input was measured and gained nothing (bench/RESULTS.md).
//
// One zlib stream per level and thread (~270 KB of native memory each; the engine uses levels 4
// and 6), reset after each use, instead of deflateSync's new stream per call: deflateSync builds a
// Transform stream, allocates and frees zlib's ~270 KB of state and a 16 KB output buffer every
// time, which inside a render cost ~40 µs a call more than the compression itself
// (bench/RESULTS.md, 2026-11-27). Node has no public API for a reusable synchronous stream; the
// native handle's writeSync and reset are what zlib.deflateSync itself drives (lib/zlib.js,
// processChunkSync). Where they are missing this falls back to deflateSync, and deflate.test.ts
// fails if the reuse is not in use, so an upgrade cannot lose it silently.
import { constants, createDeflate, deflateSync } from 'node:zlib'

/** What this module uses of a zlib stream's native handle (Node 20 lib/zlib.js). */
interface NativeZlib {
  writeSync (flush: number, input: Uint8Array, inOff: number, inLen: number,
    out: Uint8Array, outOff: number, outLen: number): void
  reset (): void
  /** Called by writeSync when zlib fails (Node's own handler destroys the stream). */
  onerror: (message: string, errno: number) => void
}

interface Reusable {
  handle: NativeZlib
  /** [avail_out, avail_in] after writeSync. */
  state: Uint32Array
  /** What zlib reported during the current call, if it failed. */
  failure: Error | null
}

/** Streams by level (0–9); null where the handle's internals are not there. */
const streams: Array<Reusable | null | undefined> = []

/** Output space, shared by every call of the thread (deflate is synchronous). */
const OUT_SIZE = 64 * 1024
let out: Buffer | undefined

function reusable (level: number): Reusable | null {
  let z = streams[level]
  if (z === undefined) {
    const d = createDeflate({ level }) as unknown as { _handle?: Partial<NativeZlib>, _writeState?: unknown }
    const h = d._handle
    const state = d._writeState
    if (h !== undefined && typeof h.writeSync === 'function' && typeof h.reset === 'function' &&
      typeof h.onerror === 'function' && state instanceof Uint32Array) {
      const r: Reusable = { handle: h as NativeZlib, state, failure: null }
      // Deflating with a stream zlib has set up allocates nothing, so no failure is expected (and
      // none can be caused from outside: an invalid flush aborts the process). Node's own handler
      // would destroy the stream and throw later, after this call had returned a short stream.
      r.handle.onerror = (message, errno) => { r.failure = new Error(`zlib: ${message} (${errno})`) }
      z = r
    } else {
      z = null
    }
    streams[level] = z
  }
  return z
}

/** Whether deflate() reuses its streams (false: Node's internals changed; it calls deflateSync). */
export function deflateReuses (): boolean {
  return reusable(6) !== null
}

/**
 * A zlib stream (RFC 1950) of `data`, deterministic for the same input and level: at levels 1–9
 * the same bytes as deflateSync(data, { level }). (Level 0's stored blocks end where the output
 * space does, so past 16 KB they are cut elsewhere than deflateSync's; nothing here uses level 0.)
 */
export function deflate (data: Uint8Array, level = 6): Buffer {
  const z = reusable(level)
  if (z === null) return deflateSync(data, { level })
  const buf = out ??= Buffer.allocUnsafeSlow(OUT_SIZE)
  let full: Buffer[] | null = null
  let inOff = 0
  let inLen = data.byteLength
  try {
    for (;;) {
      z.handle.writeSync(constants.Z_FINISH, data, inOff, inLen, buf, 0, OUT_SIZE)
      if (z.failure !== null) {
        streams[level] = undefined // a new stream next time
        throw z.failure
      }
      const availOut = z.state[0]!
      const availIn = z.state[1]!
      inOff += inLen - availIn
      inLen = availIn
      // Room left in the output: the stream is finished (Z_FINISH writes until it is).
      if (availOut !== 0) return joinOutput(full, buf, OUT_SIZE - availOut)
      ;(full ??= []).push(Buffer.from(buf))
    }
  } finally {
    if (z.failure === null) z.handle.reset()
  }
}

/** The pieces written so far and the last one, copied into one buffer the caller owns. */
function joinOutput (full: Buffer[] | null, last: Buffer, n: number): Buffer {
  if (full === null) {
    const res = Buffer.allocUnsafe(n)
    last.copy(res, 0, 0, n)
    return res
  }
  full.push(last.subarray(0, n))
  return Buffer.concat(full)
}
