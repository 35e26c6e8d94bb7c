// Turns a validated template definition into what the render path needs: the compiled label
// (ZPL) or the compiled document (PDF, built by the layout engine's compileDocument).
import { TemplateError } from '../errors.js'
import { compileDocument } from '../pdf/compile.js'
import type { OutputFormat, TemplateFormat } from '../types.js'
import { compileLabel, type CompiledLabel } from '../zpl/compile.js'
import type { TemplateDefinition } from './definition.js'
import { compileEinvoiceOf, type CompiledEinvoice } from '../einvoice/of-template.js'

export interface CompiledTemplate {
  def: TemplateDefinition
  format: TemplateFormat
  outputFormat: OutputFormat
  label?: CompiledLabel
  document?: ReturnType<typeof compileDocument>
  /** `document.einvoice`, compiled (engine/einvoice/). */
  einvoice?: CompiledEinvoice
}

/** Throws TemplateError (paths like `document.body[2].text` or `label.zpl`) when it cannot compile. */
export function compileTemplate (def: TemplateDefinition): CompiledTemplate {
  if (def.format === 'label') {
    if (def.label === undefined) throw missing('label')
    return { def, format: 'label', outputFormat: 'zpl', label: compileLabel(def.label, 'label') }
  }
  if (def.document === undefined) throw missing('document')
  const document = compileDocument(def.document, def)
  return { def, format: 'document', outputFormat: 'pdf', document, ...compileEinvoiceOf(def) }
}

function missing (member: string): Error {
  return new TemplateError(`${member}: is required for this format`, [{ path: member, message: 'is required for this format' }])
}
