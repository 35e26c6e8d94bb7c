// The XMP metadata stream of a PDF/A or PDF/UA document: the pdfaid identification (PDF/A),
// pdfuaid:part (PDF/UA-1) and the same title, author, subject, producer, creator tool and dates
// as the Info dictionary (PDF/A requires them to agree), plus dc:language from the render's
// `context.language`. pdfaid, dc, xmp and pdf are predefined by PDF/A; pdfuaid and the parts an
// associated file brings (Factur-X's fx:) are not, so a PDF/A document declares them, all in
// one pdfaExtension:schemas Bag (xmp-schemas.ts). Without PDF/A no declaration is needed.
// The stream is written here (uncompressed, wrapped in the xpacket pdfkit uses) in place of
// pdfkit's endMetadata: its body (`_addInfo`) does not escape XML and leaves out ModifyDate and
// the language, and it encoded the whole packet with a TextEncoder, which its byte order mark
// made a two-byte string, UTF-8 encoded the slow way (~80 K instructions a render for 3.3 KB).
import { mapped } from '../lists.js'
import type { PdfA } from './pdf-options.js'
import { pdfDictOpen, pdfString } from './pdf-raw.js'
import { endStream } from './raw-stream.js'
import { extensionSchemas, PDFUA_PART, type XmpExtensionSchema, type XmpPart } from './xmp-schemas.js'

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
  if (pdfa !== null && all.length > 0) xmp += '\n' + declarations(all)
  for (const p of all) xmp += '\n' + p.description
  return xmp
}

/** The last declaration made and the schemas it declares (module constants: compared by identity). */
let declared: { schemas: XmpExtensionSchema[], text: string } | null = null

/** The pdfaExtension description of the parts' schemas: the same few sets in every document. */
function declarations (parts: readonly XmpPart[]): string {
  const last = declared
  if (last !== null && last.schemas.length === parts.length && last.schemas.every((s, i) => s === parts[i]!.schema)) {
    return last.text
  }
  const schemas = mapped(parts, (p) => p.schema)
  declared = { schemas, text: extensionSchemas(schemas) }
  return declared.text
}

// pdfkit's packet around the body, as it wrote it (its leading and trailing blanks trimmed).
const PACKET_HEAD = Buffer.from('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
  '            <x:xmpmeta xmlns:x="adobe:ns:meta/">\n' +
  '                <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n        ', 'utf8')
const PACKET_TAIL = Buffer.from('\n\n                </rdf:RDF>\n            </x:xmpmeta>\n        <?xpacket end="w"?>', 'utf8')
const METADATA = pdfDictOpen({ Type: 'Metadata', Subtype: 'XML' })

/** The packet's bytes: the body's UTF-8 between the fixed head and tail. */
function xmpPacket (body: string): Buffer {
  const b = Buffer.from(body, 'utf8')
  const out = Buffer.allocUnsafe(PACKET_HEAD.length + b.length + PACKET_TAIL.length)
  PACKET_HEAD.copy(out, 0)
  b.copy(out, PACKET_HEAD.length)
  PACKET_TAIL.copy(out, PACKET_HEAD.length + b.length)
  return out
}

interface MetadataDoc {
  endMetadata (): void
  ref (): unknown
  _root: { data: Record<string, unknown> }
}

/** Makes doc.end() write this XMP packet as the catalog's /Metadata (and /Lang, the same language). */
export function useXmp (
  doc: PDFKit.PDFDocument, ids: XmpIds, info: DocInfo, language: string | null, parts: readonly XmpPart[] = []
): void {
  const d = doc as unknown as MetadataDoc
  d.endMetadata = () => {
    const ref = d.ref()
    endStream(doc, ref, METADATA, xmpPacket(xmpBody(ids, info, language, parts)))
    d._root.data.Metadata = ref
  }
  if (language !== null) d._root.data.Lang = pdfString(language)
}
