import assert from 'node:assert/strict'
import { test } from 'node:test'
import { crc32, deflateSync } from 'node:zlib'
import { TemplateError, TemplateLimitError } from '../../engine/errors.js'
import { MAX_IMAGE_PIXELS, MAX_TEMPLATE_BYTES } from '../../engine/limits.js'
import { renderResult } from '../../engine/render.js'
import { clearCompiled, getCompiled } from '../../engine/template/cache.js'
import { validateAndCompile, validateTemplate } from '../../engine/template/validate.js'
import { input, invoiceDefinition } from './pdf/fixtures.js'
import { itemAt } from '../helpers/item-at.js'

function chunk (kind: string, body: Buffer): Buffer {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(body.length)
  const head = Buffer.concat([Buffer.from(kind, 'latin1'), body])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(head))
  return Buffer.concat([len, head, crc])
}

/** A PNG whose header claims width × height; its data is `idat` (deflated by the caller). */
function png (width: number, height: number, colorType: number, idat: Buffer): string {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8
  ihdr[9] = colorType
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))])
    .toString('base64')
}

/** A JPEG of nothing but a start-of-frame header claiming width × height. */
function jpeg (width: number, height: number): string {
  const sof = Buffer.from([
    0xff,
    0xd8,
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    0x03,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0
  ])
  return sof.toString('base64')
}

const withImage = (data: string): Record<string, unknown> =>
  invoiceDefinition({ body: [{ image: { asset: 'big', width: 100 } }] }, { images: { big: { data } } })

test('an image over the pixel cap is refused from its header, before decoding: at publish with its path', () => {
  // 10,000 × 10,000 RGBA would inflate to 400 MB; the data here is tiny, only the header is big.
  const cases = [png(10_000, 10_000, 6, deflateSync(Buffer.alloc(16))), jpeg(6_000, 6_000)]
  for (const data of cases) {
    const r = validateTemplate(withImage(data))
    assert.ok(!r.ok)
    assert.equal(r.errors[0]?.path, '/assets/images/big')
    assert.match(itemAt(r.errors, 0).message, new RegExp(`the limit is ${MAX_IMAGE_PIXELS} pixels`))
  }
  // Just under the cap in pixels is not refused for its size (it fails later, as truncated data).
  const under = validateTemplate(withImage(jpeg(5_000, 5_000)))
  assert.ok(under.ok, JSON.stringify(under))
})

test('at render, an image over the cap is RENDER_LIMIT_EXCEEDED', () => {
  clearCompiled()
  const r = renderResult(input(withImage(png(20_000, 2_000, 2, deflateSync(Buffer.alloc(16)))), {}, {}, 'limits:px'))
  assert.deepEqual({ ok: r.ok, code: !r.ok ? r.code : '' }, { ok: false, code: 'RENDER_LIMIT_EXCEEDED' })
})

test('a PNG whose data inflates past what its header allows is refused, not inflated', () => {
  // 4 × 4 RGBA: (4 × 4 + 1) × 4 = 68 bytes at most; the stream inflates to 1 MB.
  const r = validateTemplate(withImage(png(4, 4, 6, deflateSync(Buffer.alloc(1_000_000)))))
  assert.ok(!r.ok)
  assert.deepEqual(r.errors[0], {
    path: '/assets/images/big',
    message: 'PNG data does not match its header (corrupt or oversized)'
  })
})

const datasets = [
  { code: 'header', cardinality: 'single', query: 'SELECT 1', fields: [] },
  { code: 'lines', cardinality: 'multiple', query: 'SELECT 1', fields: [] }
]

test('a template over the size limit: TEMPLATE_INVALID at /, RENDER_LIMIT_EXCEEDED in a worker', () => {
  const def = { ...invoiceDefinition(), datasets }
  const r = validateAndCompile(def, MAX_TEMPLATE_BYTES + 1)
  assert.ok(!r.ok)
  assert.deepEqual(r.errors, [{
    path: '/',
    message: `template is ${MAX_TEMPLATE_BYTES + 1} bytes; the limit is ${MAX_TEMPLATE_BYTES}`
  }])
  assert.ok(validateAndCompile(def).ok, 'measured from the value when no size is given')
  const text = JSON.stringify(def).replace('{', '{' + ' '.repeat(MAX_TEMPLATE_BYTES))
  clearCompiled()
  assert.throws(() => getCompiled('limits:size', text),
    (e: unknown) => e instanceof TemplateLimitError && e.errors[0]?.path === '/')
  const out = renderResult({ ...input(def, {}), versionKey: 'limits:size2', definition: text })
  assert.deepEqual({ ok: out.ok, code: !out.ok ? out.code : '' }, { ok: false, code: 'RENDER_LIMIT_EXCEEDED' })
})

test('a published version is validated once: a worker compiles it without running the schema again', () => {
  // A member the schema refuses but the compiler never reads: only validation would notice it.
  const def = { ...invoiceDefinition(), datasets, note: 'not in the schema' }
  const checked = validateTemplate(def)
  assert.ok(!checked.ok && checked.errors[0]?.path === '/note', 'validation (at publish) refuses it')
  clearCompiled()
  const compiled = getCompiled('limits:once', JSON.stringify(def))
  assert.equal(compiled.format, 'document')
  // A compile error is still a TemplateError with a JSON pointer.
  const broken = JSON.stringify(invoiceDefinition({ body: [{ text: '{{ 1 + }}' }] }))
  assert.throws(() => getCompiled('limits:broken', broken), (e: unknown) => e instanceof TemplateError && e.errors[0]?.path === '/document/body/0/text')
})
