// Text on the demo shipping label at 203, 300 and 600 dpi, measured by its ink: each text field is
// drawn alone by the ZPL renderer (zpl-renderer-js) at the printer's resolution and the bounding
// box of its dark pixels compared across resolutions, in millimetres.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { compileTemplate, labelAt } from '../../../engine/template/compile.js'
import { renderLabels } from '../../../engine/zpl/render.js'
import { createScope } from '../../../engine/expr/expressions.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import type { CompiledLabel } from '../../../engine/zpl/compile.js'
import { drawLabel } from './zxing.js'

const DPIS = [203, 300, 600] as const
const root = new URL('../../../../examples/', import.meta.url)
const mm = (dots: number, dpi: number): number => dots * 25.4 / dpi

interface Box {
  text: string
  left: number
  top: number
  right: number
  bottom: number
  /** The field's ^A0 width in dots, and that width in mm (what sets how long the line is). */
  fontWidth: number
}

function zplOf (label: CompiledLabel, row: unknown): string {
  const scope = createScope({ datasets: { parcels: [row] }, parameters: { batchId: 1 }, context: {} })
  return Buffer.from(renderLabels(label, scope, { maxLabels: 10, maxBytes: 1e8 }).bytes).toString('latin1')
}

/** Each text field (^A…^FD…^FS, no symbol or graphic) of one label's ZPL, with the label's header. */
function textFields (zpl: string): { header: string, fields: string[] } {
  const body = zpl.replace(/\^PQ\d+\^XZ\s*$|\^XZ\s*$/, '')
  const first = body.search(/\^F[OT]/)
  const fields = body.slice(first).split('^FS').filter((f) => /\^A/.test(f) && /\^FD/.test(f) && !/\^B|\^G[BFCDE]/.test(f))
  return { header: body.slice(0, first), fields }
}

async function inkBoxes (label: CompiledLabel, dpi: number, row: unknown): Promise<Box[]> {
  const { header, fields } = textFields(zplOf(label, row))
  const boxes: Box[] = []
  for (const field of fields) {
    const g = await drawLabel(`${header}${field}^FS^XZ`, dpi, label.widthDots, label.heightDots)
    let left = Infinity; let top = Infinity; let right = -1; let bottom = -1
    for (let y = 0; y < g.height; y++) {
      for (let x = 0; x < g.width; x++) {
        if ((g.pixels[y * g.width + x] ?? 255) >= 128) continue
        left = Math.min(left, x); right = Math.max(right, x + 1)
        top = Math.min(top, y); bottom = Math.max(bottom, y + 1)
      }
    }
    const text = /\^FD([^^]*)/.exec(field)?.[1] ?? ''
    assert.ok(right > left, `no ink for "${text}" at ${dpi} dpi`)
    const fontWidth = mm(Number(/\^A0[NRIB],\d+,(\d+)/.exec(field)?.[1] ?? NaN), dpi)
    const [l, t, r, b] = [left, top, right, bottom].map((v) => mm(v, dpi)) as [number, number, number, number]
    boxes.push({ text, fontWidth, left: l, top: t, right: r, bottom: b })
  }
  return boxes
}

test('the demo shipping label\'s text at 203, 300 and 600 dpi: ink bounding boxes agree within ±0.25 mm', async () => {
  const def = JSON.parse(readFileSync(new URL('templates/shipping-label.json', root), 'utf8')) as TemplateDefinition
  const { parcels } = JSON.parse(readFileSync(new URL('data/shipping-label.json', root), 'utf8')) as { parcels: unknown[] }
  const compiled = compileTemplate(def, { everyResolution: true })
  const row = { ...(parcels[0] as object), qty: 1 }
  const at = await Promise.all(DPIS.map((dpi) => inkBoxes(labelAt(compiled, dpi), dpi, row)))
  const base = at[0] ?? []
  assert.equal(base.length, 9, 'the demo has nine text fields')
  for (const [i, boxes] of at.entries()) {
    const dpi = DPIS[i] ?? 0
    assert.equal(boxes.length, base.length)
    boxes.forEach((b, k) => {
      const a = base[k]
      assert.ok(a !== undefined)
      const where = `"${a.text}" at ${dpi} vs 203 dpi`
      assert.equal(b.text, a.text)
      // Where the ink starts and the line's height: within ±0.25 mm.
      for (const edge of ['left', 'top', 'bottom'] as const) {
        assert.ok(Math.abs(b[edge] - a[edge]) <= 0.25, `${where}: ${edge} ${a[edge].toFixed(2)} vs ${b[edge].toFixed(2)} mm`)
      }
      // Where it ends: a font's size is whole dots (28 at 203 dpi is 41.38 at 300, printed as 41),
      // so a long line's length differs by that rounding's share of it, and by no more than that.
      const rounding = Math.abs(b.fontWidth / a.fontWidth - 1) * (a.right - a.left)
      assert.ok(Math.abs(b.right - a.right) <= 0.25 + rounding,
        `${where}: right ${a.right.toFixed(2)} vs ${b.right.toFixed(2)} mm (font rounding allows ${rounding.toFixed(2)} mm more)`)
    })
  }
})
