// Tagged PDF (issue 34): the structure tree read back as assistive technology reads it (pdf.js),
// the objects pdf.js does not show (qpdf), poppler's view of the demo invoice (a reviewed
// expectation file), and PDF/A validity of tagged documents (PDFBox Preflight).
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import type { RenderInput, RenderSuccess } from '../../../engine/types.js'
import { png2x1 } from '../../helpers/png.js'
import { renderExample } from './examples.js'
import { input, invoiceDefinition, invoiceHeader, invoiceLines, withPdf } from './fixtures.js'
import { pdfObjects, readTagged } from './tagged-read.js'

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..')
const squash = (xs: string[]): string[] => xs.map((s) => s.replace(/\s+/g, ''))

const LINES = invoiceLines(150)

/** Headings, columns, a grouped table over pages, a figure of each kind, decoration; header and footer. */
function statement (pdf?: unknown): Record<string, unknown> {
  return {
    ...(pdf !== undefined ? { pdf } : {}),
    info: { title: 'Statement' },
    styles: { title: { font: 'Helvetica-Bold', size: 16 }, sub: { font: 'Helvetica-Bold', size: 12, heading: 2 } },
    pageHeader: [{ text: 'ACME statement' }, { line: {} }],
    pageFooter: [{ text: 'Page {{ page }} of {{ pages }}', align: 'center' }],
    reportHeader: [{ text: 'Statement for {{ header.customer_name }}', style: 'title' }],
    body: [
      { text: 'Summary', style: 'sub' },
      { text: 'Notes', heading: 3 },
      {
        columns: [
          { items: [{ text: 'Left one' }, { text: 'Left two' }] },
          { items: [{ text: 'Right one' }, { image: { asset: 'logo', width: 40, alt: 'Logo of {{ header.company }}' } }] }
        ]
      },
      { rect: { height: 4, fill: '#cccccc' } },
      { spacer: 6 },
      {
        table: {
          rows: 'lines',
          zebra: '#f2f2f2',
          headerFill: '#dddddd',
          lineColor: '#cccccc',
          groupBy: '{{ row.region }}',
          groupHeader: [{ text: 'Region {{ row.region }}' }],
          groupFooter: [{ text: '{{ row.region }} done' }, { line: {} }],
          columns: [
            { header: 'SKU', value: '{{ row.sku }}', width: 70 },
            { header: 'Item', value: '{{ row.description }}' },
            { header: 'Amount', value: '{{ row.amount }}', width: 60, align: 'right' }
          ]
        }
      },
      { barcode: { type: 'code128', value: '{{ header.number }}', height: 20 } }
    ],
    summary: [{ text: 'End of statement' }]
  }
}

/** The statement's text in the order the template gives it (page header and footer left out). */
function statementOrder (): string[] {
  const rows = (region: string): string[] => LINES.filter((l) => l.region === region)
    .flatMap((l) => [String(l.sku), String(l.description), String(l.amount)])
  return [
    'Statement for Globex Corporation', 'Summary', 'Notes', 'Left one', 'Left two', 'Right one',
    'SKU', 'Item', 'Amount',
    'Region North', ...rows('North'), 'North done',
    'Region South', ...rows('South'), 'South done',
    'End of statement'
  ]
}

function renderStatement (pdf?: unknown): RenderSuccess {
  const logo = png2x1(2, Buffer.from([0, 255, 0, 0, 0, 0, 255]))
  const def = invoiceDefinition(statement(pdf), { images: { logo: { data: logo } } })
  const task: RenderInput = { ...input(def, { header: invoiceHeader, lines: LINES }), context: { language: 'en_GB' } }
  return renderPdf(compileDocument(def.document, def), task)
}

test('every example template: every text run is tagged content the structure tree references, or an ' +
  'artifact; the tree reads in the content\'s order; every Figure has alt text', async () => {
  const docs = [['invoice', 'invoice'], ['invoice', 'invoice-arabic'], ['sales-report', 'sales-report']]
  for (const [template, data] of docs) {
    const name = `${template} with ${data}`
    const r = await readTagged(renderExample(template!, data!).bytes)
    assert.deepEqual(r.untagged, [], name)
    assert.ok(r.structureText.length > 20, name)
    assert.deepEqual(r.structureText, r.contentText, name)
    assert.ok(r.figureAlts.every((a) => a.trim() !== ''), `${name}: ${r.figureAlts.join()}`)
    if (template === 'invoice') assert.equal(r.figureAlts.length, 1, `${name}: the barcode`)
    assert.ok(r.artifacts.some((s) => /Page 1 of/.test(s)), `${name}: page numbers are artifacts`)
  }
})

