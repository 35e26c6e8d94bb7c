// The template side's one call: a document template's `document.einvoice`, compiled, or nothing.
import { compileEinvoice, type CompiledEinvoice } from './compile.js'

export type { CompiledEinvoice }

interface TemplateLike { document?: unknown, datasets?: Array<{ code: string }> }

export function compileEinvoiceOf (def: TemplateLike): { einvoice?: CompiledEinvoice } {
  const d = def.document as Record<string, unknown> | undefined
  if (d?.einvoice === undefined) return {}
  return { einvoice: compileEinvoice(d.einvoice, d, (def.datasets ?? []).map((x) => x.code)) }
}
