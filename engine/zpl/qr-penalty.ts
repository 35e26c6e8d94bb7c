// The penalty of a masked QR matrix (ISO/IEC 18004, 7.8.3): the encoder keeps the mask with the
// lowest. N1 runs of five or more, N2 2×2 blocks, N3 finder-like 1:1:3:1:1 patterns with four light
// modules on one side (outside the symbol counts as light), N4 the dark share's distance from half.

const N1 = 3
const N2 = 3
const N3 = 40
const N4 = 10
const FINDER = [1, 0, 1, 1, 1, 0, 1]

/** Penalty of one line: modules m[start + i·step], i < size (a row has step 1, a column step size). */
function linePenalty (m: Uint8Array, start: number, step: number, size: number): number {
  let p = 0
  let run = 1
  for (let i = 1; i <= size; i++) {
    if (i < size && m[start + i * step] === m[start + (i - 1) * step]) { run++; continue }
    if (run >= 5) p += N1 + run - 5
    run = 1
  }
  const light = (i: number): boolean => i < 0 || i >= size || m[start + i * step] === 0
  for (let i = 0; i + 7 <= size; i++) {
    let match = true
    for (let k = 0; k < 7 && match; k++) match = m[start + (i + k) * step] === FINDER[k]
    if (!match) continue
    const before = light(i - 1) && light(i - 2) && light(i - 3) && light(i - 4)
    const after = light(i + 7) && light(i + 8) && light(i + 9) && light(i + 10)
    if (before || after) p += N3
  }
  return p
}

export function qrPenalty (m: Uint8Array, size: number): number {
  let p = 0
  for (let y = 0; y < size; y++) p += linePenalty(m, y * size, 1, size)
  for (let x = 0; x < size; x++) p += linePenalty(m, x, size, size)
  let dark = 0
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const k = y * size + x
      const c = m[k]
      dark += c ?? 0
      if (x + 1 < size && y + 1 < size && c === m[k + 1] && c === m[k + size] && c === m[k + size + 1]) p += N2
    }
  }
  return p + N4 * Math.floor(Math.abs(dark * 20 - size * size * 10) / (size * size))
}
