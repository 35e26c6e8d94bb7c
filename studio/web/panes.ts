// The side panes: the server's problems (validate), the render's error, e-invoice XML and
// warnings. Each says plainly when it has nothing, so an empty pane is never a swallowed error.
import type { StudioProblem, ValidateResponse } from '../contract.js'
import { ApiError } from './api.js'

const item = (text: string, cls?: string): HTMLLIElement => {
  const li = document.createElement('li')
  li.textContent = text
  if (cls !== undefined) li.className = cls
  return li
}

function problemItem (p: StudioProblem, cls: string): HTMLLIElement {
  const hint = p.suggestion !== undefined && !p.message.includes(p.suggestion) ? ` — did you mean ${p.suggestion}?` : ''
  const li = item(`line ${p.line}:${p.column} ${p.path} — ${p.message}${hint}`, cls)
  li.dataset.line = String(p.line)
  return li
}

/** The server's verdict on the text: errors, then warnings, or "no problems". */
export function showProblems (list: HTMLElement, result: ValidateResponse | Error): void {
  if (result instanceof Error) {
    list.replaceChildren(item(`validate failed: ${result.message}`, 'error'))
    return
  }
  const items = [...result.errors.map((p) => problemItem(p, 'error')), ...result.warnings.map((p) => problemItem(p, 'warning'))]
  list.replaceChildren(...(items.length > 0 ? items : [item('no problems', 'ok')]))
  list.dataset.errors = String(result.errors.length)
}

/** A failed render (or save, publish): the problem's code, title, detail and its listed errors. */
export function showError (pane: HTMLElement, e: unknown): void {
  const lines = [e instanceof Error ? e.message : String(e)]
  // The problem's `errors`: messages by JSON path (a render's template or parameter errors).
  if (e instanceof ApiError && e.problem.errors !== undefined) {
    for (const [path, messages] of Object.entries(e.problem.errors)) lines.push(`${path}: ${[messages].flat().join('; ')}`)
  }
  pane.textContent = lines.join('\n')
  pane.hidden = false
}

export function clearError (pane: HTMLElement): void {
  pane.textContent = ''
  pane.hidden = true
}

export function showWarnings (list: HTMLElement, warnings: string[]): void {
  list.replaceChildren(...(warnings.length > 0 ? warnings.map((w) => item(w, 'warning')) : [item('no warnings', 'ok')]))
}

export function showXml (pre: HTMLElement, xml: string | undefined): void {
  pre.textContent = xml ?? '(this template has no e-invoice)'
}
