// The one deflate of the streams the engine compresses itself (page content streams,
// render-pdf.ts; embedded files, associated-file.ts; the ICC profile, output-intent.ts), so that
// the level is chosen in one place per kind of stream. zlib's window and memLevel stay at their
// defaults: sizing them to the input was measured and gained nothing (bench/RESULTS.md).
import { deflateSync } from 'node:zlib'

/** A zlib stream (RFC 1950) of `data`, deterministic for the same input and level. */
export function deflate (data: Uint8Array, level = 6): Buffer {
  return deflateSync(data, { level })
}
