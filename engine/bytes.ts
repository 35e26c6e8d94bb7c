// Output written into a growing Buffer, shared by the writers that build bytes themselves rather
// than strings: the label renderer (zpl/render.ts) and the structure objects of a tagged PDF
// (pdf/object-batch.ts).

/** Writes a string known to be ASCII at `at`; returns the end. The caller has made room. */
export function putAscii (buf: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) buf[at + i] = text.charCodeAt(i)
  return at + text.length
}

/** A larger buffer (at least `need` bytes, 1.5× the old) holding the first `used` bytes of `buf`. */
export function grown (buf: Buffer, used: number, need: number): Buffer {
  const next = Buffer.allocUnsafeSlow(Math.max(need, Math.ceil(buf.length * 1.5)))
  buf.copy(next, 0, 0, used)
  return next
}
