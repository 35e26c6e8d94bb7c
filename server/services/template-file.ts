// A template file checked before it is stored: parsed (JSON text or a parsed value), validated
// and compiled once, so a bad file fails early with every error keyed by its JSON pointer.
// Shared by publish (services/templates.ts) and the CLI (`svc templates validate`).
import type { TemplateDefinition } from '../../engine/template/definition.js'
import { parseTemplateText } from '../../engine/template/json-text.js'
import { validateAndCompile, type ValidationIssue } from '../../engine/template/validate.js'
import { problem } from '../errors.js'

/** A file that passed: its text as stored, its definition and the validator's warnings. */
export interface CheckedTemplate {
  text: string
  definition: TemplateDefinition
  warnings: ValidationIssue[]
}

function parseFile (file: unknown): { text: string, json: unknown } {
  if (typeof file !== 'string') return { text: JSON.stringify(file), json: file }
  const parsed = parseTemplateText(file)
  if (parsed.ok) return { text: file, json: parsed.json }
  const message = parsed.errors.at(0)?.message ?? 'is not JSON'
  throw problem('TEMPLATE_INVALID', `template file ${message}`, { errors: { '/': [message] } })
}

/** TEMPLATE_INVALID lists every error keyed by its JSON pointer. */
export function checkTemplateFile (file: unknown): CheckedTemplate {
  const { text, json } = parseFile(file)
  const checked = validateAndCompile(json)
  if (checked.ok) return { text, definition: checked.template, warnings: checked.warnings }
  const errors: Record<string, string[]> = {}
  for (const e of checked.errors) (errors[e.path] ??= []).push(e.message)
  const first = checked.errors.at(0)
  throw problem(
    'TEMPLATE_INVALID',
    `${checked.errors.length} error(s) in the template file; first: ${first?.path ?? '/'} ${first?.message ?? ''}`,
    { errors }
  )
}
