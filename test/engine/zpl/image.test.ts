// Image elements: a PNG drawn as ^GF at the target resolution (read back by ZXing from the
// rendered label), bounded in size; what is not a PNG is refused at compile.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import bwipjs from 'bwip-js'
import { compileLabel } from '../../../engine/zpl/compile.js'
import { renderLabels } from '../../../engine/zpl/render.js'
import { createScope } from '../../../engine/expr/expressions.js'
import { TemplateError, TemplateLimitError } from '../../../engine/errors.js'
import type { LabelDef } from '../../../engine/zpl/schema.js'
import { drawLabel, readRegion } from './zxing.js'
import { png2x1 } from '../../helpers/png.js'

const imageLabel = (data: string, size = 30): LabelDef => ({
  widthIn: 2,
  heightIn: 2,
  rows: 'items',
  unit: 'mm',
  elements: [{ type: 'image', x: 5, y: 5, width: size, height: size, data }]
})

test('a PNG image element prints as ^GF at 203, 300 and 600 dpi: a QR code in it still reads', async () => {
  const png = await bwipjs.toBuffer({ bcid: 'qrcode', text: 'IMAGE-QR-42', scale: 4, paddingwidth: 4, paddingheight: 4 })
  for (const dpi of [203, 300, 600] as const) {
    const label = compileLabel(imageLabel(png.toString('base64')), 'label', dpi)
    const scope = createScope({ datasets: { items: [{}] }, parameters: {}, context: {} })
    const zpl = Buffer.from(renderLabels(label, scope, { maxLabels: 10, maxBytes: 1e7 }).bytes).toString('latin1')
    assert.match(zpl, /\^GFA,\d+,\d+,\d+,/)
    const g = await drawLabel(zpl, dpi, label.widthDots, label.heightDots)
    const r = readRegion(g, 'QRCode', 0, 0, label.widthDots, label.heightDots)
    assert.equal(r.text, 'IMAGE-QR-42', `at ${dpi} dpi`)
  }
})

test('an image is capped in dots and must be a PNG', () => {
  const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64')
  assert.throws(() => compileLabel({ ...imageLabel(png, 100), widthIn: 10, heightIn: 10 }, 'label', 600),
    (e: unknown) => e instanceof TemplateLimitError && /label\.elements\[0\]: image is 2362 × 2362 dots at this resolution; the limit is 4000000/.test(e.message))
  assert.throws(() => compileLabel(imageLabel(Buffer.from('GIF89a').toString('base64')), 'label', 203),
    (e: unknown) => e instanceof TemplateError && /label\.elements\[0\]: image data is not a PNG/.test(e.message))
})

test('a label image whose data inflates past its header (a decompression bomb) is refused, not inflated', () => {
  // A 2 × 1 grey PNG whose one IDAT inflates to 64 MiB: its header promises 3 bytes of scanlines.
  const bomb = png2x1(0, Buffer.alloc(64 * 1024 * 1024))
  assert.throws(() => compileLabel(imageLabel(bomb), 'label', 203),
    (e: unknown) => e instanceof TemplateError && /label\.elements\[0\]: PNG data does not match its header/.test(e.message))
  // The same picture with its 3 bytes is fine.
  assert.doesNotThrow(() => compileLabel(imageLabel(png2x1(0, Buffer.from([0, 0, 255]))), 'label', 203))
})
