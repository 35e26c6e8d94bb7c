// One label at 203, 300 and 600 dpi: rendered by the ZPL renderer at each resolution, every
// barcode read back by ZXing with the same payload, GS1 symbols with their symbology identifier
// and element string, and positions in millimetres agreeing within ±0.25 mm.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { compileTemplate, labelAt } from '../../../engine/template/compile.js'
import { compileLabel } from '../../../engine/zpl/compile.js'
import { renderLabels } from '../../../engine/zpl/render.js'
import { createScope } from '../../../engine/expr/expressions.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import type { CompiledLabel } from '../../../engine/zpl/compile.js'
import type { LabelDef } from '../../../engine/zpl/schema.js'
import { drawLabel, readRegion, type Read } from './zxing.js'

const DPIS = [203, 300, 600] as const
const root = new URL('../../../../examples/', import.meta.url)
const mm = (dots: number, dpi: number): number => dots * 25.4 / dpi

function zplOf (label: CompiledLabel, items: unknown[], rows = 'items'): string {
  const datasets: Record<string, unknown> = { [rows]: items }
  const scope = createScope({ datasets, parameters: { batchId: 1 }, context: {} })
  return Buffer.from(renderLabels(label, scope, { maxLabels: 1000, maxBytes: 1e8 }).bytes).toString('latin1')
}

/** Region in mm → read at `dpi`. */
function read (g: Parameters<typeof readRegion>[0], dpi: number, f: 'Code128' | 'QRCode' | 'DataMatrix', r: [number, number, number, number]): Read {
  const d = (v: number): number => Math.round(v * dpi / 25.4)
  return readRegion(g, f, d(r[0]), d(r[1]), d(r[2]), d(r[3]))
}

function near (a: Read, b: Read, dpiA: number, dpiB: number, what: string): void {
  assert.ok(Math.abs(mm(a.x, dpiA) - mm(b.x, dpiB)) <= 0.25, `${what}: x ${mm(a.x, dpiA).toFixed(2)} mm at ${dpiA} vs ${mm(b.x, dpiB).toFixed(2)} mm at ${dpiB}`)
  assert.ok(Math.abs(mm(a.y, dpiA) - mm(b.y, dpiB)) <= 0.25, `${what}: y ${mm(a.y, dpiA).toFixed(2)} mm at ${dpiA} vs ${mm(b.y, dpiB).toFixed(2)} mm at ${dpiB}`)
}

/** The width in mm of the ink in a region (mm): a symbol drawn alone there. */
function inkSide (g: Parameters<typeof readRegion>[0], dpi: number, r: [number, number, number, number]): number {
  const d = (v: number): number => Math.round(v * dpi / 25.4)
  let left = Infinity; let right = -1
  for (let y = d(r[1]); y < d(r[1] + r[3]); y++) {
    for (let x = d(r[0]); x < d(r[0] + r[2]); x++) {
      if ((g.pixels[y * g.width + x] ?? 255) < 128) { left = Math.min(left, x); right = Math.max(right, x + 1) }
    }
  }
  return mm(right - left, dpi)
}

test('the demo shipping label at 203, 300 and 600 dpi: same payloads, same places, same size', async () => {
  const def = JSON.parse(readFileSync(new URL('templates/shipping-label.json', root), 'utf8')) as TemplateDefinition
  const { parcels } = JSON.parse(readFileSync(new URL('data/shipping-label.json', root), 'utf8')) as { parcels: Array<{ tracking_no: string }> }
  const compiled = compileTemplate(def, { everyResolution: true })
  const reads: Array<{ dpi: number, c128: Read, qr: Read, qrSize: number }> = []
  for (const dpi of DPIS) {
    const label = labelAt(compiled, dpi)
    assert.equal(mm(label.widthDots, dpi).toFixed(1), '101.6')
    assert.equal(mm(label.heightDots, dpi).toFixed(1), '152.4')
    const zpl = zplOf(label, [{ ...parcels[0], qty: 1 }], 'parcels')
    const g = await drawLabel(zpl, dpi, label.widthDots, label.heightDots)
    const c128 = read(g, dpi, 'Code128', [0, 55, 101.6, 35])
    const qr = read(g, dpi, 'QRCode', [25, 90, 40, 40])
    assert.equal(c128.text, parcels[0]?.tracking_no, `Code 128 at ${dpi}`)
    assert.equal(qr.text, parcels[0]?.tracking_no, `QR at ${dpi}`)
    reads.push({ dpi, c128, qr, qrSize: inkSide(g, dpi, [20, 93, 60, 47]) })
  }
  // The QR needs magnification 11.8 at 300 dpi and 23.6 at 600: drawn as ^GF, not clamped.
  assert.match(zplOf(labelAt(compiled, 600), [{ ...parcels[0], qty: 1 }], 'parcels'), /\^GFA,/)
  const a = reads.at(0)
  assert.ok(a !== undefined)
  for (const b of reads.slice(1)) {
    near(a.c128, b.c128, a.dpi, b.dpi, 'Code 128')
    near(a.qr, b.qr, a.dpi, b.dpi, 'QR')
    // The printed QR symbol is as large as at 203 dpi (same version, modules of the same size).
    assert.ok(Math.abs(a.qrSize - b.qrSize) <= 0.25, `QR side ${a.qrSize.toFixed(2)} mm at ${a.dpi}, ${b.qrSize.toFixed(2)} mm at ${b.dpi}`)
  }
})