test('a generated document reads in the template\'s logical order: headings, columns, a grouped table over ' +
  'pages, figures with alt; header, footer and repeated table headers are artifacts', async () => {
  const doc = renderStatement()
  assert.ok(doc.pageCount >= 3, `${doc.pageCount} pages`)
  const r = await readTagged(doc.bytes)
  assert.deepEqual(r.untagged, [])
  assert.deepEqual(squash(r.structureText), squash(statementOrder()))
  assert.deepEqual(r.figureAlts, ['Logo of ACME Tools Ltd', `code128 barcode: ${invoiceHeader.number}`])
  const roles = r.roles.filter((x) => /^(H\d|P)$/.test(x)).slice(0, 3)
  assert.deepEqual(roles, ['H1', 'H2', 'H3'])
  for (const role of ['Document', 'Sect', 'Div', 'Table', 'THead', 'TBody', 'TR', 'TH', 'TD']) {
    assert.ok(r.roles.includes(role), role)
  }
  // On every later page: the page header, the repeated table header and the footer.
  const count = (s: string): number => r.artifacts.filter((a) => a === s).length
  assert.equal(count('ACME statement'), doc.pageCount)
  assert.equal(count('SKU'), doc.pageCount - 1)
  assert.equal(r.artifacts.filter((a) => /^Page \d+ of \d+$/.test(a)).length, doc.pageCount)
})

test('a page with more marked-content sequences than the MCIDs whose BDC text is kept (512) reads whole, in order', async () => {
  // 2-point rows of three cells: ~900 cells on the first page, MCIDs past 512 included.
  const rows = Array.from({ length: 400 }, (_, i) => ({ a: `a${i}`, b: `b${i}`, c: `c${i}` }))
  const doc = {
    defaultStyle: { font: 'Helvetica', size: 2 },
    body: [{
      table: {
        rows: 'rows',
        padding: 0,
        columns: [{ header: 'A', value: '{{ row.a }}' }, { header: 'B', value: '{{ row.b }}' }, { header: 'C', value: '{{ row.c }}' }]
      }
    }]
  }
  const def = invoiceDefinition(doc)
  const out = renderPdf(compileDocument(def.document, def), input(def, { rows }))
  const r = await readTagged(out.bytes)
  assert.deepEqual(r.untagged, [])
  assert.deepEqual(r.structureText, r.contentText)
  assert.deepEqual(r.structureText, ['A', 'B', 'C', ...rows.flatMap((x) => [x.a, x.b, x.c])])
  const mcids = Object.values(pdfObjects(out.bytes))
    .map((o) => (o.value as Record<string, unknown> | undefined)?.['/K'])
    .filter((k): k is number => typeof k === 'number')
  assert.ok(Math.max(...mcids) > 600, `a page has MCIDs past 600 (${Math.max(...mcids)})`)
})

type Dict = Record<string, unknown>
/** The structure elements and the catalog and pages, from qpdf's JSON. */
function structure (bytes: Uint8Array): { elems: Array<Dict & { id: string }>, catalog: Dict, pages: Dict[] } {
  const objs = pdfObjects(bytes)
  const dicts = Object.entries(objs).map(([k, v]): Dict & { id: string } =>
    ({ ...(v.value as Dict | undefined ?? {}), id: k.replace(/^obj:/, '') }))
  const trailer = objs.trailer?.value as Dict
  const catalog = dicts.find((d) => d.id === trailer['/Root'])!
  const elems = dicts.filter((d) => typeof d['/S'] === 'string' && d['/P'] !== undefined)
  const pages = dicts.filter((d) => d['/Type'] === '/Page')
  return { elems, catalog, pages }
}

test('from the PDF objects: TH cells carry /Scope, a table over three pages is one Table, /MarkInfo, /Lang, ' +
  '/ViewerPreferences /DisplayDocTitle, /Tabs /S and /StructParents on every page', () => {
  const doc = renderStatement()
  const { elems, catalog, pages } = structure(doc.bytes)
  const tables = elems.filter((e) => e['/S'] === '/Table')
  assert.equal(tables.length, 1)
  const ths = elems.filter((e) => e['/S'] === '/TH')
  assert.equal(ths.length, 3)
  for (const th of ths) assert.deepEqual(th['/A'], { '/O': '/Table', '/Scope': '/Column' })
  // The cells' pages: the one table's rows lie on at least three pages.
  const cellPages = new Set(elems.filter((e) => e['/S'] === '/TD').map((e) => e['/Pg']).filter((p) => p !== undefined))
  assert.ok(cellPages.size >= 3 && cellPages.size === doc.pageCount, `${cellPages.size} pages of cells`)
  assert.deepEqual(catalog['/MarkInfo'], { '/Marked': true })
  assert.equal(catalog['/Lang'], 'u:en-GB')
  assert.deepEqual(catalog['/ViewerPreferences'], { '/DisplayDocTitle': true })
  assert.equal(typeof catalog['/StructTreeRoot'], 'string')
  assert.equal(pages.length, doc.pageCount)
  for (const p of pages) {
    assert.equal(p['/Tabs'], '/S')
    assert.equal(typeof p['/StructParents'], 'number')
  }
  // Figures: alt text and a bounding box.
  const figures = elems.filter((e) => e['/S'] === '/Figure')
  assert.equal(figures.length, 2)
  for (const f of figures) {
    assert.match(String(f['/Alt']), /^u:./)
    assert.equal((f['/A'] as Dict)['/O'], '/Layout')
    assert.equal(((f['/A'] as Dict)['/BBox'] as unknown[]).length, 4)
  }
})

