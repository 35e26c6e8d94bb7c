import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compileLabel } from '../../../engine/zpl/compile.js'
import { renderLabels } from '../../../engine/zpl/render.js'
import { createScope } from '../../../engine/expr/expressions.js'
import { RenderError, TemplateError } from '../../../engine/errors.js'
import type { LabelDef } from '../../../engine/zpl/schema.js'

const limits = { maxLabels: 100, maxBytes: 1_000_000 }

function label (zpl: string, extra: Partial<LabelDef> = {}): LabelDef {
  return { widthIn: 4, heightIn: 6, dpi: 203, rows: 'items', zpl, ...extra }
}

function render (def: LabelDef, items: unknown, lim = limits, language = 'en'): { text: string, labelCount: number } {
  const scope = createScope({ datasets: { items }, parameters: {}, context: { language } })
  const r = renderLabels(compileLabel(def), scope, lim)
  return { text: Buffer.from(r.bytes).toString('utf8'), labelCount: r.labelCount }
}

test('exact ZPL: header, ^FH_ before data fields, escaped values', () => {
  const def = label('^XA^FO50,50^A0N,40,40^FDName: {{ row.name }}^FS^FO50,100^FDStatic_text^FS^XZ')
  const { text, labelCount } = render(def, [{ name: 'Bob^XZ^XA~JA_ü' }])
  assert.equal(text, '^XA^CI28^PW812^LL1218^FO50,50^A0N,40,40^FH_^FDName: Bob_5EXZ_5EXA_7EJA_5F_C3_BC^FS^FO50,100^FDStatic_text^FS^XZ\n')
  assert.equal(labelCount, 1)
})

test('a literal `_` in a field that gets ^FH_ is escaped too', () => {
  const { text } = render(label('^XA^FDREF_{{ row.id }}_X^FS^XZ'), [{ id: 7 }])
  assert.equal(text, '^XA^CI28^PW812^LL1218^FH_^FDREF_5F7_5FX^FS^XZ\n')
})

test("the author's own ^FH indicator is used, not a second ^FH", () => {
  const { text } = render(label('^XA^CI28^FO1,1^FH\\^FD\\41{{ row.v }}^FS^XZ'), [{ v: 'x\\y^_' }])
  assert.equal(text, '^XA^PW812^LL1218^CI28^FO1,1^FH\\^FD\\41x\\5Cy\\5E_^FS^XZ\n')
})

test("size from inches x dpi; the author's ^PW/^LL/^CI win", () => {
  assert.match(render(label('^XA^FDx^FS^XZ', { widthIn: 2, heightIn: 1, dpi: 300 }), [{}]).text, /^\^XA\^CI28\^PW600\^LL300\^FDx/)
  assert.equal(render(label('^XA^PW400^LL200^CI0^FDx^FS^XZ'), [{}]).text, '^XA^PW400^LL200^CI0^FDx^FS^XZ\n')
})

test('placeholders in barcodes and QR field data are escaped the same way', () => {
  const { text } = render(label('^XA^BCN,100^FD{{ row.t }}^FS^BQN,2,6^FDQA,{{ row.t }}^FS^XZ'), [{ t: 'A^B' }])
  assert.equal(text, '^XA^CI28^PW812^LL1218^BCN,100^FH_^FDA_5EB^FS^BQN,2,6^FH_^FDQA,A_5EB^FS^XZ\n')
})

test('placeholders outside field data accept only harmless values', () => {
  const def = label('^XA^FO{{ row.x }},50^FDx^FS^XZ')
  assert.equal(render(def, [{ x: 120 }]).text, '^XA^CI28^PW812^LL1218^FO120,50^FDx^FS^XZ\n')
  assert.throws(() => render(def, [{ x: '1^XZ' }]), (e: unknown) => e instanceof RenderError && e.code === 'RENDER_FAILED' && /^label\.zpl: row\.x: value "1\^XZ" is not allowed outside field data/.test(e.message))
})

