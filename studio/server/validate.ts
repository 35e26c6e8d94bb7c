// POST /api/validate: the checks of `svc templates validate` (checkTemplateFile, the same one
// publish runs), with each error placed at its line and column and its "did you mean" apart.
import { checkTemplateFile, type CheckedTemplate } from '../../server/services/template-file.js'
import { isProblem } from '../../server/errors.js'
import type { StudioProblem, ValidateResponse } from '../contract.js'
import { pointerPosition, valueOffsets } from './json-positions.js'

// paths.ts: `<message>; did you mean <name>? (in {{ … }})`.
const SUGGESTION = /; did you mean (.+?)\?/

/** The validator's `{ path, message }` placed in the text. */
function place (text: string, offsets: Map<string, number>, path: string, raw: string): StudioProblem {
  // A JSON syntax error names its own line and column (json-text.ts); keep them.
  const syntax = /line (\d+), column (\d+)/.exec(raw)
  const at = syntax !== null && path === '/'
    ? { line: Number(syntax[1]), column: Number(syntax[2]) }
    : pointerPosition(text, offsets, path)
  const m = SUGGESTION.exec(raw)
  const message = m === null ? raw : raw.slice(0, m.index) + raw.slice(m.index + m[0].length)
  return { path, ...at, message, ...(m === null ? {} : { suggestion: m[1] }) }
}

export interface Validated extends ValidateResponse {
  /** The checked template when ok. */
  checked: CheckedTemplate | null
}

export function validateText (text: string): Validated {
  let offsets: Map<string, number> | null = null
  const offsetsOf = (): Map<string, number> => (offsets ??= valueOffsets(text))
  try {
    const checked = checkTemplateFile(text)
    const warnings = checked.warnings.map((w) => place(text, offsetsOf(), w.path, w.message))
    return { ok: true, errors: [], warnings, checked }
  } catch (err) {
    if (!isProblem(err) || err.code !== 'TEMPLATE_INVALID') throw err
    const errors: StudioProblem[] = []
    const invalidJson = Object.hasOwn(err.errors ?? {}, '/') && err.message.startsWith('template file is not')
    for (const [path, messages] of Object.entries(err.errors ?? {})) {
      for (const m of messages) errors.push(place(text, invalidJson ? new Map<string, number>() : offsetsOf(), path, m))
    }
    return { ok: false, errors, warnings: [], checked: null }
  }
}
