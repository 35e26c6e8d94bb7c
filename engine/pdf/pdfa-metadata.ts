// The XMP metadata stream of a PDF/A or PDF/UA document: the pdfaid identification (PDF/A),
// pdfuaid:part (PDF/UA-1) and the same title, author, subject, producer, creator tool and dates
// as the Info dictionary (PDF/A requires them to agree), plus dc:language from the render's
// `context.language`. pdfaid, dc, xmp and pdf are predefined by PDF/A; pdfuaid and the parts an
// associated file brings (Factur-X's fx:) are not, so a PDF/A document declares them, all in
// one pdfaExtension:schemas Bag (xmp-schemas.ts). Without PDF/A no declaration is needed.
// pdfkit writes the stream itself (uncompressed, wrapped in the xpacket) when the PDF version
// is above 1.3; its own body (`_addInfo`) is replaced, because it does not escape XML and
// leaves out ModifyDate and the language.
import { mapped } from '../lists.js'
import type { PdfA } from './pdf-options.js'
import { pdfString } from './pdf-raw.js'
import { extensionSchemas, PDFUA_PART, type XmpPart } from './xmp-schemas.js'

export interface DocInfo {
  Producer: string
  Creator: string
  Title?: string
  Author?: string
  Subject?: string
  CreationDate: Date
  ModDate: Date
}

/** `en_GB` → `en-GB`; null for anything that is not a BCP 47-like tag. */
export function bcp47 (language: unknown): string | null {
  if (typeof language !== 'string') return null
  const tag = language.replaceAll('_', '-')
  return /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag) ? tag : null
}

const esc = (s: string): string =>
  s.replace(/[&<>"]/g, (c) => c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;')
let lastDate: [number, string] = [NaN, '']
/** `2000-01-01T00:00:00Z`; the last one is kept (every document has the same fixed date). */
function xmpDate (d: Date): string {
  if (lastDate[0] !== d.getTime()) lastDate = [d.getTime(), d.toISOString().replace(/\.\d{3}Z$/, 'Z')]
  return lastDate[1]
}

/** What the packet identifies the document as: its PDF/A level (or null) and whether it is PDF/UA-1. */
export interface XmpIds { pdfa: PdfA | null, ua: boolean }

/** The rdf:Description elements of the document's XMP packet; `parts`: more schemas' properties. */
export function xmpBody (ids: XmpIds, info: DocInfo, language: string | null, parts: readonly XmpPart[] = []): string {
  const alt = (s: string): string => `<rdf:Alt><rdf:li xml:lang="x-default">${esc(s)}</rdf:li></rdf:Alt>`
  let dc = '<dc:format>application/pdf</dc:format>'
  if (info.Title !== undefined) dc += `<dc:title>${alt(info.Title)}</dc:title>`
  if (info.Author !== undefined) {
    dc += `<dc:creator><rdf:Seq><rdf:li>${esc(info.Author)}</rdf:li></rdf:Seq></dc:creator>`
  }
  if (info.Subject !== undefined) dc += `<dc:description>${alt(info.Subject)}</dc:description>`
  if (language !== null) dc += `<dc:language><rdf:Bag><rdf:li>${language}</rdf:li></rdf:Bag></dc:language>`
  const { pdfa } = ids
  const all: XmpPart[] = ids.ua ? [PDFUA_PART] : []
  for (const p of parts) all.push(p)
  // One string, its descriptions a line each (not an array of spreads joined: see lists.ts).
  let xmp = pdfa === null
    ? ''
    : '<rdf:Description rdf:about="" ' +
      `xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>${pdfa.part}</pdfaid:part>` +
      `<pdfaid:conformance>${pdfa.conformance}</pdfaid:conformance></rdf:Description>\n`
  xmp += '<rdf:Description rdf:about="" ' +
    `xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:CreateDate>${xmpDate(info.CreationDate)}</xmp:CreateDate>` +
    `<xmp:ModifyDate>${xmpDate(info.ModDate)}</xmp:ModifyDate>` +
    `<xmp:CreatorTool>${esc(info.Creator)}</xmp:CreatorTool></rdf:Description>\n` +
    '<rdf:Description rdf:about="" ' +
    `xmlns:pdf="http://ns.adobe.com/pdf/1.3/"><pdf:Producer>${esc(info.Producer)}</pdf:Producer></rdf:Description>\n` +
    `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">${dc}</rdf:Description>`
  if (pdfa !== null && all.length > 0) xmp += '\n' + extensionSchemas(mapped(all, (p) => p.schema))
  for (const p of all) xmp += '\n' + p.description
  return xmp
}

interface MetadataDoc { appendXML (xml: string): void, _addInfo (): void, _root: { data: Record<string, unknown> } }

/** Makes doc.end() write this XMP body (and the catalog's /Lang, the same language). */
export function useXmp (
  doc: PDFKit.PDFDocument, ids: XmpIds, info: DocInfo, language: string | null, parts: readonly XmpPart[] = []
): void {
  const d = doc as unknown as MetadataDoc
  d._addInfo = () => { d.appendXML(xmpBody(ids, info, language, parts)) }
  if (language !== null) d._root.data.Lang = pdfString(language)
}
