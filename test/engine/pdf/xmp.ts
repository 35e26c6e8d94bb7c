// The XMP packet of a rendered PDF, read by a real XML parser (libxml2's xmllint): well-formed or
// the test fails, and XPath over local names (namespaces checked separately where they matter).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The packet from `<?xpacket begin` to `<?xpacket end="w"?>` (pdfkit writes it uncompressed). */
export function xmpOf (pdf: Uint8Array): string {
  const b = Buffer.from(pdf)
  const start = b.indexOf('<?xpacket begin')
  const endTag = '<?xpacket end="w"?>'
  const end = b.indexOf(endTag, start)
  if (start < 0 || end < 0) throw new Error('no XMP packet')
  return b.subarray(start, end + endTag.length).toString('utf8')
}

/** xmllint's answer to `expr` (e.g. `count(//*[local-name()="schemas"])`); throws when not well-formed. */
export function xpath (xml: string, expr: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'xmp-'))
  try {
    const file = join(dir, 'xmp.xml')
    writeFileSync(file, xml)
    execFileSync('xmllint', ['--noout', file]) // not well-formed: throws, with libxml2's message
    return execFileSync('xmllint', ['--xpath', expr, file], { encoding: 'utf8' }).trim()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `//*[local-name()="name"]` under the RDF namespaces this packet uses. */
export const el = (name: string): string => `//*[local-name()="${name}"]`
