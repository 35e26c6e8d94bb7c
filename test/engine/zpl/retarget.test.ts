// Retargeting raw ZPL to another printer resolution: what is scaled and how, what is refused at
// publish (naming the command), and the compiled label kept per (version, dpi).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compileLabel } from '../../../engine/zpl/compile.js'
import { compileTemplate, labelAt } from '../../../engine/template/compile.js'
import { RenderError, TemplateError } from '../../../engine/errors.js'
import type { LabelDef } from '../../../engine/zpl/schema.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import { validateAndCompile } from '../../../engine/template/validate.js'
import { readFileSync } from 'node:fs'

const label = (zpl: string, extra: Partial<LabelDef> = {}): LabelDef => ({ widthIn: 4, heightIn: 6, rows: 'items', zpl, ...extra })
const text = (def: LabelDef, dpi: 152 | 203 | 300 | 600): string =>
  compileLabel(def, 'label', dpi).body.map((c) => typeof c === 'string' ? c : `{${c.src}}`).join('')

test('203 → 300 and 600: origins, fonts, boxes, module widths, bar heights, field blocks, home, top, size', () => {
  const def = label('^XA^LH10,20^LT-6^FO40,80^A0N,28,28^FB400,2,-4,C,8^FD{{ row.a }}^FS^FO40,80^GB732,3,3^FS' +
    '^FO70,500^BY3,2.5,100^BCN,180,Y,N,N^FD{{ row.b }}^FS^FT5,5^CF0,30^FDx^FS^XZ')
  assert.equal(text(def, 300), '^XA^CI28^PW1200^LL1800^LH15,30^LT-9^FO59,118^A0N,41,41^FB591,2,-6,C,12^FH_^FD{row.a}^FS' +
    '^FO59,118^GB1082,4,4^FS^FO103,739^BY4,2.5,148^BCN,266,Y,N,N^FH_^FD{row.b}^FS^FT7,7^CF0,44^FDx^FS')
  assert.match(text(def, 600), /^\^XA\^CI28\^PW2400\^LL3600\^LH30,59\^LT-18\^FO118,236\^A0N,83,83\^FB1182,2,-12,C,24/)
  assert.match(text(def, 600), /\^BY9,2\.5,296\^BCN,532,/)
  // The authored resolution is left exactly as written.
  assert.equal(text(def, 203), '^XA^CI28^PW812^LL1218^LH10,20^LT-6^FO40,80^A0N,28,28^FB400,2,-4,C,8^FH_^FD{row.a}^FS' +
    '^FO40,80^GB732,3,3^FS^FO70,500^BY3,2.5,100^BCN,180,Y,N,N^FH_^FD{row.b}^FS^FT5,5^CF0,30^FDx^FS')
})

test('a label authored at 300 dpi is retargeted down to 203 and 152', () => {
  const def = label('^XA^PW1200^LL1800^FO300,300^A0N,60,60^FDx^FS^XZ', { dpi: 300 })
  assert.equal(text(def, 203), '^XA^CI28^PW812^LL1218^FO203,203^A0N,41,41^FDx^FS')
  assert.equal(text(def, 152), '^XA^CI28^PW608^LL912^FO152,152^A0N,30,30^FDx^FS')
})

test('a QR whose magnification leaves 1–10 becomes a ^GF graphic at render time; within range it is scaled', () => {
  const big = compileLabel(label('^XA^FO260,760^BQN,2,8^FDQA,{{ row.t }}^FS^XZ'), 'label', 300)
  const slot = big.body.find((c) => typeof c !== 'string')
  assert.ok(slot !== undefined && typeof slot !== 'string' && slot.mode === 'raw', 'drawn by an encoder')
  assert.match(Buffer.from(slot.draw?.('QA,HELLO') ?? []).toString('latin1'), /^\^GFA,\d+,\d+,\d+,:Z64:/)
  assert.equal(text(label('^XA^FO100,100^BQN,2,4^FDQA,x^FS^XZ'), 300), '^XA^CI28^PW1200^LL1800^FO148,153^BQN,2,6^FDQA,x^FS')
})

const refused = (zpl: string, pattern: RegExp, extra: Partial<LabelDef> = {}): void => {
  const def = { code: 'l', format: 'label', datasets: [], label: label(zpl, extra) } as unknown as TemplateDefinition
  assert.throws(() => compileTemplate(def, { everyResolution: true }),
    (e: unknown) => e instanceof TemplateError && pattern.test(e.message), zpl)
}

