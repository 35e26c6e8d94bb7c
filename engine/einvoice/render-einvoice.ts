// A document template with an e-invoice: the invoice built once from the render's data (rules
// checked before a byte is written), then the PDF/A-3 render with `invoice` in its expressions
// and the XML embedded.
import { RenderError } from '../errors.js'
import { createScope } from '../expr/expressions.js'
import type { CompiledDocument } from '../pdf/model.js'
import { countRows, renderPdf, type OutputSink } from '../pdf/render-pdf.js'
import type { RenderInput, RenderSuccess } from '../types.js'
import { buildEinvoice, type BuiltEinvoice } from './build.js'
import type { CompiledEinvoice } from './compile.js'

/** The e-invoice of a render's input (also `svc templates preview --xml`). */
export function einvoiceOf (ce: CompiledEinvoice, input: RenderInput): BuiltEinvoice {
  const rows = countRows(input.datasets)
  if (rows > input.limits.maxRows) {
    throw new RenderError('RENDER_LIMIT_EXCEEDED',
    `maxRows (${input.limits.maxRows}) exceeded: ${rows} rows`)
  }
  return buildEinvoice(ce, createScope({
    datasets: input.datasets,
    parameters: input.parameters,
    context: input.context
  }))
}

export function renderEinvoicePdf (cd: CompiledDocument, ce: CompiledEinvoice, input: RenderInput,
  out?: OutputSink): RenderSuccess {
  const built = einvoiceOf(ce, input)
  return renderPdf(cd, input, out, { names: { invoice: built.view }, files: [built.file] })
}
