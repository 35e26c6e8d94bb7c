// PDF/A documents (document.pdf.standard) checked with real tools: Apache PDFBox Preflight
// (../shared/pdfa/preflight, beside the clone), poppler's pdffonts, pdftotext, pdfinfo, pdfimages.
// Preflight starts a JVM per file (1-2 s): the files of a test are validated concurrently,
// one kitchen-sink template in each part, and every example template in each part.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import fc from 'fast-check'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { HOLD_PAGES, renderPdf, type OutputSink } from '../../../engine/pdf/render-pdf.js'
import { validateAndCompile } from '../../../engine/template/validate.js'
import type { RenderInput, RenderSuccess } from '../../../engine/types.js'
import { input, invoiceDefinition, invoiceHeader, invoiceLines, pdfText, withPdf } from './fixtures.js'
import { png2x1 } from '../../helpers/png.js'
import { itemAt } from '../../helpers/item-at.js'
import { preflight } from './preflight.js'

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..')

const STANDARDS = ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'] as const

/**
 * A 2×1 PNG (as features.test.ts builds one): by default RGBA, opaque red then red at half alpha;
 * `type` 3 (palette) or 4 (gray + alpha) with their own `raw` rows and extra chunks.
 */
const RGBA_ROW = Buffer.from([0, 255, 0, 0, 255, 255, 0, 0, 128])
function pngRgba (type = 6, raw = RGBA_ROW, extra: Array<[string, Buffer]> = []): string {
  return png2x1(type, raw, extra)
}

// Every WinAnsi character (codes 0x21-0xFF but DEL), in each of the 12 Latin standard fonts.
const WIN_ANSI_TEXT = [...Array(0xdf).keys()].map((i) => i + 0x21).filter((c) => c !== 0x7f && (c < 0x80 || c > 0x9f))
  .map((c) => String.fromCharCode(c)).join('') + '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ'
const LATIN_FONTS = ['Helvetica', 'Times-Roman', 'Courier'].flatMap((f) => f === 'Times-Roman'
  ? ['Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic']
  : [f, `${f}-Bold`, `${f}-Oblique`, `${f}-BoldOblique`])

const SCRIPTS = ['Łódź Hurt', 'Αθήνα Εμπορική', 'Москва Торговый', 'שלום עולם', 'شركة النور', '上海贸易有限公司']

/** Every standard font family, images with alpha, barcodes, non-Latin scripts, a table over pages. */
function kitchenSink (standard?: string): Record<string, unknown> {
  return {
    ...(standard !== undefined ? { pdf: { standard } } : {}),
    page: { size: 'A5', margins: 30 },
    info: { title: 'Invoice <42> & co', author: 'ACME Supplies Ltd', subject: 'Archive copy' },
    styles: {
      brand: { font: 'Helvetica-Bold', size: 16 },
      times: { font: 'Times-Roman', size: 10 },
      timesB: { font: 'Times-BoldItalic', size: 10 },
      mono: { font: 'Courier', size: 9 },
      obl: { font: 'Helvetica-Oblique', size: 9 },
      sym: { font: 'Symbol', size: 12 },
      ding: { font: 'ZapfDingbats', size: 12 }
    },
    defaultStyle: { font: 'Helvetica', size: 9, color: '#1f3a5f' },
    pageHeader: [{ text: 'ACME Supplies Ltd', style: 'obl', align: 'right' }],
    body: [
      { text: 'ACME Supplies Ltd', style: 'brand' },
      { text: 'Times: Müller & Söhne, “quoted” — €1.234,50', style: 'times' },
      { text: 'Times bold italic: Œuvre Ÿ', style: 'timesB' },
      { text: 'Courier: SKU-0001', style: 'mono' },
      { text: 'Controls: tab\tbell\u0007DEL\u007f (no glyph: not drawn)' },
      { text: 'abgd', style: 'sym' },
      { text: '34', style: 'ding' },
      ...SCRIPTS.map((s) => ({ text: s })),
      ...LATIN_FONTS.map((font) => ({ text: WIN_ANSI_TEXT, font, size: 7 })),
      { image: { asset: 'alpha', width: 40 } },
      { rect: { height: 8, fill: '#ff8800', stroke: '#000000' } },
      { barcode: { type: 'code128', value: 'INV-42', height: 25, text: true } },
      { barcode: { type: 'qr', value: 'https://example.com/inv/42', size: 60 } },
      {
        table: {
          rows: 'lines',
          zebra: '#f2f2f2',
          headerFill: '#dddddd',
          repeatHeader: true,
          columns: [
            { header: 'SKU', value: '{{ row.sku }}', width: 60 },
            { header: 'Item', value: '{{ row.description }}' },
            { header: 'Amount', value: '{{ row.amount }}', width: 50, align: 'right' }
          ]
        }
      }
    ],
    pageFooter: [{ text: 'Page {{ page }} of {{ pages }}', align: 'center' }]
  }
}

