// The engine's single entry: a compiled template + input → bytes. Pure: no I/O, no globals
// besides per-worker caches of immutable data (compiled templates, font metrics).
import { RenderError } from './errors.js'
import { renderPdf, countRows } from './pdf/render-pdf.js'
import type { CompiledTemplate } from './template/compile.js'
import { createScope } from './expr/expressions.js'
import type { RenderInput, RenderSuccess } from './types.js'
import { renderLabels } from './zpl/render.js'

export function render (compiled: CompiledTemplate, input: RenderInput): RenderSuccess {
  if (compiled.format === 'label') {
    if (compiled.label === undefined) throw new RenderError('RENDER_FAILED', 'template has no label')
    const rows = countRows(input.datasets)
    if (rows > input.limits.maxRows) throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxRows (${input.limits.maxRows}) exceeded: ${rows} rows`)
    const scope = createScope({ datasets: input.datasets, parameters: input.parameters, context: input.context })
    const r = renderLabels(compiled.label, scope, input.limits)
    return { ok: true, format: 'zpl', bytes: r.bytes, pageCount: 0, labelCount: r.labelCount }
  }
  if (compiled.document === undefined) throw new RenderError('RENDER_FAILED', 'template has no document')
  return renderPdf(compiled.document, input)
}
