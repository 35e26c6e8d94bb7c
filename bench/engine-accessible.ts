// The accessible e-invoice row of the engine benchmark (issue 34): the example invoice as
// Factur-X PDF/A-3a + PDF/UA-1 (tagged, ActualText, pdfuaid in the one extension-schema Bag)
// against the same invoice as a plain PDF (no standard, standard fonts not embedded), in the
// same run as bench/engine.ts; as Factur-X PDF/A-3b beside it, to show what UA adds alone.
import { render } from '../engine/render.js'
import { getCompiled } from '../engine/template/cache.js'
import type { RenderInput } from '../engine/types.js'
import { einvoiceTemplate, invoiceData, MAPPING, renderInput } from '../test/engine/einvoice/fixtures.js'
import { median } from './stats.js'

const cpuOf = (fn: () => void, n: number): number => {
  const c0 = process.cpuUsage()
  for (let i = 0; i < n; i++) fn()
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000 / n
}

type Obj = Record<string, unknown>

/**
 * The example invoice (examples/templates/invoice.json, its page as it is) with the e-invoice
 * tests' mapping and data (test/engine/einvoice/fixtures.ts): `pdf` null, a plain PDF of the
 * same page; otherwise a Factur-X invoice with those PDF options.
 */
function exampleInvoice (example: Obj, pdf: Obj | null): RenderInput {
  const fixture = einvoiceTemplate(MAPPING, pdf ?? {}) as { datasets: Array<{ fields: Obj[] }> }
  const datasets = structuredClone(fixture.datasets)
  // The example's header fields the fixture's mapping does not need.
  datasets[0]!.fields.push(...['customer_address', 'subtotal', 'tax'].map((name) => ({ name, type: 'string' })))
  const document = { ...(example.document as Obj) }
  delete document.pdf
  if (pdf !== null) Object.assign(document, { pdf, einvoice: MAPPING })
  const data = invoiceData()
  Object.assign(data.header, { customer_address: 'Musterstraße 12\n10115 Berlin', subtotal: '1000.00', tax: '190.00' })
  const inp = renderInput({ ...example, code: 'invoice-fx', datasets, document }, data)
  return { ...inp, parameters: { invoiceId: 1 } }
}

/** `example`: examples/templates/invoice.json, parsed. */
export function accessibleSection (example: Obj): string[] {
  const inputs = {
    plain: exampleInvoice(example, null),
    fx: exampleInvoice(example, { standard: 'PDF/A-3b' }),
    ua: exampleInvoice(example, { standard: 'PDF/A-3a', ua: 'PDF/UA-1' })
  }
  const one = (inp: RenderInput): number => render(getCompiled(inp.versionKey, inp.definition), inp).bytes.length
  for (let i = 0; i < 300; i++) { one(inputs.plain); one(inputs.fx); one(inputs.ua) }
  const cpu: Record<keyof typeof inputs, number[]> = { plain: [], fx: [], ua: [] }
  // Rounds interleaved, so the machine's load falls on all three alike.
  for (let round = 0; round < 5; round++) {
    for (const k of ['plain', 'fx', 'ua'] as const) cpu[k].push(cpuOf(() => one(inputs[k]), 300))
  }
  const [p, f, u] = [median(cpu.plain), median(cpu.fx), median(cpu.ua)]
  const ok = (v: boolean): string => v ? 'met' : '**missed**'
  return [
    '## Accessible e-invoice (PDF/A-3a + PDF/UA-1 + Factur-X)',
    '',
    '| document | CPU ms/render (median of 5 × 300) | bytes |',
    '|---|---|---|',
    `| invoice, plain (no standard, standard fonts not embedded) | ${p.toFixed(3)} | ${one(inputs.plain)} |`,
    `| the same invoice, Factur-X, PDF/A-3b | ${f.toFixed(3)} | ${one(inputs.fx)} |`,
    `| the same invoice, Factur-X, PDF/A-3a + PDF/UA-1 | ${u.toFixed(3)} | ${one(inputs.ua)} |`,
    '',
    `- PDF/A-3a + PDF/UA-1 + Factur-X: **${(u / p).toFixed(2)}×** the plain invoice's CPU (target ≤ 1.5×: ` +
      `${ok(u / p <= 1.5)}); ${(u / f).toFixed(2)}× the same invoice as PDF/A-3b. The structure tree is not in ` +
        'these figures until the tag-tree branch is merged.'
  ]
}