function render (document: unknown, language = 'en_GB'): RenderSuccess {
  const def = invoiceDefinition(document, { images: { alpha: { data: pngRgba() } } })
  const task = { ...input(def, { lines: invoiceLines(40) }), context: { language } }
  return renderPdf(compileDocument(def.document, def), task)
}

const examples = join(repoRoot, 'examples')
function renderExample (template: string, data: string, standard: string, parameters: RenderInput['parameters']): RenderSuccess {
  const def = JSON.parse(readFileSync(join(examples, 'templates', `${template}.json`), 'utf8')) as { document: Record<string, unknown> }
  def.document.pdf = { standard }
  const datasets = JSON.parse(readFileSync(join(examples, 'data', `${data}.json`), 'utf8')) as Record<string, unknown>
  return renderPdf(compileDocument(def.document, def as never), { ...input(def, datasets), parameters })
}

const pdffonts = (bytes: Uint8Array): string[] =>
  withPdf(bytes, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' })).split('\n').slice(2).filter((l) => l.trim() !== '')

test('one template as PDF/A-1b, 2b and 3b passes PDFBox Preflight --part 1, 2 and 3 with 0 errors', async () => {
  const docs = STANDARDS.map((s) => render(kitchenSink(s)))
  for (const r of docs) assert.ok(r.pageCount >= 2, 'the table goes over pages')
  const verdicts = await Promise.all(docs.map(async (r, i) => await preflight(r.bytes, i + 1)))
  verdicts.forEach((v, i) => assert.deepEqual(v, {
    code: 0,
    out: `VALID PDF/A-${i + 1}b (PDFBox Preflight, part ${i + 1} rules)\n`
  }))
  // The same template without the setting is not PDF/A (the validator does refuse what it should).
  const plain = await preflight(render(kitchenSink()).bytes, 1)
  assert.equal(plain.code, 1)
  assert.match(plain.out, /3\.1\.3 : .*FontFile entry is missing/)
})

test('every example template (the invoice in Latin and Arabic, the sales report) passes as PDF/A-1b, 2b and ' +
  '3b', async () => {
  const examplesOf = (standard: string): RenderSuccess[] => [
    renderExample('invoice', 'invoice', standard, { invoiceId: 1 }),
    renderExample('invoice', 'invoice-arabic', standard, { invoiceId: 1 }),
    renderExample('sales-report', 'sales-report', standard, { from: '2024-01-01', to: '2024-12-31' })
  ]
  const docs = STANDARDS.flatMap((standard, i) => examplesOf(standard).map((r): [RenderSuccess, number] => [r, i + 1]))
  const verdicts = await Promise.all(docs.map(async ([r, part]) => await preflight(r.bytes, part)))
  docs.forEach(([, part], i) => {
    assert.deepEqual(verdicts[i], {
      code: 0,
      out: `VALID PDF/A-${part}b (PDFBox Preflight, part ${part} ` +
      'rules)\n'
    }, `document ${i}`)
  })
  assert.ok(itemAt(docs, 2)[0].pageCount > 5)
})

test('a document longer than the held pages (counted, then drawn and streamed page by page) is PDF/A too', async () => {
  const doc = {
    pdf: { standard: 'PDF/A-1b' },
    page: { size: [200, 120], margins: 10 },
    body: [{
      table: {
        rows: 'lines',
        columns: [{
          header: 'SKU',
          value: '{{ row.sku }}',
          width: 60
        }, { header: 'Amount', value: '{{ row.amount }}' }]
      }
    }],
    pageFooter: [{ text: 'Page {{ page }} of {{ pages }}', align: 'center', size: 6 }]
  }
  const def = invoiceDefinition(doc)
  const chunks: Uint8Array[] = []
  const counts: number[] = []
  const sink: OutputSink = { count (n) { counts.push(n) }, write (chunk) { chunks.push(chunk) } }
  const task = input(def, { lines: invoiceLines(4 * (HOLD_PAGES + 20)) })
  const r = renderPdf(compileDocument(doc, def), task, sink)
  assert.ok(r.pageCount > HOLD_PAGES)
  assert.deepEqual(counts, [r.pageCount])
  assert.ok(chunks.length > 1)
  const bytes = Buffer.concat(chunks)
  assert.match(pdfText(bytes, r.pageCount), new RegExp(`Page ${r.pageCount} of ${r.pageCount}`))
  assert.deepEqual(await preflight(bytes, 1), { code: 0, out: 'VALID PDF/A-1b (PDFBox Preflight, part 1 rules)\n' })
})

test('generated documents (several scripts, RTL, tables over pages, images, barcodes) pass Preflight: fixed seed, 4 ' +
  'cases', async () => {
  const word = fc.oneof(
    fc.constantFrom(...SCRIPTS, 'Müller & Söhne', '€ 1.234,50', 'Ελλάδα', 'مرحبا بالعالم', 'עברית', '東京都', 'हिन्दी', 'ภาษาไทย'),
    fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzÀÉÎÕÜß0123456789') })
  )
  const text = fc.array(word, { minLength: 1, maxLength: 12 }).map((ws) => ws.join(' '))
  const element = fc.oneof(
    text.map((t) => ({ text: t })),
    fc.tuple(text, fc.constantFrom(...LATIN_FONTS)).map(([t, font]) => ({ text: t, font })),
    text.map((t) => ({ text: t, direction: 'rtl' })),
    fc.constant({ image: { asset: 'alpha', width: 30 } }),
    fc.constantFrom('code128', 'qr', 'datamatrix', 'ean13').map((type) => ({ barcode: { type, value: type === 'ean13' ? '400638133393' : 'INV-42', height: 20, size: 40 } })),
    // The 40 rows of render() go over several A6 pages; the item column's width varies.
    fc.integer({ min: 40, max: 120 }).map((width) => ({
      table: {
        rows: 'lines',
        repeatHeader: true,
        columns: [{
          header: 'SKU',
          value: '{{ row.sku }}',
          width
        }, { header: 'Item', value: '{{ row.description }}' }]
      }
    }))
  )
  const generated = fc.tuple(fc.array(element, { minLength: 3, maxLength: 10 }), fc.constantFrom(...STANDARDS))
  const documents = fc.sample(generated, { seed: 0x5eed32, numRuns: 4 })
  const verdicts = await Promise.all(documents.map(async ([body, standard]) => {
    const r = render({ pdf: { standard }, page: { size: 'A6', margins: 20 }, body, pageFooter: [{ text: 'Page {{ page }} of {{ pages }}', align: 'center' }] })
    return { standard, pages: r.pageCount, ...(await preflight(r.bytes, Number(standard[6]))) }
  }))
  for (const v of verdicts) assert.equal(v.code, 0, `${v.standard}, ${v.pages} pages: ${v.out}`)
  assert.ok(verdicts.some((v) => v.pages > 1))
})

test('every font is embedded and subset, and the text extracts whole', () => {
  // Untagged: poppler reorders a tagged document's /ActualText (already logical) a second time, so
  // right-to-left text would come out reversed (world-text.test.ts; actual-text.test.ts checks it).
  const r = render({ ...kitchenSink(), pdf: { standard: 'PDF/A-1b', tagged: false } })
  const rows = pdffonts(r.bytes)
  // Embedded and subset; the standard fonts are WinAnsi simple fonts (text by glyph name, no ToUnicode).
  for (const row of rows) assert.match(row, /(Type 1C\s+(WinAnsi|Custom)\s+yes\s+yes\s+no|Identity-H\s+yes\s+yes\s+yes)\s+\d+\s+0$/, row)
  const names = rows.map((row) => itemAt(row.split(/\s+/), 0).replace(/^[A-Z]{6}\+/, ''))
  for (const face of [
    'NimbusSans-Bold', 'NimbusSans-Regular', 'NimbusSans-Italic', 'NimbusRoman-Regular', 'NimbusRoman-BoldItalic',
    'NimbusMonoPS-Regular', 'StandardSymbolsPS', 'D050000L', 'NotoSansArabic-Regular', 'NotoSansCJKsc-Regular'
  ]) {
    assert.ok(names.includes(face), `${face} in ${names.join(', ')}`)
  }
  const text = pdfText(r.bytes, 1).replace(/[\u202a-\u202e]/g, '')
  for (const s of ['ACME Supplies Ltd', 'Müller & Söhne, “quoted” — ' +
      '€1.234,50', 'Œuvre Ÿ', 'Courier: SKU-0001', ...SCRIPTS]) assert.ok(text.includes(s), `${s} in\n${text}`)
  // The whole WinAnsi repertoire in each font, found again through the glyph names.
  const raw = withPdf(r.bytes, (file) => execFileSync('pdftotext', ['-raw', file, '-'], { encoding: 'utf8' })).replace(/\s+/g, '')
  // (no-break space and soft hyphen are WinAnsiEncoding's space and hyphen glyphs)
  const all = WIN_ANSI_TEXT.replace('\u00a0', '').replace('\u00ad', '-')
  assert.equal(raw.split(all).length - 1, 12, 'the repertoire in 12 fonts')
})

test('line breaks do not move: standard fonts are measured as before, embedded or not', () => {
  // Words of every length from a fixed generator, so a width off by a few per cent moves some break.
  let seed = 7
  const letters = 'etaoinshrdlucmfwypvbgkqjxzETAOINSHRDLU0123456789'
  const words = Array.from({ length: 300 }, () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    const n = 1 + (seed % 11)
    return Array.from({ length: n }, (_, i) => letters[(seed >> (i + 3)) % letters.length]).join('')
  })
  const para = words.join(' ')
  const doc = (standard?: string): Record<string, unknown> => ({
    ...(standard !== undefined ? { pdf: { standard } } : {}),
    page: { size: [420, 2400], margins: 20 },
    body: ['Helvetica', 'Helvetica-Bold', 'Times-Roman', 'Times-Italic', 'Courier'].flatMap((font) =>
      [130, 210, 380].map((width) => ({ text: para, font, size: 10, width })))
  })
  const lines = (r: RenderSuccess): string[] => pdfText(r.bytes).split('\n').map((l) => l.trim()).filter((l) => l !== '')
  const plain = lines(render(doc()))
  assert.ok(plain.length > 200)
  assert.deepEqual(lines(render(doc('PDF/A-2b'))), plain)
})

