// The studio page: loads the session, wires the editor, data and parameter forms to the debounced
// render, and the save and publish buttons. Everything it shows comes from the local API.
import type { StudioSession } from '../contract.js'
import { api, isAbort } from './api.js'
import { dataOf, fillSelect } from './data-select.js'
import { createEditor } from './editor.js'
import { debounce, Latest } from './latest.js'
import { clearError, showError, showProblems, showWarnings, showXml } from './panes.js'
import { ParamsForm } from './params-form.js'
import { Preview } from './preview.js'

/** Quiet time after the last keystroke before a render: ~150 ms, as the lint. */
const RENDER_DEBOUNCE_MS = 150

const $ = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id)
  if (el === null) throw new Error(`index.html lacks #${id}`)
  return el as T
}

function describe (s: StudioSession): string {
  return s.source.kind === 'file' ? s.source.path : `${s.source.code} v${s.source.version} (${s.source.workspaceId})`
}

/**
 * The text to edit: a workspace's published definition comes as one compact line, where "the
 * error at line 1, column 2480" helps nobody; it is indented (same JSON, same meaning) so each
 * error has a line of its own. A file is edited exactly as it is on disk.
 */
function readable (s: StudioSession): string {
  if (s.source.kind !== 'workspace' || s.templateText.includes('\n')) return s.templateText
  try { return JSON.stringify(JSON.parse(s.templateText), null, 2) } catch { return s.templateText }
}

/** The dpi the label is authored at (`label.dpi`) when the server offers it, else 203, else the first. */
function authoredDpi (templateText: string, dpis: number[]): number {
  let dpi: unknown
  try { dpi = (JSON.parse(templateText) as { label?: { dpi?: unknown } }).label?.dpi } catch { dpi = undefined }
  const offered = (d: unknown): d is number => typeof d === 'number' && dpis.includes(d)
  return offered(dpi) ? dpi : offered(203) ? 203 : dpis[0] ?? 203
}

async function start (): Promise<void> {
  const session = await api.session()
  const errorPane = $('error')
  const status = $('status')
  const dataSelect = $<HTMLSelectElement>('data')
  const dpiSelect = $<HTMLSelectElement>('dpi')
  const preview = new Preview($('preview'))
  let text = readable(session)

  $('source').textContent = describe(session)
  fillSelect(dataSelect, session)
  dpiSelect.replaceChildren(...session.dpis.map((d) => new Option(`${d} dpi`, String(d))))
  dpiSelect.hidden = session.kind !== 'zpl'
  dpiSelect.value = String(authoredDpi(text, session.dpis))

  const latest = new Latest()
  const render = async (): Promise<void> => {
    const signal = latest.next()
    status.textContent = 'rendering…'
    try {
      const dpi = session.kind === 'zpl' ? Number(dpiSelect.value) : undefined
      const result = await api.render({
        templateText: text,
        data: dataOf(dataSelect.value, session),
        parameters: form.parameters(),
        context: form.context(),
        ...(dpi === undefined ? {} : { dpi })
      }, signal)
      if (signal.aborted || !await preview.show(result, dpi)) return
      clearError(errorPane)
      showWarnings($('warnings'), result.warnings)
      showXml($('xml'), result.xml)
      const count = result.format === 'pdf' ? `${result.pageCount} page(s)` : `${result.labelCount} label(s)`
      status.textContent = `${count} in ${Math.round(result.ms)} ms`
    } catch (e) {
      if (isAbort(e) || signal.aborted) return
      showError(errorPane, e)
      status.textContent = 'render failed'
    }
  }
  const schedule = debounce(() => { void render() }, RENDER_DEBOUNCE_MS)

  const form = new ParamsForm($('params'), $<HTMLTextAreaElement>('context'), schedule)
  form.update(text)
  dataSelect.addEventListener('change', schedule)
  dpiSelect.addEventListener('change', schedule)

  createEditor({
    parent: $('editor'),
    text,
    schema: session.schema,
    validate: async (t, signal) => await api.validate({ templateText: t }, signal),
    onChange: (t) => { text = t; form.update(t); schedule() },
    onValidated: (r) => showProblems($('problems'), r)
  })

  const save = $<HTMLButtonElement>('save')
  save.hidden = session.source.kind !== 'file'
  save.addEventListener('click', () => {
    api.save({ templateText: text }).then((r) => { status.textContent = `saved to ${r.saved}` },
      (e: unknown) => showError(errorPane, e))
  })
  $('publish').addEventListener('click', () => {
    const note = $<HTMLInputElement>('note').value.trim()
    api.publish({ templateText: text, ...(note === '' ? {} : { note }) }).then((r) => {
      const was = r.previousVersion === null ? 'first version' : `was v${r.previousVersion}`
      $('version').textContent = `published ${r.code} v${r.version} (${was})`
      if (session.source.kind === 'workspace') {
        session.source = { ...session.source, version: r.version }
        $('source').textContent = describe(session)
      }
      clearError(errorPane)
    }, (e: unknown) => showError(errorPane, e))
  })

  await render()
}

start().catch((e: unknown) => showError($('error'), e))