export const checkDigit = (body: string): string => {
  let s = 0
  for (let i = 0; i < body.length; i++) s += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1)
  return String((10 - (s % 10)) % 10)
}

test('51 generated GS1 labels (17 rows at 203, 300 and 600 dpi): ]C1 and ]d2 with the element strings, QR payloads, positions', async () => {
  const def: LabelDef = {
    widthIn: 6,
    heightIn: 3,
    rows: 'items',
    unit: 'mm',
    elements: [
      { type: 'text', x: 5, y: 3, text: 'SSCC {{ row.sscc }}', size: 4 },
      { type: 'barcode', x: 8, y: 12, symbology: 'gs1-128', data: '(00){{ row.sscc }}(37){{ row.count }}(02){{ row.gtin }}', module: 0.25, height: 15 },
      { type: 'barcode', x: 8, y: 40, symbology: 'gs1-datamatrix', data: '(01){{ row.gtin }}(10){{ row.lot }}(17)261231', module: 0.5 },
      { type: 'barcode', x: 50, y: 40, symbology: 'qr', data: 'PARCEL {{ row.count }} {{ row.lot }}', module: 0.75 },
      { type: 'box', x: 1, y: 1, width: 150, height: 73, thickness: 0.3 }
    ]
  }
  const n = 17
  const items = Array.from({ length: n }, (_, i) => {
    const sscc = `0${String(3870000000000000 + i * 7919).padStart(16, '0')}`
    const gtin = `1${String(400638133393 + i * 13).padStart(12, '0')}`
    // Counts 1…17: odd and even digit runs before the separator.
    return { sscc: sscc + checkDigit(sscc), gtin: gtin + checkDigit(gtin), count: 1 + i, lot: `L${i}_X` }
  })
  let labels = 0
  const first = new Map<number, Read[]>()
  for (const dpi of DPIS) {
    const label = compileLabel(def, 'label', dpi)
    const zpls = zplOf(label, items).match(/\^XA[\s\S]*?\^XZ/g) ?? []
    assert.equal(zpls.length, n)
    for (let i = 0; i < n; i++) {
      const it = items.at(i)
      if (it === undefined) continue
      const g = await drawLabel(zpls[i] ?? '', dpi, label.widthDots, label.heightDots)
      const c = read(g, dpi, 'Code128', [0, 10, 152.4, 20])
      const dm = read(g, dpi, 'DataMatrix', [4, 36, 30, 30])
      const qr = read(g, dpi, 'QRCode', [46, 36, 50, 36])
      assert.equal(c.identifier, ']C1', `GS1-128 label ${i} at ${dpi}`)
      assert.equal(c.text, `00${it.sscc}37${it.count}<GS>02${it.gtin}`)
      assert.equal(dm.identifier, ']d2', `GS1 DataMatrix label ${i} at ${dpi}`)
      assert.equal(dm.text, `01${it.gtin}10${it.lot}<GS>17261231`)
      assert.equal(qr.text, `PARCEL ${it.count} ${it.lot}`)
      const at = [c, dm, qr]
      const base = first.get(i)
      if (base === undefined) first.set(i, at)
      else at.forEach((r, k) => { const b = base.at(k); if (b !== undefined) near(b, r, 203, dpi, `label ${i} symbol ${k}`) })
      labels++
    }
  }
  assert.equal(labels, n * DPIS.length)
})
