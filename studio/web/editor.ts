// The template editor: CodeMirror 6 with JSON, the template JSON Schema (completion, hover, schema
// lint, all in the page) and the server's own checks as a second lint source, so an error shows
// where it was made, with validate's "did you mean" suggestion.
import { EditorView, basicSetup } from 'codemirror'
import { hoverTooltip } from '@codemirror/view'
import { json, jsonLanguage, jsonParseLinter } from '@codemirror/lang-json'
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint'
import type { Text } from '@codemirror/state'
import { handleRefresh, jsonCompletion, jsonSchemaHover, jsonSchemaLinter, stateExtensions } from 'codemirror-json-schema'
import type { StudioProblem, ValidateResponse } from '../contract.js'
import { isAbort } from './api.js'
import { idle, Latest } from './latest.js'

/** Lint delay: the ~150 ms debounce of the brief, shared by the page's and the server's checks. */
const DELAY_MS = 150

export interface EditorOptions {
  parent: HTMLElement
  text: string
  schema: object
  /** The server's validate; the signal aborts when a newer edit supersedes this one. */
  validate: (text: string, signal: AbortSignal) => Promise<ValidateResponse>
  /** Every change of the text (the preview debounces on its own). */
  onChange: (text: string) => void
  /** The server's verdict for the current text (the problems pane). */
  onValidated: (result: ValidateResponse | Error) => void
}

/** Offset of a 1-based line/column in `doc`, clamped into it (the text may have moved on). */
export function offsetOf (doc: Text, line: number, column: number): number {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines))
  return Math.min(l.from + Math.max(0, column - 1), l.to)
}

/** A server problem as a CodeMirror diagnostic: from its position to the end of that line. */
function toDiagnostic (doc: Text, p: StudioProblem, severity: 'error' | 'warning'): Diagnostic {
  const from = offsetOf(doc, p.line, p.column)
  const to = Math.max(from, doc.lineAt(from).to)
  const hint = p.suggestion !== undefined && !p.message.includes(p.suggestion) ? ` (did you mean ${p.suggestion}?)` : ''
  return { from, to, severity, source: 'svc', message: `${p.message}${hint}` }
}

export function createEditor (o: EditorOptions): EditorView {
  const latest = new Latest()
  const parseLint = jsonParseLinter()
  const schemaLint = jsonSchemaLinter()
  // The server's checks: a lint source CodeMirror calls after DELAY_MS of quiet; a newer call
  // aborts the older fetch, and CodeMirror drops answers for a text that has since changed.
  const serverLint = linter(async (view) => {
    const doc = view.state.doc
    try {
      const result = await o.validate(doc.toString(), latest.next())
      o.onValidated(result)
      return [
        ...result.errors.map((p) => toDiagnostic(doc, p, 'error')),
        ...result.warnings.map((p) => toDiagnostic(doc, p, 'warning'))
      ]
    } catch (e) {
      if (!isAbort(e)) o.onValidated(e instanceof Error ? e : new Error(String(e)))
      return []
    }
  }, { delay: DELAY_MS })

  return new EditorView({
    parent: o.parent,
    doc: o.text,
    extensions: [
      basicSetup,
      // Long template lines (a table row per line) stay readable in a third of the screen.
      EditorView.lineWrapping,
      json(),
      lintGutter(),
      // The page's own lint (parse, then the whole document against the schema) runs on the main
      // thread: it waits for idle time so a preview being painted goes first.
      linter(async (view) => { await idle(); return parseLint(view) }, { delay: DELAY_MS }),
      linter(async (view) => { await idle(); return schemaLint(view) },
        { delay: DELAY_MS, needsRefresh: handleRefresh }),
      jsonLanguage.data.of({ autocomplete: jsonCompletion() }),
      hoverTooltip(jsonSchemaHover()),
      stateExtensions(o.schema),
      serverLint,
      EditorView.updateListener.of((u) => { if (u.docChanged) o.onChange(u.state.doc.toString()) })
    ]
  })
}
