// `svc studio FILE --data ROWS` without a database: validate (the errors of `svc templates
// validate`, placed at their line and column), render through the render pool (the demo invoice
// as a PDF, a label as PNGs at the asked dpi), a render error answered as a problem, and save.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { projectRoot } from '../../../server/util/paths.js'
import { pdfFacts } from '../../helpers/poppler.js'
import { call, post, startStudio, type StudioProcess } from './helpers.js'
import { templateSchema } from '../../../engine/template/schema.js'
import { einvoiceTemplate, invoiceData } from '../../engine/einvoice/fixtures.js'

const example = (kind: 'templates' | 'data', name: string): string => join(projectRoot, 'examples', kind, `${name}.json`)
let dir: string
let file: string
let invoiceText: string
let s: StudioProcess

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-studio-'))
  file = join(dir, 'invoice.json')
  await copyFile(example('templates', 'invoice'), file)
  invoiceText = await readFile(file, 'utf8')
  s = await startStudio([file, '--data', example('data', 'invoice')])
})
after(async () => {
  await s.close()
  await rm(dir, { recursive: true, force: true })
})

/** 1-based line and column of the first `needle` in `text`, shifted by `delta` characters. */
function where (text: string, needle: string, delta = 0): { line: number, column: number } {
  const at = text.indexOf(needle) + delta
  assert.ok(at >= delta, `${needle} in the text`)
  const before = text.slice(0, at)
  return { line: before.split('\n').length, column: at - before.lastIndexOf('\n') }
}

