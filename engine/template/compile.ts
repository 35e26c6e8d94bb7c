// Turns a validated template definition into what the render path needs: the compiled label
// (ZPL) or the compiled document (PDF, built by the layout engine's compileDocument).
import { RenderError, TemplateError } from '../errors.js'
import { compileDocument } from '../pdf/compile.js'
import type { CompiledDocument } from '../pdf/model.js'
import type { OutputFormat, TemplateFormat } from '../types.js'
import { compileLabel, type CompiledLabel } from '../zpl/compile.js'
import { DEFAULT_DPI, DPIS, type Dpi } from '../zpl/dpi.js'
import type { TemplateDefinition } from './definition.js'
import { compileEinvoiceOf, type CompiledEinvoice } from '../einvoice/of-template.js'

export interface CompiledTemplate {
  def: TemplateDefinition
  format: TemplateFormat
  outputFormat: OutputFormat
  /** A label at the resolution it was authored for. */
  label?: CompiledLabel
  /** A label at other resolutions, compiled on first use: once per (version, dpi) per worker. */
  labelAt?: Map<Dpi, CompiledLabel>
  document?: CompiledDocument
  /** `document.einvoice`, compiled (engine/einvoice/). */
  einvoice?: CompiledEinvoice
}

/**
 * Throws TemplateError (paths like `document.body[2].text` or `label.zpl`) when it cannot compile.
 * `everyResolution` (publish): a label is compiled at each of its `resolutions` too, so what
 * cannot be retargeted is refused before it is stored.
 */
export function compileTemplate (def: TemplateDefinition,
  options: { everyResolution?: boolean } = {}): CompiledTemplate {
  if (def.format === 'label') {
    if (def.label === undefined) throw missing('label')
    const compiled: CompiledTemplate = { def, format: 'label', outputFormat: 'zpl', label: compileLabel(def.label, 'label'), labelAt: new Map() }
    if (options.everyResolution === true) for (const dpi of resolutionsOf(compiled)) labelAt(compiled, dpi)
    return compiled
  }
  if (def.document === undefined) throw missing('document')
  const document = compileDocument(def.document, def)
  return { def, format: 'document', outputFormat: 'pdf', document, ...compileEinvoiceOf(def) }
}

function missing (member: string): Error {
  const message = 'is required for this format'
  return new TemplateError(`${member}: ${message}`, [{ path: member, message }])
}

function resolutionsOf (compiled: CompiledTemplate): readonly Dpi[] {
  return compiled.def.label?.resolutions ?? DPIS
}

/** The compiled label at `dpi` (undefined: as authored); RENDER_FAILED for a resolution the template does not list. */
export function labelAt (compiled: CompiledTemplate, dpi?: Dpi): CompiledLabel {
  const label = compiled.label
  const def = compiled.def.label
  if (label === undefined || def === undefined) throw new RenderError('RENDER_FAILED', 'template has no label')
  if (dpi === undefined || dpi === label.dpi) return label
  if (!resolutionsOf(compiled).includes(dpi)) {
    const authored = def.dpi ?? DEFAULT_DPI
    throw new RenderError('RENDER_FAILED', `label: ${dpi} dpi is not among the template's resolutions (${resolutionsOf(compiled).join(', ')}; authored at ${authored})`)
  }
  compiled.labelAt ??= new Map()
  let hit = compiled.labelAt.get(dpi)
  if (hit === undefined) {
    hit = compileLabel(def, 'label', dpi)
    compiled.labelAt.set(dpi, hit)
  }
  return hit
}
