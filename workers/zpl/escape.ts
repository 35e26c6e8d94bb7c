// Escaping of data inside ZPL field data. With `^FH_` before `^FD`, `_XX` is the byte 0xXX; we
// write `^`, `~`, the indicator and every byte outside printable ASCII that way, so a value can
// never end the field or start a command (`^XZ^XA`, `~JA`). Under `^CI28` the bytes are UTF-8.

const HEX = '0123456789ABCDEF'

function hexByte (indicator: string, b: number): string {
  return indicator + HEX[b >> 4] + HEX[b & 15]
}

/** True when `text` needs no escaping: the common case, checked without allocating. */
function isPlain (text: string, indicator: number): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x5e || c === 0x7e || c === indicator) return false
  }
  return true
}

/** Escapes a field-data value for `^FH<indicator>` (default `_`). The result is pure ASCII. */
export function escapeFieldData (text: string, indicator = '_'): string {
  const ind = indicator.charCodeAt(0)
  if (isPlain(text, ind)) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i)
    if (c >= 0x20 && c < 0x7f && c !== 0x5e && c !== 0x7e && c !== ind) { out += text[i]; continue }
    if (c < 0x80) { out += hexByte(indicator, c); continue }
    // UTF-8 encode the code point by hand: no Buffer per value.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1)
      if (lo >= 0xdc00 && lo <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00); i++ }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd // lone surrogate: replacement character
    if (c < 0x800) {
      out += hexByte(indicator, 0xc0 | (c >> 6)) + hexByte(indicator, 0x80 | (c & 63))
    } else if (c < 0x10000) {
      out += hexByte(indicator, 0xe0 | (c >> 12)) + hexByte(indicator, 0x80 | ((c >> 6) & 63)) + hexByte(indicator, 0x80 | (c & 63))
    } else {
      out += hexByte(indicator, 0xf0 | (c >> 18)) + hexByte(indicator, 0x80 | ((c >> 12) & 63)) +
        hexByte(indicator, 0x80 | ((c >> 6) & 63)) + hexByte(indicator, 0x80 | (c & 63))
    }
  }
  return out
}

// Outside field data (e.g. `^FO{{ row.x }},50` or `^BY{{ … }}`) hex escapes do not exist, so
// only characters that cannot form a command are allowed there.
const PARAMETER_SAFE = /^[A-Za-z0-9 .,+-]*$/

export function isSafeParameter (text: string): boolean {
  return PARAMETER_SAFE.test(text)
}