test('the XMP stream: UTF-8 with its byte order mark, /Length its byte count, no other keys', () => {
  const title = 'Łódź شركة النور 上海 <&>'
  const r = render({ ...kitchenSink('PDF/A-3b'), info: { title } })
  const raw = Buffer.from(r.bytes)
  const head = raw.indexOf('<<\n/Type /Metadata\n/Subtype /XML\n/Length ')
  assert.ok(head > 0, 'the metadata stream\'s dictionary')
  const dict = raw.subarray(head, raw.indexOf('>>', head) + 2).toString('latin1')
  assert.match(dict, /^<<\n\/Type \/Metadata\n\/Subtype \/XML\n\/Length \d+\n>>$/)
  const start = raw.indexOf('stream\n', head) + 'stream\n'.length
  const end = raw.indexOf('\nendstream', start)
  assert.equal(Number(/Length (\d+)/.exec(dict)![1]), end - start)
  const packet = raw.subarray(start, end)
  const bom = Buffer.from('<?xpacket begin="\xef\xbb\xbf"', 'latin1')
  assert.ok(packet.subarray(0, bom.length).equals(bom), 'the byte order mark as its UTF-8 bytes')
  assert.ok(packet.toString('utf8').endsWith('<?xpacket end="w"?>'))
  const meta = withPdf(r.bytes, (file) => execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' }))
  assert.ok(meta.includes('<rdf:li xml:lang="x-default">Łódź شركة النور 上海 &lt;&amp;&gt;</rdf:li>'), meta)
})

test('XMP metadata agrees with the Info dictionary; version header, output intent, file ID; same bytes twice', () => {
  const a = render(kitchenSink('PDF/A-2b'))
  const b = render(kitchenSink('PDF/A-2b'))
  assert.ok(Buffer.from(a.bytes).equals(Buffer.from(b.bytes)), 'byte-deterministic')
  const meta = withPdf(a.bytes, (file) => execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' }))
  for (const s of [
    '<pdfaid:part>2</pdfaid:part>', '<pdfaid:conformance>B</pdfaid:conformance>',
    '<rdf:li xml:lang="x-default">Invoice &lt;42&gt; &amp; co</rdf:li>',
    '<dc:creator><rdf:Seq><rdf:li>ACME Supplies Ltd</rdf:li></rdf:Seq></dc:creator>', '<rdf:li>en-GB</rdf:li>',
    '<xmp:CreateDate>2000-01-01T00:00:00Z</xmp:CreateDate>', '<xmp:ModifyDate>2000-01-01T00:00:00Z</xmp:ModifyDate>',
    '<pdf:Producer>svc</pdf:Producer>'
  ]) {
    assert.ok(meta.includes(s), `${s} in ${meta}`)
  }
  const info = withPdf(a.bytes, (file) => execFileSync('pdfinfo', [file], { encoding: 'utf8' }))
  assert.match(info, /^Title:\s+Invoice <42> & co$/m)
  assert.match(info, /^Author:\s+ACME Supplies Ltd$/m)
  assert.match(info, /^PDF version:\s+1\.7$/m)
  const raw = Buffer.from(a.bytes).toString('latin1')
  assert.match(raw, /\/OutputIntents \[\d+ 0 R\]/)
  assert.match(raw, /\/S \/GTS_PDFA1/)
  assert.match(raw, /trailer\n<<[^>]*\/ID \[<[0-9a-f]{32}> <[0-9a-f]{32}>\]/)
  assert.ok(Buffer.from(render(kitchenSink('PDF/A-1b')).bytes).subarray(0, 8).equals(Buffer.from('%PDF-1.4')))
})

test('images with alpha are flattened in PDF/A (no soft mask); plain documents keep their soft mask', () => {
  const list = (r: RenderSuccess): string[] => withPdf(r.bytes, (file) => execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }))
    .split('\n').slice(2).filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/)[2] ?? '')
  const doc = (standard?: string): Record<string, unknown> => ({ ...(standard !== undefined ? { pdf: { standard } } : {}), body: [{ image: { asset: 'alpha', width: 40 } }] })
  assert.deepEqual(list(render(doc())), ['image', 'smask'])
  assert.deepEqual(list(render(doc('PDF/A-3b'))), ['image'])
  // The half-transparent red pixel is now pink (red over white), the opaque one still red.
  const ppm = withPdf(render(doc('PDF/A-3b')).bytes, (file, dir) => {
    execFileSync('pdfimages', [file, join(dir, 'i')])
    return readFileSync(join(dir, 'i-000.ppm'))
  })
  // P6 header "P6\n2 1\n255\n", then the RGB bytes.
  assert.deepEqual([...ppm.subarray(ppm.length - 6)], [255, 0, 0, 255, 127, 127])
  // A palette PNG whose first entry (red) is half transparent, and gray with alpha: flattened too.
  const palette = pngRgba(3, Buffer.from([0, 0, 1]), [['PLTE', Buffer.from([255, 0, 0, 0, 0, 255])], ['tRNS', Buffer.from([128])]])
  const grayAlpha = pngRgba(4, Buffer.from([0, 0, 64, 100, 255]))
  /** The last `n` bytes of the image as pdfimages writes it (a ppm file: RGB samples after a header). */
  const samples = (data: string, ext: string, n: number): number[] => {
    const def = invoiceDefinition({ pdf: { standard: 'PDF/A-1b' }, body: [{ image: { asset: 'x', width: 20 } }] }, { images: { x: { data } } })
    const r = renderPdf(compileDocument(def.document, def), input(def, {}))
    assert.deepEqual(list(r), ['image'])
    const out = withPdf(r.bytes, (file, dir) => {
      execFileSync('pdfimages', [file, join(dir, 'i')])
      return readFileSync(join(dir, `i-000.${ext}`))
    })
    return [...out.subarray(out.length - n)]
  }
  assert.deepEqual(samples(palette, 'ppm', 6), [255, 127, 127, 0, 0, 255])
  assert.deepEqual(samples(grayAlpha, 'ppm', 6), [191, 191, 191, 100, 100, 100]) // (pdfimages writes gray as RGB too)
})

