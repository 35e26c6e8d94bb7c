// GS1 element strings as ZPL field data, FNC1 written explicitly (firmware defaults differ):
// ^BC (Code 128, no mode) takes invocation codes `>;` start C, `>6` to B (in C), `>8` FNC1,
// `><` a literal `>`; ^BX quality 200 takes the escape character set in its 7th parameter:
// `#` here, which GS1 data cannot hold (it is outside character set 82), so `#1` is always FNC1
// and no data character needs doubling (renderers differ on `__`).
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

/** ^BC field data: subset C for digit pairs up to the first odd digit or letter, then B; `>8` for every FNC1. */
export function gs1128Zpl (text: string, where: string): string {
  const t = tokens(checkElementString(text, 'gs1-128', where))
  // Element strings start with FNC1 and AI digits, so the symbol starts in C.
  let out = '>;'
  let subsetC = true
  let i = 0
  while (i < t.length) {
    const c = t.at(i)
    if (c === null || c === undefined) { out += '>8'; i++; continue }
    const run = digitRun(t, i)
    if (subsetC) {
      if (run >= 2) { out += c + (t[i + 1] ?? ''); i += 2; continue }
      out += '>6'
      subsetC = false
      continue
    }
    // Once in B the symbol stays in B: the switch back to C (`>5`, value 99) is read as FNC4 by
    // the ZPL renderer the tests and previews use, and a wider symbol is better than a wrong one.
    out += c === '>' ? '><' : c
    i++
  }
  return out
}

/** The ^BX escape character for GS1 DataMatrix (its 7th parameter). */
export const DM_ESCAPE = '#'

/** ^BX (quality 200, escape `#`) field data: `#1` first and as separator. */
export function gs1DataMatrixZpl (text: string, where: string): string {
  let out = ''
  for (const c of tokens(checkElementString(text, 'gs1-datamatrix', where))) out += c === null ? `${DM_ESCAPE}1` : c
  return out
}