test('at publish, what cannot be retargeted is refused naming the command; never clamped', () => {
  refused('^XA^FO10,10^ADN,36,20^FDhello^FS^XZ', /\^AD: bitmap font D scales only by whole factors, and 203 → 152 dpi/)
  refused('^XA^FO10,10^FDdefault font A^FS^XZ', /\^FD: text in the default bitmap font A cannot be scaled/)
  refused('^XA^FO10,10^BY8^BCN,100^FDx^FS^XZ', /\^BY: module width 8 becomes 11\.82 dots 203 → 300 dpi/)
  refused('^XA^FO10,10^GFA,2,2,1,FFFF^FS^XZ', /\^GF: cannot be retargeted/)
  refused('^XA^FO{{ row.x }},10^A0N,20,20^FDx^FS^XZ', /\^FO: a placeholder in a length cannot be retargeted/)
  refused('^XA^FO10,10^BQN,2,8^FH^FDQA,x^FS^XZ', /\^BQ: magnification 8 becomes 11\.82 203 → 300 dpi, outside 1–10/)
  // Narrowed to the resolutions it suits, the same bitmap-font label publishes.
  const ok = { code: 'l', format: 'label', datasets: [], label: label('^XA^FO10,10^ADN,36,20^FDhello^FS^XZ', { resolutions: [203] }) }
  assert.doesNotThrow(() => compileTemplate(ok as unknown as TemplateDefinition, { everyResolution: true }))
})

test('compiled once per (version, dpi); a resolution the template does not list fails the render', () => {
  const def = { code: 'l', format: 'label', datasets: [], label: label('^XA^FO10,10^A0N,20,20^FDx^FS^XZ', { resolutions: [203, 300] }) }
  const compiled = compileTemplate(def as unknown as TemplateDefinition)
  const at300 = labelAt(compiled, 300)
  assert.equal(at300.dpi, 300)
  assert.equal(at300.widthDots, 1200)
  assert.equal(labelAt(compiled, 300), at300, 'the same compiled label, not rebuilt')
  assert.equal(labelAt(compiled, 203), compiled.label)
  assert.throws(() => labelAt(compiled, 600), (e: unknown) => e instanceof RenderError && e.code === 'RENDER_FAILED' && /600 dpi is not among the template's resolutions \(203, 300/.test(e.message))
})

test('bitmap fonts scale by the nearest whole factor within 5 %; otherwise refused naming the command and the path', () => {
  // 203 → 600 is ×2.956: ×3 (text 1.5 % larger); 152 → 300 is ×1.974: ×2.
  assert.match(text(label('^XA^FO10,10^ADN,36,20^FDhello^FS^XZ'), 600), /\^FO30,30\^ADN,108,60\^FDhello\^FS/)
  assert.match(text(label('^XA^FO10,10^ADN,36,20^FDhello^FS^XZ', { dpi: 152 }), 300), /\^ADN,72,40\^FDhello/)
  assert.match(text(label('^XA^CFD,36,20^FO10,10^FDhello^FS^XZ'), 600), /\^CFD,108,60\^FO30,30\^FDhello/)
  // No whole factor near ×1.478 (203 → 300): refused at publish, the error naming the template path and the command.
  const zpl = '^XA^FO10,10^ADN,36,20^FDhello^FS^XZ'
  const def = { code: 'l', format: 'label', datasets: [], label: label(zpl, { resolutions: [203, 300] }) }
  const message = /^label\.zpl: \^AD: bitmap font D scales only by whole factors, and 203 → 300 dpi is ×1\.478 \(no whole factor within 5 %\)/
  assert.throws(() => compileTemplate(def as unknown as TemplateDefinition, { everyResolution: true }), (e: unknown) =>
    e instanceof TemplateError && message.test(e.message) &&
    e.errors.at(0)?.path === 'label.zpl' && /^\^AD: /.test(e.errors.at(0)?.message ?? ''))
  // At publish (the one validation): the error under the template's JSON path /label/zpl.
  const demoFile = new URL('../../../../examples/templates/shipping-label.json', import.meta.url)
  const demo = JSON.parse(readFileSync(demoFile, 'utf8')) as { label: Record<string, unknown> }
  demo.label.zpl = zpl
  demo.label.resolutions = [203, 300]
  const checked = validateAndCompile(demo)
  assert.ok(!checked.ok && checked.errors.at(0)?.path === '/label/zpl', JSON.stringify(checked))
  assert.match(checked.errors.at(0)?.message ?? '', /^\^AD: bitmap font D scales only by whole factors, and 203 → 300 dpi/)
  // Text in the default bitmap font with no explicit size cannot be scaled even by a whole factor
  // (it would print at its authored dot size, half as large at 600 dpi).
  assert.throws(() => compileLabel(label('^XA^FO10,10^FDx^FS^XZ', { dpi: 300 }), 'label', 600), (e: unknown) =>
    e instanceof TemplateError &&
    /^label\.zpl: \^FD: text in the default bitmap font A cannot be scaled 300 → 600 dpi \(it has no explicit/.test(e.message))
  assert.match(text(label('^XA^CFA,18,10^FO10,10^FDx^FS^XZ', { dpi: 300 }), 600), /\^CFA,36,20\^FO20,20\^FDx/)
})
