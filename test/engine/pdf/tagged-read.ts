// Reads a tagged PDF the way assistive technology does, with pdf.js (its per-page structure tree
// and its text content with marked content) and with qpdf (the objects pdf.js does not show).
import { execFileSync } from 'node:child_process'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import { withPdf } from './fixtures.js'

export interface TaggedRead {
  /** Text of the structure tree, in its order (pages in turn), one entry per marked-content sequence. */
  structureText: string[]
  /** Text outside any artifact, in content-stream order, one entry per marked-content sequence. */
  contentText: string[]
  /** Text drawn in no marked content at all, or in marked content the page's tree does not reference. */
  untagged: string[]
  /** Text inside artifacts. */
  artifacts: string[]
  /** Every Figure's /Alt ('' when missing). */
  figureAlts: string[]
  /** Every structure role met, in tree order. */
  roles: string[]
}

interface Node { role?: string, alt?: string, type?: string, id?: string, children?: Node[] }
interface MarkItem { type: string, id?: string | null, tag?: string }
interface TextItem { str: string }

export async function readTagged (bytes: Uint8Array): Promise<TaggedRead> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, verbosity: 0 }).promise
  const out: TaggedRead = { structureText: [], contentText: [], untagged: [], artifacts: [], figureAlts: [], roles: [] }
  try {
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n)
      const tree = (await page.getStructTree()) as Node | null
      const content = await page.getTextContent({ includeMarkedContent: true })
      // Text by marked-content id; the stack of open sequences (null: one without an id).
      const byId = new Map<string, string>()
      const stack: MarkItem[] = []
      for (const item of content.items as Array<TextItem | MarkItem>) {
        if ('str' in item) {
          if (item.str.trim() === '') continue
          if (stack.some((m) => m.tag === 'Artifact')) { out.artifacts.push(item.str); continue }
          const id = [...stack].reverse().find((m) => typeof m.id === 'string')?.id
          if (typeof id !== 'string') { out.untagged.push(item.str); continue }
          byId.set(id, (byId.get(id) ?? '') + item.str)
        } else if (item.type === 'endMarkedContent') {
          stack.pop()
        } else {
          stack.push(item)
          if (typeof item.id === 'string' && item.tag !== 'Artifact') byId.set(item.id, '')
        }
      }
      const referenced = new Set<string>()
      const walk = (node: Node): void => {
        if (node.type === 'content' && node.id !== undefined) {
          referenced.add(node.id)
          const s = byId.get(node.id)
          if (s !== undefined && s !== '') out.structureText.push(s)
          return
        }
        if (node.role !== undefined && node.role !== 'Root') out.roles.push(node.role)
        if (node.role === 'Figure') out.figureAlts.push(node.alt ?? '')
        for (const c of node.children ?? []) walk(c)
      }
      if (tree !== null) walk(tree)
      for (const [id, s] of byId) {
        if (s === '') continue
        out.contentText.push(s)
        if (!referenced.has(id)) out.untagged.push(s)
      }
    }
  } finally {
    await pdf.destroy()
  }
  return out
}

/** The PDF's objects as qpdf's JSON gives them: `obj:N 0 R` → value. */
export function pdfObjects (bytes: Uint8Array): Record<string, { value?: unknown, stream?: { dict: unknown } }> {
  return withPdf(bytes, (file) => {
    const json = execFileSync('qpdf', ['--json', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 1 << 30 })
    const q = (JSON.parse(json) as { qpdf: [unknown, Record<string, { value?: unknown }>] }).qpdf[1]
    return q
  })
}
