// The modules of a QR symbol (ISO/IEC 18004, 7.7–7.9): finder, separator, timing and alignment
// patterns, the codewords placed in the zigzag, then per mask the data modules flipped and the
// format (and from version 7 the version) information written. Used by qr-matrix.ts.

export interface QrSymbol {
  size: number
  /** The finished matrix (1 = dark) with mask 0–7 and the format's error-correction bits. */
  withMask: (mask: number, formatLevel: number) => Uint8Array
}

function alignmentCentres (version: number, size: number): number[] {
  if (version === 1) return []
  const n = Math.floor(version / 7) + 2
  const step = Math.floor((version * 8 + n * 3 + 5) / (n * 4 - 4)) * 2
  const out = [6]
  for (let pos = size - 7; out.length < n; pos -= step) out.splice(1, 0, pos)
  return out
}

const MASKS: Array<(x: number, y: number) => boolean> = [
  (x, y) => (x + y) % 2 === 0,
  (_x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0
]

function formatBits (formatLevel: number, mask: number): number {
  const data = (formatLevel << 3) | mask
  let rem = data
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537)
  return ((data << 10) | rem) ^ 0x5412
}

function versionBits (version: number): number {
  let rem = version
  for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25)
  return (version << 12) | rem
}

export function drawSymbol (version: number, codewords: number[]): QrSymbol {
  const size = version * 4 + 17
  const modules = new Uint8Array(size * size)
  const isFunction = new Uint8Array(size * size)
  const set = (x: number, y: number, dark: boolean): void => {
    modules[y * size + x] = dark ? 1 : 0
    isFunction[y * size + x] = 1
  }
  for (let i = 0; i < size; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0) }
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]] as const) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx
        const y = cy + dy
        const d = Math.max(Math.abs(dx), Math.abs(dy))
        if (x >= 0 && x < size && y >= 0 && y < size) set(x, y, d !== 2 && d !== 4)
      }
    }
  }
  const centres = alignmentCentres(version, size)
  const last = centres.length - 1
  centres.forEach((cx, i) => centres.forEach((cy, j) => {
    if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1)
    }
  }))
  // Format areas reserved now (written per mask below), version information written once.
  const format = (bits: number): void => {
    const bit = (i: number): boolean => ((bits >>> i) & 1) !== 0
    for (let i = 0; i <= 5; i++) set(8, i, bit(i))
    set(8, 7, bit(6)); set(8, 8, bit(7)); set(7, 8, bit(8))
    for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i))
    for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i))
    for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i))
    set(8, size - 8, true)
  }
  format(0)
  if (version >= 7) {
    const bits = versionBits(version)
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) !== 0
      const a = size - 11 + (i % 3)
      const b = Math.floor(i / 3)
      set(a, b, dark); set(b, a, dark)
    }
  }
  // Codewords in the two-column zigzag from the bottom right, skipping the timing column.
  let i = 0
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5
    for (let vert = 0; vert < size; vert++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j
        const y = ((right + 1) & 2) === 0 ? size - 1 - vert : vert
        if (isFunction[y * size + x] === 0 && i < codewords.length * 8) {
          modules[y * size + x] = ((codewords[i >>> 3] ?? 0) >>> (7 - (i & 7))) & 1
          i++
        }
      }
    }
  }
  const base = modules.slice()
  return {
    size,
    withMask (mask, formatLevel) {
      const test = MASKS[mask] ?? ((x: number, y: number): boolean => (x + y) % 2 === 0)
      for (let y = 0; y < size; y++) {
        for (let x = 0; x < size; x++) {
          const k = y * size + x
          modules[k] = isFunction[k] === 0 && test(x, y) ? (base[k] ?? 0) ^ 1 : base[k] ?? 0
        }
      }
      format(formatBits(formatLevel, mask))
      return modules.slice()
    }
  }
}