/** Width and height of a PNG (its IHDR). */
function pngSize (png: Buffer): { width: number, height: number } {
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG')
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

test('the session: the file, its text, the schema publish enforces, the --data rows', async () => {
  const session = (await call(s, 'GET', `/${s.token}/api/session`)).json()
  assert.deepEqual(session.source, { kind: 'file', path: file })
  assert.equal(session.templateText, invoiceText)
  assert.deepEqual(session.schema, JSON.parse(JSON.stringify(templateSchema)))
  assert.equal(session.kind, 'pdf')
  assert.deepEqual(session.dpis, [])
  assert.deepEqual(session.environments, [])
  assert.equal(session.dataFile, example('data', 'invoice'))
  assert.equal(session.rows.header.number, 'INV-2024-0042')
})

test('validate: an unknown field at its line and column with validate\'s suggestion; fixed, ok', async () => {
  const typo = invoiceText.replace('{{ row.sku }}', '{{ row.skuu }}')
  const r = await post(s, 'validate', { templateText: typo })
  assert.equal(r.status, 200)
  const v = r.json()
  assert.equal(v.ok, false)
  assert.equal(v.errors.length, 1)
  const e = v.errors[0]
  // The first `{{ row.sku }}` is the e-invoice mapping's (BT-155, the seller's item id).
  assert.equal(e.path, '/document/einvoice/lines/sellerId')
  // Where the value of that path starts: the opening quote of "{{ row.skuu }}".
  assert.deepEqual({ line: e.line, column: e.column }, where(typo, '"{{ row.skuu }}"'))
  assert.equal(e.suggestion, 'row.sku')
  assert.match(e.message, /'skuu' is not a field of dataset 'lines'/)
  assert.doesNotMatch(e.message, /did you mean/)

  // An unknown property of the schema: placed at its value, as `svc templates validate` names it.
  const unknown = invoiceText.replace('"zebra": "#f2f2f2"', '"zebraa": "#f2f2f2"')
  const u = (await post(s, 'validate', { templateText: unknown })).json()
  assert.equal(u.ok, false)
  assert.equal(u.errors[0].path, '/document/body/7/table/zebraa')
  assert.deepEqual({ line: u.errors[0].line, column: u.errors[0].column }, where(unknown, '"#f2f2f2"'))

  // Not JSON: the parser's own line and column.
  const broken = invoiceText.replace('"zebra": "#f2f2f2",', '"zebra": "#f2f2f2",,')
  const b = (await post(s, 'validate', { templateText: broken })).json()
  assert.equal(b.ok, false)
  assert.deepEqual({ line: b.errors[0].line, column: b.errors[0].column }, where(broken, ',,', 1))

  const fixed = (await post(s, 'validate', { templateText: invoiceText })).json()
  assert.deepEqual(fixed, { ok: true, errors: [], warnings: [] })
})

test('render: the demo invoice with the --data rows is a PDF with the invoice\'s words', async () => {
  const r = await post(s, 'render', { templateText: invoiceText, data: { kind: 'file' }, parameters: { invoiceId: 1 }, context: {} })
  assert.equal(r.status, 200, r.text())
  const body = r.json()
  assert.equal(body.format, 'pdf')
  assert.equal(body.pageCount, 1)
  assert.equal(typeof body.ms, 'number')
  const facts = await pdfFacts(Buffer.from(body.pdf, 'base64'))
  for (const word of ['INV-2024-0042', 'Müller & Söhne GmbH', 'Spring set (10 pcs)', 'Page 1 of 1']) {
    assert.ok(facts.text.includes(word), `${word} in ${facts.text}`)
  }
  // A change in the text is in the next render (no stale compiled template).
  const edited = invoiceText.replace('"Bill to"', '"Invoice recipient"')
  const again = (await post(s, 'render', { templateText: edited, data: { kind: 'file' }, parameters: { invoiceId: 1 }, context: {} })).json()
  assert.ok((await pdfFacts(Buffer.from(again.pdf, 'base64'))).text.includes('Invoice recipient'))
})

test('render: rows from the page and rows generated from the declared fields', async () => {
  const rows = JSON.parse(await readFile(example('data', 'invoice'), 'utf8'))
  rows.header.customer_name = 'Studio Rows Ltd'
  const r = (await post(s, 'render', { templateText: invoiceText, data: { kind: 'rows', rows }, parameters: { invoiceId: 1 }, context: {} })).json()
  assert.ok((await pdfFacts(Buffer.from(r.pdf, 'base64'))).text.includes('Studio Rows Ltd'))
  // Generated rows fill every declared field with a value of its type: the sales report shows them.
  const report = await readFile(example('templates', 'sales-report'), 'utf8')
  const params = { from: '2024-01-01', to: '2024-01-31' }
  const g = await post(s, 'render', { templateText: report, data: { kind: 'generated' }, parameters: params, context: {} })
  assert.equal(g.status, 200, g.text())
  const text = (await pdfFacts(Buffer.from(g.json().pdf, 'base64'))).text
  assert.ok(text.includes('customer 1'), text)
  assert.ok(text.includes('product 3'), text)
  // The demo invoice is an e-invoice: made-up values break its rules, and the page says which.
  const fx = await post(s, 'render', { templateText: invoiceText, data: { kind: 'generated' }, parameters: { invoiceId: 1 }, context: {} })
  assert.equal(fx.status, 422)
  assert.match(fx.json().detail, /e-invoice rule BR-/)
})

test('render: an e-invoice template answers the XML its PDF embeds; others have none', async () => {
  const r = await post(s, 'render', {
    templateText: JSON.stringify(einvoiceTemplate()), data: { kind: 'rows', rows: invoiceData() }, parameters: {}, context: {}
  })
  assert.equal(r.status, 200, r.text())
  const body = r.json()
  assert.match(body.xml, /<ram:GrandTotalAmount>277\.69<\/ram:GrandTotalAmount>/)
  const dir2 = await mkdtemp(join(tmpdir(), 'svc-studio-xml-'))
  try {
    await writeFile(join(dir2, 'e.pdf'), Buffer.from(body.pdf, 'base64'))
    execFileSync('pdfdetach', ['-save', '1', '-o', join(dir2, 'embedded.xml'), join(dir2, 'e.pdf')])
    assert.equal(await readFile(join(dir2, 'embedded.xml'), 'utf8'), body.xml)
  } finally { await rm(dir2, { recursive: true, force: true }) }
  const report = await readFile(example('templates', 'sales-report'), 'utf8')
  const params = { from: '2024-01-01', to: '2024-01-31' }
  const plain = await post(s, 'render', { templateText: report, data: { kind: 'generated' }, parameters: params, context: {} })
  assert.equal(plain.status, 200, plain.text())
  assert.equal(plain.json().xml, undefined)
})

test('render: a label as PNGs at the asked dpi', async () => {
  const label = await readFile(example('templates', 'shipping-label'), 'utf8')
  const rows = JSON.parse(await readFile(example('data', 'shipping-label'), 'utf8'))
  const def = JSON.parse(label)
  const sizes: Record<number, { width: number, height: number }> = {}
  for (const dpi of [203, 300]) {
    const r = await post(s, 'render', { templateText: label, data: { kind: 'rows', rows }, parameters: { batchId: 1 }, context: {}, dpi })
    assert.equal(r.status, 200, r.text())
    const body = r.json()
    assert.equal(body.format, 'zpl')
    assert.equal(body.pdf, undefined)
    assert.ok(body.labelCount >= 1)
    assert.ok(body.pngs.length >= 1)
    const size = pngSize(Buffer.from(body.pngs[0], 'base64'))
    // The renderer draws whole dots per millimetre (8 for 203 dpi, 12 for 300): within 2%.
    assert.ok(Math.abs(size.width - def.label.widthIn * dpi) / (def.label.widthIn * dpi) < 0.02, `${dpi}: ${size.width}`)
    assert.ok(Math.abs(size.height - def.label.heightIn * dpi) / (def.label.heightIn * dpi) < 0.02, `${dpi}: ${size.height}`)
    sizes[dpi] = size
  }
  assert.ok((sizes[300]?.width ?? 0) > (sizes[203]?.width ?? 0))
  const bad = await post(s, 'render', { templateText: label, data: { kind: 'rows', rows }, parameters: { batchId: 1 }, context: {}, dpi: 250 })
  assert.equal(bad.status, 400)
  assert.equal(bad.json().errorCode, 'VALIDATION_FAILED')
})

test('render: an error of the render is a problem, not swallowed; an invalid template too', async () => {
  const rows = JSON.parse(await readFile(example('data', 'invoice'), 'utf8'))
  rows.header.currency = 'XX'
  const r = await post(s, 'render', { templateText: invoiceText, data: { kind: 'rows', rows }, parameters: { invoiceId: 1 }, context: {} })
  assert.equal(r.status, 422)
  assert.match(String(r.headers['content-type']), /^application\/problem\+json/)
  const p = r.json()
  assert.equal(p.errorCode, 'RENDER_FAILED')
  assert.match(p.detail, /BR-CL-04 \(BT-5 Invoice currency code\): "XX" is not in ISO 4217/)
  const invalid = await post(s, 'render', { templateText: invoiceText.replace('row.sku', 'row.skuu'), data: { kind: 'file' }, parameters: { invoiceId: 1 }, context: {} })
  assert.equal(invalid.status, 422)
  assert.equal(invalid.json().errorCode, 'TEMPLATE_INVALID')
  const missing = await post(s, 'render', { templateText: invoiceText, data: { kind: 'file' }, parameters: {}, context: {} })
  assert.equal(missing.status, 400)
  assert.equal(missing.json().errorCode, 'PARAMETER_INVALID')
  const noDb = await post(s, 'render', { templateText: invoiceText, data: { kind: 'dataset', environment: 'development' }, parameters: { invoiceId: 1 }, context: {} })
  assert.equal(noDb.status, 400)
  assert.match(noDb.json().detail, /--workspace/)
})

test('save writes the file', async () => {
  const edited = invoiceText.replace('"Bill to"', '"Saved by the studio"')
  const r = await post(s, 'save', { templateText: edited })
  assert.equal(r.status, 200, r.text())
  assert.deepEqual(r.json(), { saved: file })
  assert.equal(await readFile(file, 'utf8'), edited)
  assert.equal((await call(s, 'GET', `/${s.token}/api/session`)).json().templateText, edited)
  // Publishing needs a workspace.
  const pub = await post(s, 'publish', { templateText: edited })
  assert.equal(pub.status, 400)
  assert.equal(pub.json().errorCode, 'VALIDATION_FAILED')
})
