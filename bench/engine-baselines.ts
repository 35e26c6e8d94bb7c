// The same invoice drawn the obvious ways, for bench/engine.ts: plain pdfkit (new document per
// render, doc.text for every string, bufferPages for "Page X of Y") and pdfmake 0.3. They draw
// what examples/templates/invoice.json's page shows (lines with VAT, the VAT breakdown, the
// totals, payment text, barcode) — not its e-invoice: they are the plain invoice's peers.
import { createRequire } from 'node:module'
import bwipjs from 'bwip-js'
import PDFDocument from 'pdfkit'

type Row = Record<string, unknown>
export interface InvoiceData { header: Row, lines: Row[] }

const money = (v: unknown, cur: unknown): string =>
  new Intl.NumberFormat('en', { style: 'currency', currency: String(cur) }).format(Number(v))

/**
 * The VAT breakdown and totals the example invoice's page shows (the engine's `invoice.*`), as
 * a hand-written invoice would compute them: per category and rate, VAT on the category total.
 */
function vatRows (d: InvoiceData): Array<{ label: string, basis: number, vat: number }> {
  const by = new Map<string, { label: string, basis: number, rate: number }>()
  for (const r of d.lines) {
    const label = `${String(r.vat_category)} ${Number(r.vat_rate)}%`
    const e = by.get(label) ?? { label, basis: 0, rate: Number(r.vat_rate) }
    e.basis += Math.round(Number(r.amount) * 100)
    by.set(label, e)
  }
  return [...by.values()]
    .map((e) => ({ label: e.label, basis: e.basis / 100, vat: Math.round(e.basis * e.rate / 100) / 100 }))
}
const FOOTER = 'ACME Supplies GmbH · Dockstraße 1 · 20457 Hamburg · HRB 12345 · VAT ID DE123456789'
const PAY = (h: Row): string => `Please pay by ${String(h.due_on)} to IBAN DE89 3704 0044 0532 0130 00 (BIC ` +
  `COBADEFFXXX), quoting ${String(h.number)}.`

/** Bar and space widths of a Code 128 symbol, as bwip-js's raw encoder gives them. */
function code128 (text: string): number[] {
  const [symbol] = bwipjs.raw('code128', text, {}) as unknown as Array<{ sbs: number[] }>
  if (symbol === undefined) throw new Error(`bwip-js made no Code 128 symbol of ${text}`)
  return symbol.sbs
}

function collect (doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    doc.on('data', (c: Buffer) => chunks.push(c))
    doc.on('end', () => resolve(Buffer.concat(chunks)))
  })
}