test('refused at publish, naming the JSON path: unknown standard, CMYK image, 16-bit PNG in PDF/A-1, restricted ' +
  'font, embedFonts false', () => {
  const tpl = (document: Record<string, unknown>, assets: Record<string, unknown> = {}): unknown =>
    invoiceDefinition(document, assets)
  const errors = (json: unknown): Array<{ path: string, message: string }> => {
    const r = validateAndCompile(json)
    if (r.ok) assert.fail('expected the template to be refused')
    return r.errors
  }
  assert.equal(errors(tpl({ pdf: { standard: 'PDF/A-4' }, body: [] }))[0]?.path, '/document/pdf/standard')
  assert.deepEqual(errors(tpl({ pdf: { standard: 'PDF/A-1b', embedFonts: false }, body: [] })).map((e) => e.path), ['/document/pdf/embedFonts'])
  // A CMYK JPEG: its colours are outside the sRGB output intent (a plain document takes it).
  const components = [1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0, 4, 0x11, 0]
  const sof = [0xff, 0xc0, 0x00, 0x14, 0x08, 0x00, 0x01, 0x00, 0x01, 0x04, ...components]
  const cmyk = { images: { scan: { data: Buffer.from([0xff, 0xd8, ...sof, 0xff, 0xd9]).toString('base64') } } }
  const withScan = (pdf?: unknown): unknown => tpl({ ...(pdf !== undefined ? { pdf } : {}), body: [{ image: { asset: 'scan', width: 10 } }] }, cmyk)
  assert.equal(validateAndCompile(withScan()).ok, true)
  const e = errors(withScan({ standard: 'PDF/A-2b' }))
  assert.deepEqual(e.map((x) => x.path), ['/assets/images/scan'])
  assert.match(itemAt(e, 0).message, /CMYK.*PDF\/A/)
  // A 16-bit PNG: PDF/A-1 is PDF 1.4, whose images have 8 bits per component at most.
  const png16 = Buffer.from(pngRgba(), 'base64')
  png16[8 + 8 + 8] = 16 // IHDR bit depth
  png16[8 + 8 + 9] = 2 // colour type RGB, opaque: passed through undecoded
  const deep = { images: { deep: { data: png16.toString('base64') } } }
  const withDeep = (standard: string): unknown => tpl({ pdf: { standard }, body: [{ image: { asset: 'deep', width: 10 } }] }, deep)
  assert.deepEqual(errors(withDeep('PDF/A-1b')).map((x) => x.path), ['/assets/images/deep'])
  assert.equal(validateAndCompile(withDeep('PDF/A-2b')).ok, true)
  // A font whose licence forbids embedding (OS/2 fsType 2, "restricted").
  const font = Buffer.from(readFileSync('/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf'))
  const tables = font.readUInt16BE(4)
  for (let i = 0; i < tables; i++) {
    const rec = 12 + i * 16
    if (font.toString('latin1', rec, rec + 4) === 'OS/2') font.writeUInt16BE(2, font.readUInt32BE(rec + 8) + 8)
  }
  const restricted = { fonts: { Restricted: { data: font.toString('base64') } } }
  const withFont = (pdf?: unknown): unknown => tpl({ ...(pdf !== undefined ? { pdf } : {}), body: [{ text: 'שלום', font: 'Restricted' }] }, restricted)
  assert.equal(validateAndCompile(withFont()).ok, true)
  assert.deepEqual(errors(withFont({ standard: 'PDF/A-1b' })).map((x) => x.path), ['/assets/fonts/Restricted'])
})

