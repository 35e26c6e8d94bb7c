// The same invoice drawn the obvious ways, for bench/engine.ts: plain pdfkit (new document per
// render, doc.text for every string, bufferPages for "Page X of Y") and pdfmake 0.3.
import { createRequire } from 'node:module'
import bwipjs from 'bwip-js'
import PDFDocument from 'pdfkit'

type Row = Record<string, unknown>
export interface InvoiceData { header: Row, lines: Row[] }

const money = (v: unknown, cur: unknown): string =>
  new Intl.NumberFormat('en', { style: 'currency', currency: String(cur) }).format(Number(v))

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
  doc.font('Helvetica-Bold').fontSize(14).fillColor('#1f3a5f').text('ACME Supplies Ltd', 40, 40)
  doc.font('Helvetica').fontSize(8).fillColor('#555555')
    .text(`Invoice ${String(h.number)}`, 40, 44, { width: W, align: 'right' })
  doc.moveTo(40, 60).lineTo(40 + W, 60).strokeColor('#1f3a5f').stroke()
  doc.font('Helvetica-Bold').fontSize(18).fillColor('black').text(`Invoice ${String(h.number)}`, 40, 72)
  doc.font('Helvetica-Bold').fontSize(9).fillColor('#555555').text('From', 40, 105).text('Bill to', 300, 105)
  doc.font('Helvetica').fontSize(10).fillColor('black').text('ACME Supplies Ltd\n1 Dock Road\n20457 ' +
    'Hamburg\nGermany', 40, 117, { width: 250 })
  doc.font('Helvetica-Bold').text(String(h.customer_name), 300, 117, { width: 250 })
  doc.font('Helvetica').text(String(h.customer_address), 300, 129, { width: 250 })
  doc.font('Helvetica-Bold').fontSize(9).fillColor('#555555')
    .text('Issued', 40, 180).text('Due', 210, 180).text('Amount due', 380, 180)
  doc.font('Helvetica').fontSize(10).fillColor('black')
    .text(String(h.issued_on), 40, 192).text(String(h.due_on), 210, 192)
  doc.font('Helvetica-Bold').fontSize(11).text(money(h.total, h.currency), 380, 192)
  // A width per column: heads and every row's cells have one entry per column (the '!' below).
  const cols = [24, 70, W - 24 - 70 - 40 - 75 - 80, 40, 75, 80]
  const heads = ['#', 'SKU', 'Description', 'Qty', 'Unit price', 'Amount']
  const right = [true, false, false, true, true, true]
  let y = 220
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
      String(Number(r.qty)),
      money(r.unit_price, h.currency),
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
  doc.font('Helvetica').fontSize(10)
  doc.text('Subtotal', 325, y, { width: 100, align: 'right' })
    .text(money(h.subtotal, h.currency), 425, y, { width: 90, align: 'right' })
  doc.text('Tax', 325, y + 12, { width: 100, align: 'right' })
    .text(money(h.tax, h.currency), 425, y + 12, { width: 90, align: 'right' })
  doc.font('Helvetica-Bold').fontSize(11).text('Total', 325, y + 24, { width: 100, align: 'right' })
    .text(money(h.total, h.currency), 425, y + 24, { width: 90, align: 'right' })
  y += 60
  let bx = 40
  code128(String(h.number)).forEach((w, i) => { if (i % 2 === 0) doc.rect(bx, y, w, 30); bx += w })
  doc.fill('black')
  doc.font('Helvetica').fontSize(8).text(String(h.number), 40, y + 32)
  const range = doc.bufferedPageRange()
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(i)
    doc.moveTo(40, 841.89 - 50).lineTo(40 + W, 841.89 - 50).strokeColor('#cccccc').stroke()
    doc.font('Helvetica').fontSize(8).fillColor('#555555').text(`Page ${i + 1} ` +
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
  const body = [['#', 'SKU', 'Description', 'Qty', 'Unit price', 'Amount']
    .map((t) => ({ text: t, bold: true, color: 'white', fillColor: '#1f3a5f' }))]
  for (const r of d.lines) {
    const cells = [String(r.line_no), String(r.sku), String(r.description), String(Number(r.qty)),
      money(r.unit_price, h.currency), money(r.amount, h.currency)]
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
        text: 'ACME Supplies Ltd',
        bold: true,
        fontSize: 14,
        color: '#1f3a5f'
      }, { text: `Invoice ${String(h.number)}`, alignment: 'right', fontSize: 8 }]
    },
    footer: (page: number, pages: number) => ({
      text: `Page ${page} of ${pages}`,
      alignment: 'center',
      fontSize: 8,
      color: '#555555'
    }),
    content: [
      { text: `Invoice ${String(h.number)}`, fontSize: 18, bold: true, margin: [0, 0, 0, 10] },
      {
        columns: [{
          stack: [{ text: 'From', bold: true, fontSize: 9 }, 'ACME Supplies Ltd\n1 Dock Road\n20457 Hamburg\nGermany']
        }, {
          stack: [
            { text: 'Bill to', bold: true, fontSize: 9 },
            { text: String(h.customer_name), bold: true },
            String(h.customer_address)
          ]
        }]
      },
      {
        columns: [
          { stack: [{ text: 'Issued', bold: true, fontSize: 9 }, String(h.issued_on)] },
          { stack: [{ text: 'Due', bold: true, fontSize: 9 }, String(h.due_on)] },
          { stack: [{ text: 'Amount due', bold: true, fontSize: 9 }, { text: money(h.total, h.currency), bold: true }] }
        ],
        margin: [0, 12, 0, 14]
      },
      {
        table: { headerRows: 1, widths: [24, 70, '*', 40, 75, 80], body },
        layout: { fillColor: (i: number) => (i % 2 === 0 && i > 0 ? '#f2f2f2' : null) }
      },
      {
        columns: [{
          text: `${d.lines.length} line(s)`,
          fontSize: 8
        }, { width: 100, stack: ['Subtotal', 'Tax', { text: 'Total', bold: true }], alignment: 'right' }, {
          width: 90,
          stack: [
            money(h.subtotal, h.currency), money(h.tax, h.currency), { text: money(h.total, h.currency), bold: true }
          ],
          alignment: 'right'
        }],
        margin: [0, 10, 0, 20]
      },
      { canvas },
      { text: String(h.number), fontSize: 8 }
    ]
  }
  return await pdfmake.createPdf(doc).getBuffer()
}
