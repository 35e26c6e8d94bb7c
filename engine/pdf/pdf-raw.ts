// A value pdfkit writes into a dictionary as it is: PDFObject.convert turns any object that is
// not a plain object (here: by its toStringTag) into `${object}`. For PDF syntax the engine
// prepares once and writes in many documents (a simple font's Widths array and CharSet).
export class PdfRaw {
  private readonly text: string
  constructor (text: string) { this.text = text }
  get [Symbol.toStringTag] (): string { return 'PdfRaw' }
  toString (): string { return this.text }
}

/**
 * A PDF string `(…)` for a dictionary: pdfkit writes a String object as a string and a primitive
 * string as a name (`/…`), so the wrapper object is the point here.
 */
export function pdfString (s: string): object {
  // eslint-disable-next-line no-new-wrappers -- pdfkit tells a string from a name by the String wrapper
  return new String(s)
}

/** A text string as UTF-16BE hex with its byte-order mark, `<FEFF…>`: any Unicode, nothing to escape. */
export function utf16Hex (s: string): string {
  let hex = '<FEFF'
  for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')
  return hex + '>'
}

/** A value of a dictionary the engine writes as text (pdfDict): a name, a number, numbers, raw syntax. */
export type PdfDictValue = string | number | readonly number[] | PdfRaw

/**
 * The entries of a dictionary, `<<` and a line per key, as pdfkit's PDFObject.convert writes them
 * (names as `/name`, numbers rounded to 6 decimals), without the closing `>>`: the caller adds
 * what varies per document (object references) and closes it. For dictionaries whose text is
 * cached across documents (simple-face.ts), so that only the references are written per render.
 */
export function pdfDictOpen (entries: Record<string, PdfDictValue>): string {
  let out = '<<'
  for (const [key, v] of Object.entries(entries)) out += '\n/' + key + ' ' + pdfValue(v)
  return out
}

function pdfValue (v: PdfDictValue): string {
  if (typeof v === 'string') return '/' + v
  if (typeof v === 'number') return pdfkitNumber(v)
  if (v instanceof PdfRaw) return v.toString()
  return '[' + v.map(pdfkitNumber).join(' ') + ']'
}

/** pdfkit's PDFObject.number, as text. */
function pdfkitNumber (n: number): string {
  if (!(n > -1e21 && n < 1e21)) throw new Error(`unsupported number: ${n}`)
  return String(Math.round(n * 1e6) / 1e6)
}
