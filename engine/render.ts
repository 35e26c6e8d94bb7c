// The engine's single entry: a compiled template + input → bytes. Pure: no I/O, no globals
// besides per-worker caches of immutable data (compiled templates, font metrics).
import { RenderError, TemplateError, TemplateLimitError } from './errors.js'
import { renderPdf, countRows, type OutputSink } from './pdf/render-pdf.js'
import { getCompiled } from './template/cache.js'
import { labelAt, type CompiledTemplate } from './template/compile.js'
import { createScope } from './expr/expressions.js'
import type { RenderFailure, RenderInput, RenderResult, RenderSuccess } from './types.js'
import { renderLabels } from './zpl/render.js'
import { einvoiceOf, renderEinvoicePdf } from './einvoice/render-einvoice.js'

/** With `out`, the output goes there (count first, then bytes) and the result's bytes are empty. */
export function render (compiled: CompiledTemplate, input: RenderInput, out?: OutputSink): RenderSuccess {
  if (compiled.format === 'label') {
    if (compiled.label === undefined) throw new RenderError('RENDER_FAILED', 'template has no label')
    const rows = countRows(input.datasets)
    if (rows > input.limits.maxRows) {
      throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxRows (${input.limits.maxRows}) exceeded: ${rows} rows`)
    }
    const scope = createScope({ datasets: input.datasets, parameters: input.parameters, context: input.context })
    const label = labelAt(compiled, input.labelDpi)
    const r = renderLabels(label, scope, input.limits)
    const labelDpi = label.dpi
    if (out === undefined) return { ok: true, format: 'zpl', bytes: r.bytes, pageCount: 0, labelCount: r.labelCount, labelDpi }
    // Labels are bounded by maxLabels and rendered whole; only their delivery is chunked.
    out.count(r.labelCount)
    out.write(r.bytes)
    return { ok: true, format: 'zpl', bytes: new Uint8Array(0), pageCount: 0, labelCount: r.labelCount, labelDpi }
  }
  if (compiled.document === undefined) throw new RenderError('RENDER_FAILED', 'template has no document')
  if (compiled.einvoice !== undefined) return renderEinvoicePdf(compiled.document, compiled.einvoice, input, out)
  return renderPdf(compiled.document, input, out)
}

/** A render whose failures are answers (the worker's, `svc templates preview`'s). */
export function renderResult (input: RenderInput): RenderResult {
  try {
    const compiled = getCompiled(input.versionKey, input.definition)
    return render(compiled, input)
  } catch (err) {
    return toFailure(err)
  }
}

export function toFailure (err: unknown): RenderFailure {
  if (err instanceof RenderError) return { ok: false, code: err.code, message: err.message }
  if (err instanceof TemplateLimitError) return { ok: false, code: 'RENDER_LIMIT_EXCEEDED', message: err.message }
  if (err instanceof TemplateError) return { ok: false, code: 'RENDER_FAILED', message: err.message }
  // A bug, not a template problem: do not leak internals into the answer.
  return { ok: false, code: 'RENDER_FAILED', message: 'internal error while rendering' }
}

/** The e-invoice XML a template's render embeds; null without `document.einvoice` (`preview --xml`). */
export function einvoiceXml (input: RenderInput): string | null {
  const compiled = getCompiled(input.versionKey, input.definition)
  return compiled.einvoice === undefined ? null : einvoiceOf(compiled.einvoice, input).xml
}
