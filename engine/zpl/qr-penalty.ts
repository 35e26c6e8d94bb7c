// The penalty of a masked QR matrix (ISO/IEC 18004, 7.8.3): the encoder keeps the mask with the
// lowest. N1 runs of five or more, N2 2×2 blocks, N3 finder-like 1:1:3:1:1 patterns with four light
// modules on one side (outside the symbol counts as light), N4 the dark share's distance from half.
// Eight evaluations per symbol make this the encoder's hot loop: plain index arithmetic, no closures.

const N1 = 3
const N2 = 3
const N3 = 40
const N4 = 10

/** Penalty of one line: modules m[start + i·step], i < size (a row has step 1, a column step size). */
function linePenalty (m: Uint8Array, start: number, step: number, size: number): number {
  let p = 0
  let run = 1
  let prev = m[start]
  for (let i = 1; i < size; i++) {
    const c = m[start + i * step]
    if (c === prev) { run++; continue }
    if (run >= 5) p += N1 + run - 5
    run = 1
    prev = c
  }
  if (run >= 5) p += N1 + run - 5
  // 1011101 at i..i+6 with four light modules before (i-4..i-1) or after (i+7..i+10).
  for (let i = 0; i + 7 <= size; i++) {
    const at = start + i * step
    if (m[at] !== 1 || m[at + step] !== 0 || m[at + 2 * step] !== 1 || m[at + 3 * step] !== 1 ||
      m[at + 4 * step] !== 1 || m[at + 5 * step] !== 0 || m[at + 6 * step] !== 1) continue
    let before = true
    for (let k = i - 4; k < i && before; k++) before = k < 0 || m[start + k * step] === 0
    let after = true
    for (let k = i + 7; k < i + 11 && after; k++) after = k >= size || m[start + k * step] === 0
    if (before || after) p += N3
  }
  return p
}

export function qrPenalty (m: Uint8Array, size: number): number {
  let p = 0
  for (let y = 0; y < size; y++) p += linePenalty(m, y * size, 1, size)
  for (let x = 0; x < size; x++) p += linePenalty(m, x, size, size)
  let dark = 0
  for (let k = 0; k < size * size; k++) dark += m[k] ?? 0
  for (let y = 0; y + 1 < size; y++) {
    for (let x = 0, k = y * size; x + 1 < size; x++, k++) {
      const c = m[k]
      if (c === m[k + 1] && c === m[k + size] && c === m[k + size + 1]) p += N2
    }
  }
  return p + N4 * Math.floor(Math.abs(dark * 20 - size * size * 10) / (size * size))
}
