// The sRGB output intent of a PDF/A document: every colour the engine writes is DeviceRGB
// (styles.ts `rg`/`RG`, RGB and gray images), which PDF/A allows only with an RGB output
// intent. The ICC profile is Debian's icc-profiles-free `sRGB.icc` (ICC v2.3: PDF/A-1 wants a
// version 2 profile; pdfkit's bundled v4-era file is not used). Read and deflated once per
// worker; each document writes the same ~3 KB stream, as it is (raw-stream.ts).
import { readFileSync } from 'node:fs'
import { deflate } from '../deflate.js'
import { PdfRaw, pdfDictOpen } from './pdf-raw.js'
import { endStream } from './raw-stream.js'

export const SRGB_PROFILE = '/usr/share/color/icc/sRGB.icc'

let profile: Buffer | null | undefined

/** The deflated profile, or null when icc-profiles-free is not installed. */
export function srgbProfile (): Buffer | null {
  if (profile === undefined) {
    try { profile = deflate(readFileSync(SRGB_PROFILE)) } catch { profile = null }
  }
  return profile
}

// The same strings in every document, written as they are (pdf-raw.ts).
const CONDITION = {
  OutputConditionIdentifier: new PdfRaw('(sRGB IEC61966-2.1)'),
  Info: new PdfRaw('(sRGB IEC61966-2.1)'),
  RegistryName: new PdfRaw('(http://www.color.org)')
}

/** The profile stream's dictionary but its /Length (raw-stream.ts): the profile is deflated already. */
const ICC = pdfDictOpen({ N: 3, Alternate: 'DeviceRGB', Filter: 'FlateDecode' })

interface Ref { data: Record<string, unknown>, end (chunk?: Uint8Array): void }
interface Doc { ref (data?: Record<string, unknown>): Ref, _root: { data: Record<string, unknown> } }

/** Adds /OutputIntents to the catalog (compile checked that the profile exists). */
export function addOutputIntent (doc: PDFKit.PDFDocument): void {
  const d = doc as unknown as Doc
  const icc = d.ref()
  endStream(doc, icc, ICC, srgbProfile()!)
  const intent = d.ref({ Type: 'OutputIntent', S: 'GTS_PDFA1', ...CONDITION, DestOutputProfile: icc })
  intent.end()
  d._root.data.OutputIntents = [intent]
}
