// Pictures for `svc templates preview`: every label of a ZPL render as PNGs (zpl-renderer-js), every
// page of a PDF as PNGs (pdftoppm), and the labels as a PDF with one page per label at label size.
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import PDFDocument from 'pdfkit'
import type { TemplateDefinition } from '../../engine/template/definition.js'

const run = promisify(execFile)

/** A preview is for looking at: the renderer takes ~0.2 s per label, so a run stays bounded. */
export const MAX_PREVIEW_PICTURES = 500

type Label = NonNullable<TemplateDefinition['label']>

/**
 * One PNG per label (each `^XA … ^XZ`; copies of a label are not repeated); `first`: only that
 * many; `dpi`: the resolution the ZPL was rendered for (default: the template's own).
 */
export async function labelPngs (def: TemplateDefinition, zpl: string, first?: number,
  dpi?: number): Promise<Buffer[]> {
  let mod: typeof import('zpl-renderer-js')
  try {
    mod = await import('zpl-renderer-js')
  } catch {
    throw new Error('PNG and PDF previews of labels need the devDependency zpl-renderer-js, which is not installed: ' +
      'run `npm install --include=dev`')
  }
  const { api } = await mod.ready
  const label = def.label as Label
  // The renderer takes whole dots per millimetre: 6, 8, 12, 24 for 152, 203, 300, 600 dpi.
  const dpmm = Math.round((dpi ?? label.dpi ?? 203) / 25.4)
  const all = zpl.match(/\^XA[\s\S]*?\^XZ/gi) ?? []
  const labels = first === undefined ? all : all.slice(0, first)
  if (labels.length > MAX_PREVIEW_PICTURES) throw new Error(`the preview has ${labels.length} labels; at most ${MAX_PREVIEW_PICTURES} are drawn: preview fewer rows`)
  const out: Buffer[] = []
  for (const one of labels) out.push(Buffer.from(await api.zplToBase64Async(one, label.widthIn * 25.4, label.heightIn * 25.4, dpmm), 'base64'))
  return out
}

/** One PNG per page at 100 dpi (at most MAX_PREVIEW_PICTURES); `first`: only that many. */
export async function documentPngs (pdf: Uint8Array, first = MAX_PREVIEW_PICTURES): Promise<Buffer[]> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-preview-'))
  try {
    await writeFile(join(dir, 'doc.pdf'), pdf)
    try {
      await run('pdftoppm', ['-png', '-r', '100', '-l', String(Math.min(first, MAX_PREVIEW_PICTURES)), join(dir, 'doc.pdf'), join(dir, 'page')])
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error('PNG previews of documents need pdftoppm: apt-get install poppler-utils')
      }
      throw new Error(`pdftoppm failed: ${(err as Error).message}`)
    }
    // page-1.png … or page-01.png …: zero-padded to the page count, so name order is page order.
    const names = (await readdir(dir)).filter((n) => n.startsWith('page-') && n.endsWith('.png')).sort()
    return await Promise.all(names.map(async (n) => await readFile(join(dir, n))))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The label pictures as a PDF, one page of the label's size per label. */
export async function labelsPdf (def: TemplateDefinition, pngs: Buffer[]): Promise<Buffer> {
  const label = def.label as Label
  const size: [number, number] = [label.widthIn * 72, label.heightIn * 72]
  const doc = new PDFDocument({ size, margin: 0, autoFirstPage: false, info: { Title: `${def.code} (preview)` } })
  const chunks: Buffer[] = []
  doc.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise<void>((resolve, reject) => { doc.on('end', resolve); doc.on('error', reject) })
  for (const png of pngs) {
    doc.addPage({ size, margin: 0 })
    doc.image(png, 0, 0, { width: size[0], height: size[1] })
  }
  doc.end()
  await done
  return Buffer.concat(chunks)
}

/** `out-%d.png` -> out-1.png, out-2.png …; the one placeholder is required for several files. */
export function numbered (pattern: string, n: number): string {
  return pattern.replace('%d', String(n))
}
