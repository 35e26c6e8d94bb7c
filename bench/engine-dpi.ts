// The label row of `make bench-engine` for printer resolutions (issue 35): 10,000 labels at 300
// dpi against 10,000 at 203, rounds interleaved so the machine's load hits both alike. The ZPL is
// compiled once per (version, dpi) and cached. The demo's ^BQN,2,8 needs magnification 11.8 at
// 300 dpi, so there its QR is drawn as ^GF (qr-graphic.ts): encoded once per (value, module size)
// and kept, which the bench's rows (the example's parcels, repeated) hit; a batch of distinct
// tracking numbers pays the encoder per label, measured separately. Run in its own process
// (`node dist/bench/engine.js --dpi`, started by the full run): see the note there.
import { readFileSync } from 'node:fs'
import { render } from '../engine/render.js'
import { getCompiled } from '../engine/template/cache.js'
import type { RenderInput, RenderLimits } from '../engine/types.js'

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

function labelInput (root: string, tag: string, zplEdit: (zpl: string) => string, rows: number,
  limits: RenderLimits): RenderInput {
  const def = JSON.parse(readFileSync(`${root}examples/templates/shipping-label.json`, 'utf8')) as { label: { zpl: string } }
  def.label.zpl = zplEdit(def.label.zpl)
  const parcels = (JSON.parse(readFileSync(`${root}examples/data/shipping-label.json`, 'utf8')) as { parcels: object[] }).parcels
  const many = Array.from({ length: rows }, (_, i) => ({ ...parcels[i % parcels.length], qty: 1 }))
  const definition = JSON.stringify(def)
  return { versionKey: `bench-dpi:${tag}`, definition, parameters: { batchId: 1 }, context: {}, datasets: { parcels: many }, limits }
}

/** CPU time (ms) of one render: steadier than wall time on the shared machine, as in the label row above. */
function timeAt (inp: RenderInput, labelDpi: 203 | 300): number {
  const t0 = process.cpuUsage()
  render(getCompiled(inp.versionKey, inp.definition), { ...inp, labelDpi })
  const t = process.cpuUsage(t0)
  return (t.user + t.system) / 1000
}

function ratioOf (inp: RenderInput): { at203: number, at300: number, ratio: number } {
  const at203: number[] = []
  const at300: number[] = []
  for (let i = 0; i < 3; i++) { timeAt(inp, 203); timeAt(inp, 300) }
  for (let i = 0; i < 15; i++) { at203.push(timeAt(inp, 203)); at300.push(timeAt(inp, 300)) }
  return { at203: median(at203), at300: median(at300), ratio: median(at300) / median(at203) }
}

export function dpiSection (root: string, limits: RenderLimits): string[] {
  // The demo as it is: its QR drawn as ^GF at 300 dpi, the values repeating as in a real batch reprint.
  const demo = ratioOf(labelInput(root, 'demo', (z) => z, 10_000, limits))
  // The demo with its QR at magnification 4 (6 at 300 dpi: every symbol stays native).
  const native = ratioOf(labelInput(root, 'native', (z) => z.replace('^BQN,2,8', '^BQN,2,4'), 10_000, limits))
  // Distinct tracking numbers: every label's QR encoded (no cache hit).
  const distinct = labelInput(root, 'distinct', (z) => z.replaceAll('{{ row.tracking_no }}', '{{ row.tracking_no }}{{ index }}'),
    2_000, limits)
  timeAt(distinct, 203)
  const d203 = median([timeAt(distinct, 203), timeAt(distinct, 203), timeAt(distinct, 203)]) / 2_000
  const d300 = median([timeAt(distinct, 300), timeAt(distinct, 300), timeAt(distinct, 300)]) / 2_000
  const met = (r: number): string => r <= 1.2 ? 'met' : '**missed**'
  return [
    '- Resolutions: 10,000 demo labels (`^BQN,2,8`, drawn as ^GF at 300 dpi; the 4 example parcels repeated) at 300 dpi CPU ' +
      `median **${demo.at300.toFixed(1)} ms**, at 203 dpi ${demo.at203.toFixed(1)} ms: **${demo.ratio.toFixed(2)}×** ` +
      `(target ≤ 1.2×: ${met(demo.ratio)}); the retargeted ZPL is compiled once per (version, dpi), the QR graphic ` +
      'once per (value, module size).',
    `- The same with \`^BQN,2,4\` (native ^BQ at both): 300 dpi ${native.at300.toFixed(1)} ms, 203 dpi ` +
      `${native.at203.toFixed(1)} ms: **${native.ratio.toFixed(2)}×** (${met(native.ratio)}).`,
    `- 2,000 labels with distinct tracking numbers: **${(d300 * 1000).toFixed(0)} µs CPU per label** at 300 dpi (every QR ` +
      `encoded by qr-matrix.ts and drawn as ^GF), ${(d203 * 1000).toFixed(1)} µs at 203 dpi: ` +
      `${(d300 / d203).toFixed(0)}× — a 203-dpi label leaves the QR to the printer.`
  ]
}