/** Plain pdfkit, written the way its documentation shows. */
export async function plainPdfkit (d: InvoiceData): Promise<Buffer> {
  const h = d.header
  const doc = new PDFDocument({ size: 'A4', margins: { top: 40, left: 40, right: 40, bottom: 50 }, bufferPages: true })
  const done = collect(doc)
  const W = 595.28 - 80
  doc.font('Helvetica-Bold').fontSize(14).fillColor('#1f3a5f').text('ACME Supplies GmbH', 40, 40)
  doc.font('Helvetica').fontSize(8).fillColor('#555555')
    .text(`Invoice ${String(h.number)}`, 40, 44, { width: W, align: 'right' })
  doc.moveTo(40, 60).lineTo(40 + W, 60).strokeColor('#1f3a5f').stroke()
  doc.font('Helvetica-Bold').fontSize(18).fillColor('black').text(`Invoice ${String(h.number)}`, 40, 72)
  doc.font('Helvetica-Bold').fontSize(9).fillColor('#555555').text('From', 40, 105).text('Bill to', 300, 105)
  doc.font('Helvetica').fontSize(10).fillColor('black').text('ACME Supplies GmbH\nDockstraße 1\n20457 ' +
    'Hamburg\nGermany', 40, 117, { width: 250 })
  doc.fontSize(8).fillColor('#555555').text('VAT ID DE123456789', 40, 165)
  doc.font('Helvetica-Bold').fontSize(10).fillColor('black').text(String(h.customer_name), 300, 117, { width: 250 })
  doc.font('Helvetica').text(String(h.customer_address), 300, 129, { width: 250 })
  doc.fontSize(8).fillColor('#555555').text(`VAT ID ${String(h.customer_vat_id)}`, 300, 165)
  doc.font('Helvetica-Bold').fontSize(9).fillColor('#555555')
    .text('Issued', 40, 185).text('Delivered', 170, 185).text('Due', 300, 185).text('Amount due', 430, 185)
  doc.font('Helvetica').fontSize(10).fillColor('black')
    .text(String(h.issued_on), 40, 197).text(String(h.delivered_on), 170, 197).text(String(h.due_on), 300, 197)
  doc.font('Helvetica-Bold').fontSize(11).text(money(h.total, h.currency), 430, 197)
  // A width per column: heads and every row's cells have one entry per column (the '!' below).
  const cols = [22, 56, W - 22 - 56 - 52 - 66 - 44 - 72, 52, 66, 44, 72]
  const heads = ['#', 'SKU', 'Description', 'Qty', 'Unit price', 'VAT', 'Amount']
  const right = [true, false, false, true, true, true, true]
  let y = 225
  const header = (): void => {
    doc.rect(40, y, W, 18).fill('#1f3a5f')
    let x = 40
    doc.font('Helvetica-Bold').fontSize(10).fillColor('white')
    heads.forEach((t, i) => {
      doc.text(t, x + 3, y + 4, { width: cols[i]! - 6, align: right[i] ? 'right' : 'left' })
      x += cols[i]!
    })
    y += 18
  }
  header()
  d.lines.forEach((r, n) => {
    const cells = [
      String(r.line_no),
      String(r.sku),
      String(r.description),
      `${Number(r.qty)} ${String(r.unit)}`,
      money(r.unit_price, h.currency),
      `${String(r.vat_category)} ${Number(r.vat_rate)}%`,
      money(r.amount, h.currency)
    ]
    doc.font('Helvetica').fontSize(10)
    const rh = Math.max(...cells.map((c, i) => doc.heightOfString(c, { width: cols[i]! - 6 }))) + 6
    if (y + rh > 841.89 - 70) { doc.addPage(); y = 40; header() }
    if (n % 2 === 1) doc.rect(40, y, W, rh).fill('#f2f2f2')
    doc.fillColor('black')
    let x = 40
    cells.forEach((c, i) => {
      doc.text(c, x + 3, y + 3, { width: cols[i]! - 6, align: right[i] ? 'right' : 'left' })
      x += cols[i]!
    })
    y += rh
  })
  y += 10
  doc.font('Helvetica-Bold').fontSize(9).fillColor('#555555').text('VAT category', 43, y).text('Note', 123, y)
    .text('Taxable amount', 335, y, { width: 84, align: 'right' }).text('VAT', 425, y, { width: 84, align: 'right' })
  doc.font('Helvetica').fontSize(10).fillColor('black')
  for (const v of vatRows(d)) {
    y += 16
    doc.text(v.label, 43, y).text(money(v.basis, h.currency), 335, y, { width: 84, align: 'right' })
      .text(money(v.vat, h.currency), 425, y, { width: 84, align: 'right' })
  }
  y += 24
  doc.fontSize(8).fillColor('#555555').text(PAY(h), 40, y, { width: 280 })
    .text('This PDF carries the same invoice as a Factur-X (EN 16931) e-invoice, factur-x.xml.', { width: 280 })
  doc.fontSize(10).fillColor('black')
  const totals: Array<[string, unknown]> = [['Lines total', h.subtotal], ['Net amount', h.subtotal], ['VAT total', h.tax]]
  totals.forEach(([t, v], i) => {
    doc.text(t, 305, y + 12 * i, { width: 120, align: 'right' }).text(money(v, h.currency), 425, y + 12 * i,
      { width: 90, align: 'right' })
  })
  doc.font('Helvetica-Bold').fontSize(11).text('Total', 305, y + 36, { width: 120, align: 'right' })
    .text(money(h.total, h.currency), 425, y + 36, { width: 90, align: 'right' })
  y += 40
  let bx = 40
  code128(String(h.number)).forEach((w, i) => { if (i % 2 === 0) doc.rect(bx, y, w, 26); bx += w })
  doc.fill('black')
  doc.font('Helvetica').fontSize(8).text(String(h.number), 40, y + 28)
  const range = doc.bufferedPageRange()
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(i)
    // The footer sits below the bottom margin: without this pdfkit starts a new page for it (it
    // always did here: the baseline had an empty extra page).
    doc.page.margins.bottom = 0
    doc.moveTo(40, 841.89 - 50).lineTo(40 + W, 841.89 - 50).strokeColor('#cccccc').stroke()
    doc.font('Helvetica').fontSize(8).fillColor('#555555').text(`${FOOTER} · Page ${i + 1} ` +
      `of ${range.count}`, 40, 841.89 - 46, { width: W, align: 'center', lineBreak: false })
  }
  doc.end()
  return await done
}

interface PdfMake {
  setUrlAccessPolicy (cb: (url: string) => boolean): void
  setLocalAccessPolicy (cb: (path: string) => boolean): void
  setFonts (f: unknown): void
  createPdf (doc: unknown): { getBuffer (): Promise<Buffer> }
}
let pdfmake: PdfMake | null = null