test('pdfinfo: Tagged: yes, and the structure of the demo invoice is the reviewed one ' +
  '(references/invoice-struct.txt)', () => {
  const bytes = renderExample('invoice', 'invoice').bytes
  const [info, struct] = withPdf(bytes, (file) => [
    execFileSync('pdfinfo', [file], { encoding: 'utf8' }),
    execFileSync('pdfinfo', ['-struct-text', file], { encoding: 'utf8' })
  ])
  assert.match(info, /^Tagged:\s+yes$/m)
  const expected = readFileSync(join(repoRoot, 'test', 'engine', 'pdf', 'references', 'invoice-struct.txt'), 'utf8')
  assert.equal(struct, expected)
})

test('a spacer and a page break draw nothing and mark nothing: no empty marked content, on either page', () => {
  const def = invoiceDefinition({
    info: { title: 'Breaks' },
    body: [{ text: 'One' }, { spacer: 12 }, { rect: { height: 4, fill: '#cccccc' } }, { pageBreak: true }, { text: 'Two' }]
  })
  const doc = renderPdf(compileDocument(def.document, def), input(def, {}))
  assert.equal(doc.pageCount, 2)
  const qdf = withPdf(doc.bytes, (file, dir) => {
    const out = join(dir, 'qdf.pdf')
    execFileSync('qpdf', ['--qdf', '--normalize-content=n', '--object-streams=disable', file, out])
    return readFileSync(out).toString('latin1')
  })
  // The rect is still a layout artifact, with its fill inside; nothing opens and closes at once.
  assert.match(qdf, /\/Artifact<<\/Type\/Layout>>BDC\n[^E]*re f\nEMC\n/)
  assert.doesNotMatch(qdf, /BDC\nEMC\n/)
  assert.equal(qdf.match(/\/Artifact<<\/Type\/Layout>>BDC/g)?.length, 1)
})

test('document.pdf.tagged: false is untagged: no structure tree, no marked content, PDF 1.3', () => {
  const doc = renderStatement({ tagged: false })
  const raw = Buffer.from(doc.bytes).toString('latin1')
  assert.ok(raw.startsWith('%PDF-1.3'))
  assert.doesNotMatch(raw, /StructTreeRoot|MarkInfo|StructParents/)
  const info = withPdf(doc.bytes, (file) => execFileSync('pdfinfo', [file], { encoding: 'utf8' }))
  assert.match(info, /^Tagged:\s+no$/m)
})

test('PDF/A-1b stays PDF 1.4: tagged without /Tabs (PDF 1.5)', () => {
  const { pages, catalog } = structure(renderStatement({ standard: 'PDF/A-1b' }).bytes)
  assert.equal(typeof catalog['/StructTreeRoot'], 'string')
  for (const p of pages) assert.equal(p['/Tabs'], undefined)
})

const PREFLIGHT = resolve(repoRoot, '../shared/pdfa/preflight')
const run = promisify(execFile)

test('the tagged statement as PDF/A-2b and PDF/A-3b passes PDFBox Preflight', async () => {
  for (const part of [2, 3]) {
    const bytes = renderStatement({ standard: `PDF/A-${part}b` }).bytes
    const out = await withTemp(bytes, async (file) => (await run(PREFLIGHT, ['--part', String(part), file],
      { timeout: 120_000 })).stdout)
    assert.equal(out, `VALID PDF/A-${part}b (PDFBox Preflight, part ${part} rules)\n`)
  }
})

async function withTemp<T> (bytes: Uint8Array, fn: (file: string) => Promise<T>): Promise<T> {
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises')
  const dir = await mkdtemp(join((await import('node:os')).tmpdir(), 'tagged-'))
  try {
    const file = join(dir, 'doc.pdf')
    await writeFile(file, bytes)
    return await fn(file)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
