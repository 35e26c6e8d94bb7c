// The one deflate of every stream we compress (page content streams, render-pdf.ts; embedded
// files, associated-file.ts). zlib's defaults (windowBits 15, memLevel 8) allocate and clear
// ~256 KB of state per call, reported to V8 as external memory, whatever the input's size: a
// page's content is ~11-16 KB. A window of 2^wb bytes finds every match in an input of n bytes
// when 2^wb >= n + 262 (zlib's MIN_LOOKAHEAD), so sizing it to the input changes no match, only
// the 2-byte header; memLevel (hash table and block buffer) follows the window.
import { deflateSync } from 'node:zlib'

/** zlib's MIN_LOOKAHEAD: the farthest match is 2^windowBits - 262 bytes back. */
const LOOKAHEAD = 262

/** A zlib stream (RFC 1950) of `data`, deterministic for the same input and level. */
export function deflate (data: Uint8Array, level = 6): Buffer {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(data.length + LOOKAHEAD))))
  return deflateSync(data, { level, windowBits, memLevel: Math.max(1, windowBits - 7) })
}
