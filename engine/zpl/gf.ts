// A 1-bit picture as ZPL ^GF in compressed ASCII hex: run counts G–Y (1–19) and g–z (20–400)
// before a repeated hex digit, `,` for zeros to the row's end, `:` for the row above repeated.
// Shared by QR codes drawn as graphics (qr-graphic.ts) and image elements (image.ts).

const RUN_UNITS = 'GHIJKLMNOPQRSTUVWXY' // 1–19
const RUN_TWENTIES = 'ghijklmnopqrstuvwxyz' // 20, 40, … 400

function runCode (n: number): string {
  let out = ''
  let rest = n
  while (rest >= 20) {
    const t = Math.min(Math.floor(rest / 20), 20)
    out += RUN_TWENTIES.charAt(t - 1)
    rest -= t * 20
  }
  return rest > 0 ? out + RUN_UNITS.charAt(rest - 1) : out
}

/** One row's hex in compressed form. */
function compressRow (hex: string): string {
  const trimmed = hex.replace(/0+$/, '')
  let out = ''
  for (let i = 0; i < trimmed.length;) {
    let j = i
    while (j < trimmed.length && trimmed[j] === trimmed[i]) j++
    out += (j - i > 1 ? runCode(j - i) : '') + trimmed.charAt(i)
    i = j
  }
  return trimmed.length < hex.length ? out + ',' : out
}

/** `^GFA,…` of a width × height picture; `row(y, bits)` sets the row's bits (MSB first, 1 = black). */
export function gfGraphic (width: number, height: number, row: (y: number, bits: Uint8Array) => void): string {
  const rowBytes = Math.ceil(width / 8)
  const bits = new Uint8Array(rowBytes)
  let body = ''
  let previous = ''
  for (let y = 0; y < height; y++) {
    bits.fill(0)
    row(y, bits)
    const line = compressRow(Buffer.from(bits).toString('hex').toUpperCase())
    body += line === previous ? ':' : line
    previous = line
  }
  const total = rowBytes * height
  return `^GFA,${total},${total},${rowBytes},${body}`
}