/** pdfmake 0.3 (server build) with the standard Helvetica and no file or URL access. */
export async function viaPdfmake (d: InvoiceData): Promise<Buffer> {
  if (pdfmake === null) {
    const require = createRequire(import.meta.url)
    pdfmake = require('pdfmake') as PdfMake
    pdfmake.setUrlAccessPolicy(() => false)
    // Standard fonts are looked up by name through the local policy: allow exactly those.
    pdfmake.setLocalAccessPolicy((p) => /^Helvetica(-Bold)?(-Oblique|-BoldOblique)?$/.test(p))
    pdfmake.setFonts(require('pdfmake/standard-fonts/Helvetica'))
  }
  const h = d.header
  const canvas: unknown[] = []
  let bx = 0
  code128(String(h.number)).forEach((w, i) => {
    if (i % 2 === 0) canvas.push({ type: 'rect', x: bx, y: 0, w, h: 30, color: 'black' })
    bx += w
  })
  const body = [['#', 'SKU', 'Description', 'Qty', 'Unit price', 'VAT', 'Amount']
    .map((t) => ({ text: t, bold: true, color: 'white', fillColor: '#1f3a5f' }))]
  for (const r of d.lines) {
    const cells = [String(r.line_no), String(r.sku), String(r.description), `${Number(r.qty)} ${String(r.unit)}`,
      money(r.unit_price, h.currency), `${String(r.vat_category)} ${Number(r.vat_rate)}%`, money(r.amount, h.currency)]
    body.push(cells.map((t) => ({ text: t, bold: false, color: 'black', fillColor: '' })))
  }
  const doc = {
    pageSize: 'A4',
    pageMargins: [40, 70, 40, 50],
    defaultStyle: { font: 'Helvetica', fontSize: 10 },
    info: { creationDate: new Date(0) },
    header: {
      margin: [40, 30, 40, 0],
      columns: [{
        text: 'ACME Supplies GmbH',
        bold: true,
        fontSize: 14,
        color: '#1f3a5f'
      }, { text: `Invoice ${String(h.number)}`, alignment: 'right', fontSize: 8 }]
    },
    footer: (page: number, pages: number) => ({
      text: `${FOOTER} · Page ${page} of ${pages}`,
      alignment: 'center',
      fontSize: 8,
      color: '#555555'
    }),
    content: [
      { text: `Invoice ${String(h.number)}`, fontSize: 18, bold: true, margin: [0, 0, 0, 10] },
      {
        columns: [{
          stack: [{ text: 'From', bold: true, fontSize: 9 }, 'ACME Supplies GmbH\nDockstraße 1\n20457 Hamburg\nGermany',
            { text: 'VAT ID DE123456789', fontSize: 8 }]
        }, {
          stack: [
            { text: 'Bill to', bold: true, fontSize: 9 },
            { text: String(h.customer_name), bold: true },
            String(h.customer_address),
            { text: `VAT ID ${String(h.customer_vat_id)}`, fontSize: 8 }
          ]
        }]
      },
      {
        columns: [
          { stack: [{ text: 'Issued', bold: true, fontSize: 9 }, String(h.issued_on)] },
          { stack: [{ text: 'Delivered', bold: true, fontSize: 9 }, String(h.delivered_on)] },
          { stack: [{ text: 'Due', bold: true, fontSize: 9 }, String(h.due_on)] },
          { stack: [{ text: 'Amount due', bold: true, fontSize: 9 }, { text: money(h.total, h.currency), bold: true }] }
        ],
        margin: [0, 12, 0, 14]
      },
      {
        table: { headerRows: 1, widths: [22, 56, '*', 52, 66, 44, 72], body },
        layout: { fillColor: (i: number) => (i % 2 === 0 && i > 0 ? '#f2f2f2' : null) }
      },
      {
        table: {
          headerRows: 1,
          widths: [80, '*', 90, 90],
          body: [['VAT category', 'Note', 'Taxable amount', 'VAT'].map((t) => ({ text: t, bold: true, fontSize: 9 })),
            ...vatRows(d).map((v) => [v.label, '', money(v.basis, h.currency), money(v.vat, h.currency)])]
        },
        layout: 'noBorders',
        margin: [0, 10, 0, 0]
      },
      {
        columns: [{
          stack: [PAY(h), 'This PDF carries the same invoice as a Factur-X (EN 16931) e-invoice, factur-x.xml.',
            { canvas, margin: [0, 6, 0, 0] }, String(h.number)],
          fontSize: 8
        }, {
          width: 120,
          stack: ['Lines total', 'Net amount', 'VAT total', { text: 'Total', bold: true }],
          alignment: 'right'
        }, {
          width: 90,
          stack: [money(h.subtotal, h.currency), money(h.subtotal, h.currency), money(h.tax, h.currency),
            { text: money(h.total, h.currency), bold: true }],
          alignment: 'right'
        }],
        margin: [0, 8, 0, 0]
      }
    ]
  }
  return await pdfmake.createPdf(doc).getBuffer()
}