test('one label per row, copies via ^PQ and counted', () => {
  const def = label('^XA^FD{{ row.n }}^FS^XZ', { copies: '{{ row.qty }}' })
  const r = render(def, [{ n: 'a', qty: 1 }, { n: 'b', qty: '3' }, { n: 'c', qty: 0 }, { n: 'd', qty: null }])
  assert.equal(r.labelCount, 5)
  assert.equal(r.text, [
    '^XA^CI28^PW812^LL1218^FH_^FDa^FS^XZ\n',
    '^XA^CI28^PW812^LL1218^FH_^FDb^FS^PQ3^XZ\n',
    '^XA^CI28^PW812^LL1218^FH_^FDd^FS^XZ\n'
  ].join(''))
  assert.equal(render(label('^XA^FDx^FS^XZ', { copies: 2 }), [{}, {}]).labelCount, 4)
  assert.equal(render(def, []).labelCount, 0)
  assert.equal(render(def, null).text, '')
})

test('invalid copies fail the render with the row number', () => {
  const def = label('^XA^FDx^FS^XZ', { copies: '{{ row.qty }}' })
  for (const qty of [-1, 1.5, 'two']) {
    assert.throws(() => render(def, [{ qty: 1 }, { qty }]), (e: unknown) => e instanceof RenderError && e.code === 'RENDER_FAILED' && /label\.copies: .*row 2/.test(e.message), String(qty))
  }
})

test('limits: maxLabels counts copies, maxBytes counts output', () => {
  const def = label('^XA^FD{{ row.n }}^FS^XZ', { copies: '{{ row.qty }}' })
  assert.equal(render(def, [{ n: 'a', qty: 2 }, { n: 'b', qty: 3 }], { maxLabels: 5, maxBytes: 1e6 }).labelCount, 5)
  assert.throws(() => render(def, [{ n: 'a', qty: 2 }, { n: 'b', qty: 4 }], { maxLabels: 5, maxBytes: 1e6 }),
    (e: unknown) => e instanceof RenderError && e.code === 'RENDER_LIMIT_EXCEEDED' && /maxLabels \(5\)/.test(e.message))
  assert.throws(() => render(def, [{ n: 'a', qty: 1e9 }], { maxLabels: 5, maxBytes: 1e6 }), /maxLabels/)
  const one = render(def, [{ n: 'a', qty: 1 }]).text.length
  assert.equal(render(def, [{ n: 'a', qty: 1 }, { n: 'b', qty: 1 }], { maxLabels: 10, maxBytes: one * 2 }).labelCount, 2)
  assert.throws(() => render(def, [{ n: 'a', qty: 1 }, { n: 'b', qty: 1 }, { n: 'c', qty: 1 }], { maxLabels: 10, maxBytes: one * 2 }),
    (e: unknown) => e instanceof RenderError && e.code === 'RENDER_LIMIT_EXCEEDED' && /maxBytes/.test(e.message))
})

test('maxBytes counts UTF-8 bytes of literal text', () => {
  const def = label('^XA^FDÄÄÄÄ^FS^XZ')
  const bytes = Buffer.byteLength(render(def, [{}]).text)
  assert.equal(render(def, [{}], { maxLabels: 10, maxBytes: bytes }).labelCount, 1)
  assert.throws(() => render(def, [{}], { maxLabels: 10, maxBytes: bytes - 1 }), /maxBytes/)
})

test('formatting in labels follows context.language', () => {
  const def = label('^XA^FD{{ formatNumber(row.w, 2) }} kg^FS^XZ')
  assert.match(render(def, [{ w: '1234.5' }], limits, 'de').text, /\^FD1.234,50 kg\^FS/)
})

test('rows that are not a list fail clearly', () => {
  assert.throws(() => render(label('^XA^FDx^FS^XZ'), { not: 'a list' }), /dataset items is not a list/)
})

