// Numbers as a content stream writes them (shared by the font faces and the canvas).

/** A number for a content stream: at most 2 decimals, no exponent. */
export function fmt (n: number): string {
  if (Number.isInteger(n)) return String(n)
  const r = Math.round(n * 100) / 100
  return String(r)
}
