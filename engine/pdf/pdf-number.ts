// Numbers as a content stream writes them (shared by the font faces and the canvas).

/** A number for a content stream: at most 2 decimals, no exponent. */
export function fmt (n: number): string {
  if (Number.isInteger(n)) return String(n)
  const r = Math.round(n * 100) / 100
  return String(r)
}

const PAIRS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'))

/**
 * Object numbers from here on are converted by hand: V8's number-to-string cache holds at most
 * this many numbers, and the lower ones recur in every document a worker renders (a 1-page
 * invoice has ~250 objects), so the cache serves them without a new string.
 */
const CACHED = 16384

/**
 * The decimal text of an object number (a non-negative integer). Past CACHED, made without V8's
 * number-to-string cache: String(n) keeps every number it converts there until another takes its
 * slot, and a long document's object number is converted a few times close together and never
 * again, so each one outlived two young-generation collections in the cache and was moved to
 * the old generation (a tagged 100,000-row report: ~15 MB; its peak RSS 20% above untagged).
 */
export function decimal (n: number): string {
  if (n < CACHED) return String(n)
  let s = ''
  while (n >= 100) {
    const q = Math.floor(n / 100)
    s = PAIRS[n - q * 100]! + s
    n = q
  }
  return String(n) + s
}
