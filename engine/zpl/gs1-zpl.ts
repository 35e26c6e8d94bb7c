// GS1 element strings as ZPL field data, FNC1 written explicitly (firmware defaults differ):
// ^BC (Code 128, no mode) takes invocation codes `>;` start C, `>5` to C, `>6` to B, `>8` FNC1,
// `><` a literal `>`; ^BX quality 200 takes the escape character set in its 7th parameter
// (`_` here), `_1` FNC1 and `__` a literal `_`. ^FH processing runs before the ^BX escapes
// (ZPL II Programming Guide, ^BX), so the field escaping of escape.ts (`_` → `_5F`) passes
// these through unchanged.
import { checkElementString, type Gs1Element } from '../gs1/element-string.js'

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9'

/** Tokens: FNC1 as `null`, then characters. */
function tokens (elements: Gs1Element[]): Array<string | null> {
  const out: Array<string | null> = [null]
  elements.forEach((e, k) => {
    for (const c of e.ai + e.value) out.push(c)
    if (e.variable && k < elements.length - 1) out.push(null)
  })
  return out
}

function digitRun (t: Array<string | null>, i: number): number {
  let j = i
  while (j < t.length && isDigit(t[j] ?? undefined)) j++
  return j - i
}

/** ^BC field data: subset C for digit pairs, B for the rest, `>8` for every FNC1. */
export function gs1128Zpl (text: string, where: string): string {
  const t = tokens(checkElementString(text, 'gs1-128', where))
  // Element strings start with FNC1 and AI digits, so the symbol starts in C.
  let out = '>;'
  let subsetC = true
  let i = 0
  while (i < t.length) {
    const c = t[i]
    if (c === null || c === undefined) {
      // A digit run after a separator: switch to C before the FNC1 (valid in every subset).
      const after = digitRun(t, i + 1)
      if (!subsetC && after >= 4 && after % 2 === 0) { out += '>5'; subsetC = true }
      out += '>8'
      i++
      continue
    }
    const run = digitRun(t, i)
    if (subsetC) {
      if (run >= 2) { out += c + (t[i + 1] ?? ''); i += 2; continue }
      out += '>6'
      subsetC = false
      continue
    }
    // In B: a run of four or more digits is worth switching to C (an odd one starts in B).
    if (run >= 4 && run % 2 === 0) { out += '>5'; subsetC = true; continue }
    out += c === '>' ? '><' : c
    i++
  }
  return out
}

/** ^BX (quality 200, escape `_`) field data: `_1` first and as separator. */
export function gs1DataMatrixZpl (text: string, where: string): string {
  let out = ''
  for (const c of tokens(checkElementString(text, 'gs1-datamatrix', where))) out += c === null ? '_1' : c === '_' ? '__' : c
  return out
}
