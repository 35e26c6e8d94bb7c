// Text in structure order, as a screen reader walking the structure tree gets it (issue 34):
// the tree's order and each marked-content sequence's glyph text from pdf.js (getStructTree,
// getTextContent with marked content), and, because pdf.js 5.6 ignores /ActualText, the
// ActualText spans of each sequence read from the decoded content streams (qpdf). A sequence
// reads as its ActualText spans when it has them; one that mixes spans with glyphs outside any
// span is refused (this reader does not order the two sources against each other).
import { execFileSync } from 'node:child_process'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import { withPdf } from './fixtures.js'

interface Node { type?: string, id?: string, children?: Node[] }
interface MarkItem { type: string, id?: string | null, tag?: string }
interface TextItem { str: string }
interface QpdfJson {
  pages: Array<{ contents: string[] }>
  qpdf: [unknown, Record<string, { stream?: { data?: string } }>]
}

/** Per page (in order), per MCID: the ActualText spans inside it, or 'mixed'. */
function actualTextByMcid (bytes: Uint8Array): Array<Map<number, string[] | 'mixed'>> {
  const q = withPdf(bytes, (file) => JSON.parse(execFileSync('qpdf', ['--json', '--json-key=pages', '--json-key=qpdf',
    '--json-stream-data=inline', '--decode-level=generalized', file], { encoding: 'utf8', maxBuffer: 1 << 30 })) as QpdfJson)
  return q.pages.map((page) => {
    const content = page.contents
      .map((ref) => Buffer.from(q.qpdf[1][`obj:${ref}`]?.stream?.data ?? '', 'base64').toString('latin1')).join('\n')
    const spans = new Map<number, string[]>()
    const plain = new Set<number>()
    const stack: Array<{ mcid?: number, actual?: boolean }> = []
    const tokens = new RegExp(String.raw`\/\w+\s*<<\s*\/MCID (\d+)\s*>>\s*BDC|` +
      String.raw`\/Span\s*<<\s*\/ActualText\s*<([0-9A-Fa-f]*)>\s*>>\s*BDC|BDC|BMC|EMC|T[jJ]\b`, 'g')
    for (const m of content.matchAll(tokens)) {
      const mcid = [...stack].reverse().find((s) => s.mcid !== undefined)?.mcid
      if (m[1] !== undefined) stack.push({ mcid: Number(m[1]) })
      else if (m[2] !== undefined) {
        stack.push({ actual: true })
        const text = Buffer.from(m[2].replace(/^feff/i, ''), 'hex').swap16().toString('utf16le')
        if (mcid !== undefined) spans.set(mcid, [...spans.get(mcid) ?? [], text])
      } else if (m[0] === 'EMC') stack.pop()
      else if (m[0] === 'BDC' || m[0] === 'BMC') stack.push({})
      else if (mcid !== undefined && !stack.some((s) => s.actual === true)) plain.add(mcid)
    }
    const out = new Map<number, string[] | 'mixed'>()
    for (const [mcid, list] of spans) out.set(mcid, plain.has(mcid) ? 'mixed' : list)
    return out
  })
}

/** The text of the structure tree in its order, one entry per marked-content sequence (pages in turn). */
export async function structureOrderText (bytes: Uint8Array): Promise<string[]> {
  const actual = actualTextByMcid(bytes)
  const pdf = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, verbosity: 0 }).promise
  const out: string[] = []
  try {
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n)
      const tree = (await page.getStructTree()) as Node | null
      const content = await page.getTextContent({ includeMarkedContent: true })
      const glyphs = new Map<string, string>()
      const stack: MarkItem[] = []
      for (const item of content.items as Array<TextItem | MarkItem>) {
        if ('str' in item) {
          const id = [...stack].reverse().find((m) => typeof m.id === 'string')?.id
          if (typeof id === 'string') glyphs.set(id, (glyphs.get(id) ?? '') + item.str)
        } else if (item.type === 'endMarkedContent') stack.pop()
        else stack.push(item)
      }
      const spans = actual[n - 1] ?? new Map<number, string[] | 'mixed'>()
      const walk = (node: Node): void => {
        if (node.type === 'content' && node.id !== undefined) {
          const mcid = Number(/_mc(\d+)$/.exec(node.id)?.[1])
          const a = spans.get(mcid)
          if (a === 'mixed') throw new Error(`page ${n}, MCID ${mcid}: ActualText spans mixed with plain glyphs`)
          const s = a !== undefined && a.length > 0 ? a.join('') : glyphs.get(node.id) ?? ''
          if (s !== '') out.push(s)
          return
        }
        for (const c of node.children ?? []) walk(c)
      }
      if (tree !== null) walk(tree)
    }
  } finally {
    await pdf.destroy()
  }
  return out
}
