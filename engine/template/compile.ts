// Turns a validated template definition into what the render path needs: the compiled label
// (ZPL) or the compiled document (PDF, built by the layout engine's compileDocument).
import { TemplateError } from '../errors.js'
import { compileDocument } from '../pdf/compile.js'
import type { CompiledDocument } from '../pdf/model.js'
import type { OutputFormat, TemplateFormat } from '../types.js'
import { compileLabel, type CompiledLabel } from '../zpl/compile.js'
import type { TemplateDefinition } from './definition.js'

export interface CompiledTemplate {
  def: TemplateDefinition
  format: TemplateFormat
  outputFormat: OutputFormat
  label?: CompiledLabel
  document?: CompiledDocument
}

/** Throws TemplateError (paths like `document.body[2].text` or `label.zpl`) when it cannot compile. */
export function compileTemplate (def: TemplateDefinition): CompiledTemplate {
  if (def.format === 'label') {
    if (def.label === undefined) throw missing('label')
    return { def, format: 'label', outputFormat: 'zpl', label: compileLabel(def.label, 'label') }
  }
  if (def.document === undefined) throw missing('document')
  return { def, format: 'document', outputFormat: 'pdf', document: compileDocument(def.document, def) }
}

function missing (member: string): Error {
  const message = 'is required for this format'
  return new TemplateError(`${member}: ${message}`, [{ path: member, message }])
}
