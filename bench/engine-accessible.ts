// The accessible e-invoice row of the engine benchmark (issue 34): the example invoice as it is —
// Factur-X, PDF/A-3a + PDF/UA-1 (tagged, ActualText, pdfuaid in the one extension-schema Bag) —
// against the same page as a plain PDF (no standard, untagged, standard fonts not embedded:
// engine-pdfa.ts's withStandard), in the same run as bench/engine.ts; and the same e-invoice as
// PDF/A-3b beside it, to show what the `a` level and UA add alone.
import { render } from '../engine/render.js'
import { getCompiled } from '../engine/template/cache.js'
import type { RenderInput } from '../engine/types.js'
import { nth, pairedCpu } from './stats.js'

/** The example `asIs` with its e-invoice but `document.pdf` replaced by `pdf`. */
function withPdf (asIs: RenderInput, pdf: Record<string, unknown>): RenderInput {
  const def = JSON.parse(asIs.definition) as { document: Record<string, unknown> }
  def.document = { ...def.document, pdf }
  return { ...asIs, versionKey: `${asIs.versionKey}:${JSON.stringify(pdf)}`, definition: JSON.stringify(def) }
}

/**
 * `asIs`: examples/templates/invoice.json as it is (PDF/A-3a + PDF/UA-1 + Factur-X) with its
 * example data; `plain`: the same page as a plain PDF.
 */
export function accessibleSection (asIs: RenderInput, plain: RenderInput): string[] {
  const inputs = { plain, fx: withPdf(asIs, { standard: 'PDF/A-3b' }), ua: asIs }
  const one = (inp: RenderInput): number => render(getCompiled(inp.versionKey, inp.definition), inp).bytes.length
  for (let i = 0; i < 300; i++) { one(inputs.plain); one(inputs.fx); one(inputs.ua) }
  // Rounds interleaved and paired (stats.ts), so the machine's load falls on all three alike.
  const paired = pairedCpu(() => one(inputs.plain), [() => one(inputs.fx), () => one(inputs.ua)], 10, 150)
  const [p, f, u] = [paired.baseMs, nth(paired.ms, 0), nth(paired.ms, 1)]
  const [fRatio, uRatio] = [nth(paired.ratios, 0), nth(paired.ratios, 1)]
  const ok = (v: boolean): string => v ? 'met' : '**missed**'
  return [
    '## Accessible e-invoice (PDF/A-3a + PDF/UA-1 + Factur-X)',
    '',
    '| document | CPU ms/render (10 paired rounds × 150, medians) | bytes |',
    '|---|---|---|',
    `| invoice, plain (no standard, untagged, standard fonts not embedded) | ${p.toFixed(3)} | ${one(inputs.plain)} |`,
    `| the same invoice, Factur-X, PDF/A-3b (tagged) | ${f.toFixed(3)} | ${one(inputs.fx)} |`,
    `| the example as it is: Factur-X, PDF/A-3a + PDF/UA-1 | ${u.toFixed(3)} | ${one(inputs.ua)} |`,
    '',
    `- PDF/A-3a + PDF/UA-1 + Factur-X: **${uRatio.toFixed(2)}×** the plain invoice's CPU (median of the rounds' ` +
      `ratios; target ≤ 1.5×: ${ok(uRatio <= 1.5)}); ${(uRatio / fRatio).toFixed(2)}× the same e-invoice as PDF/A-3b.`
  ]
}