test('a character no font has: PDF/A-2b and 3b refuse the render (no .notdef glyph), PDF/A-1b warns as before', () => {
  const doc = (standard: string): Record<string, unknown> => ({
    pdf: { standard },
    body: [{
      text: 'Private \ue000 use'
    }]
  })
  const r1 = render(doc('PDF/A-1b'))
  assert.match(r1.warnings?.[0] ?? '', /U\+E000/)
  for (const s of ['PDF/A-2b', 'PDF/A-3b']) {
    assert.throws(() => render(doc(s)), (err: Error & { code?: string }) => err.code === 'RENDER_FAILED' && /PDF\/A-[23]b cannot show characters no font has: U\+E000/.test(err.message))
  }
})

test('untagged plain documents are unchanged (PDF 1.3, standard fonts not embedded, no metadata); embedFonts ' +
  'embeds them without PDF/A', () => {
  const doc = (pdf?: unknown): Record<string, unknown> => ({ ...(pdf !== undefined ? { pdf } : {}), body: [{ text: 'Invoice {{ header.number }}', font: 'Helvetica-Bold' }] })
  const renderDoc = (d: Record<string, unknown>): RenderSuccess => {
    const def = invoiceDefinition(d)
    return renderPdf(compileDocument(d, def), input(def, { header: invoiceHeader }))
  }
  const plain = renderDoc(doc({ tagged: false }))
  const raw = Buffer.from(plain.bytes).toString('latin1')
  assert.ok(raw.startsWith('%PDF-1.3'))
  assert.doesNotMatch(raw, /\/Metadata|\/OutputIntents/)
  assert.match(itemAt(pdffonts(plain.bytes), 0), /^Helvetica-Bold\s+Type 1\s+WinAnsi\s+no\s+no\s+no/)
  const embedded = renderDoc(doc({ embedFonts: true, tagged: false }))
  const raw2 = Buffer.from(embedded.bytes).toString('latin1')
  assert.ok(raw2.startsWith('%PDF-1.3'))
  assert.doesNotMatch(raw2, /\/Metadata|\/OutputIntents/)
  assert.match(itemAt(pdffonts(embedded.bytes), 0), /\+NimbusSans-Bold\s+Type 1C\s+WinAnsi\s+yes\s+yes\s+no/)
  assert.ok(pdfText(embedded.bytes).includes('Invoice INV-2026-0042'))
})
