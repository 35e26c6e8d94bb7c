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