test('compile errors: structure, prefix changes, ^PQ, bad copies, bad expressions', () => {
  const cases: Array<[LabelDef, RegExp, string]> = [
    [label('^FDx^FS^XZ'), /start with \^XA/, 'label.zpl'],
    [label('^XA^FDx^FS^XZ^XA^FDy^FS^XZ'), /exactly one label/, 'label.zpl'],
    [label('^XA^CC!^FDx^FS^XZ'), /\^CC is not allowed/, 'label.zpl'],
    [label('^XA~CT+^FDx^FS^XZ'), /~CT is not allowed/, 'label.zpl'],
    [label('^XA^PQ2^FDx^FS^XZ'), /use "copies"/, 'label.zpl'],
    [label('^XA^FD{{ row.x ^FS^XZ'), /unclosed/, 'label.zpl'],
    [label('^XA^FD{{ nope(1) }}^FS^XZ'), /unknown function 'nope'/, 'label.zpl'],
    [label('^XA^FDx^FS^XZ', { copies: 'many' }), /whole number/, 'label.copies'],
    [label('^XA^FDx^FS^XZ', { copies: '{{ row.q + }}' }), /label\.copies: row\.q \+/, 'label.copies'],
    [label('^XA^FD\ue000^FS^XZ'), /private-use/, 'label.zpl'],
    [label('^XA^FHü^FD{{ row.x }}^FS^XZ'), /\^FH indicator "ü" must be a printable ASCII character/, 'label.zpl']
  ]
  for (const [def, re, path] of cases) {
    assert.throws(
      () => compileLabel(def),
      (e: unknown) => e instanceof TemplateError && re.test(e.message) && e.errors[0]?.path === path,
      def.zpl
    )
  }
})

/** Independent reference for field data: UTF-8 bytes, each unsafe one as `_XX`. */
function reference (value: string): string {
  let out = ''
  for (const b of Buffer.from(value, 'utf8')) {
    out += b >= 0x20 && b < 0x7e && b !== 0x5e && b !== 0x5f ? String.fromCharCode(b) : '_' + b.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}

test('many labels of very different sizes: output grows correctly and matches a reference byte for byte', () => {
  // Short first labels make the size estimate too small; later huge values force the Buffer to grow.
  const values = Array.from({ length: 3000 }, (_, i) => i < 5 ? `n${i}` : i % 500 === 0 ? 'ü€😀^~_'.repeat(2000) : `Name ${i} Grüße ^XZ`)
  const def = label('^XA^FO{{ index }},10^FDÄ {{ row.v }} Ö^FS^XZ', { copies: '{{ row.q }}' })
  const rows = values.map((v, i) => ({ v, q: 1 + (i % 3) }))
  const { text, labelCount } = render(def, rows, { maxLabels: 10_000, maxBytes: 1e8 })
  const expected = rows.map((r, i) => `^XA^CI28^PW812^LL1218^FO${i},10^FH_^FDÄ ${reference(r.v)} Ö^FS${r.q > 1 ? `^PQ${r.q}` : ''}^XZ\n`).join('')
  assert.equal(labelCount, rows.reduce((n, r) => n + r.q, 0))
  assert.ok(text === expected, 'output differs from the reference')
})

test('output bytes are exactly the counted bytes, also past 99 copies and with no rows', () => {
  const def = label('^XA^FD{{ row.n }}^FS^XZ', { copies: '{{ row.q }}' })
  const scope = createScope({ datasets: { items: [{ n: 'a', q: 150 }, { n: 'b', q: 99 }] }, parameters: {}, context: {} })
  const r = renderLabels(compileLabel(def), scope, { maxLabels: 1000, maxBytes: 1e6 })
  assert.equal(Buffer.from(r.bytes).toString('latin1'), '^XA^CI28^PW812^LL1218^FH_^FDa^FS^PQ150^XZ\n^XA^CI28^PW812^LL1218^FH_^FDb^FS^PQ99^XZ\n')
  assert.equal(r.labelCount, 249)
  assert.equal(
    renderLabels(compileLabel(def), createScope({ datasets: { items: [] }, parameters: {}, context: {} }), limits).bytes
      .length,
    0
  )
})
