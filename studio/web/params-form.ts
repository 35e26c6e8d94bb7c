// Parameters as a form generated from the template's own `parameters` declarations (re-read as
// the text changes), and `context` as a JSON object: a render needs both, as the API does.

/** A template's parameter declaration, as far as the form needs it (engine/template/schema.ts). */
interface ParameterDecl {
  name: string
  type: string
  required?: boolean
  description?: string
  enum?: Array<string | number>
  minimum?: number
  defaultValue?: unknown
}

/** The declarations of `templateText`, or null while the text does not parse (keep the old form). */
export function declaredParameters (templateText: string): ParameterDecl[] | null {
  try {
    const def = JSON.parse(templateText) as { parameters?: unknown }
    if (!Array.isArray(def.parameters)) return []
    return def.parameters.filter((p): p is ParameterDecl =>
      typeof p === 'object' && p !== null && typeof (p as ParameterDecl).name === 'string' &&
      typeof (p as ParameterDecl).type === 'string')
  } catch { return null }
}

/** One input's value in the type the parameter declares ('' → absent). */
function read (p: ParameterDecl, raw: string, checked: boolean): unknown {
  if (p.type === 'boolean') return checked
  if (raw === '') return undefined
  if (p.type === 'integer') return Number.isInteger(Number(raw)) ? Number(raw) : raw
  if (p.type.endsWith('[]')) {
    const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '')
    return p.type === 'integer[]' ? items.map(Number) : items
  }
  return raw
}

/** A value as the text of an input ('' for none; lists and objects as JSON). */
const rawOf = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v)

/**
 * What a required parameter's input starts with when the template gives no default: a value of
 * its type (within its bounds), so the first preview renders before anything is typed; the
 * input shows it and the author changes it.
 */
function sample (p: ParameterDecl): string {
  if (p.defaultValue !== undefined) return rawOf(p.defaultValue)
  if (p.required !== true) return ''
  if (p.enum?.[0] !== undefined) return String(p.enum[0])
  const today = new Date().toISOString()
  switch (p.type) {
    case 'integer': case 'decimal': case 'integer[]': return String(Math.max(p.minimum ?? 1, 1))
    case 'date': return today.slice(0, 10)
    case 'datetime': return today.slice(0, 16)
    case 'boolean': return ''
    default: return 'sample'
  }
}

const INPUT_TYPE: Record<string, string> = { date: 'date', datetime: 'datetime-local', integer: 'number' }

export class ParamsForm {
  private shape = ''
  private decls: ParameterDecl[] = []
  private readonly values = new Map<string, { raw: string, checked: boolean }>()

  constructor (private readonly box: HTMLElement, private readonly contextBox: HTMLTextAreaElement,
    private readonly onInput: () => void) {
    contextBox.addEventListener('input', () => onInput())
  }

  /** Rebuilds the inputs when the declarations changed, keeping what was typed into them. */
  update (templateText: string): void {
    const decls = declaredParameters(templateText)
    if (decls === null) return
    const shape = JSON.stringify(decls)
    if (shape === this.shape) return
    this.shape = shape
    this.decls = decls
    this.box.replaceChildren(...decls.map((p) => this.field(p)))
  }

  private field (p: ParameterDecl): HTMLElement {
    const label = document.createElement('label')
    label.textContent = `${p.name}${p.required === true ? ' *' : ''} `
    if (p.description !== undefined) label.title = p.description
    const kept = this.values.get(p.name) ?? { raw: sample(p), checked: p.defaultValue === true }
    let input: HTMLInputElement | HTMLSelectElement
    if (p.enum !== undefined) {
      input = document.createElement('select')
      input.append(new Option('', ''), ...p.enum.map((v) => new Option(String(v), String(v))))
      input.value = kept.raw
    } else {
      input = document.createElement('input')
      input.type = p.type === 'boolean' ? 'checkbox' : INPUT_TYPE[p.type] ?? 'text'
      input.value = kept.raw
      input.checked = kept.checked
    }
    input.name = p.name
    input.dataset.type = p.type
    input.addEventListener('input', () => {
      this.values.set(p.name, { raw: input.value, checked: input instanceof HTMLInputElement && input.checked })
      this.onInput()
    })
    label.append(input)
    return label
  }

  /** The parameters object of a render request. */
  parameters (): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const p of this.decls) {
      const v = this.values.get(p.name)
      const value = read(p, v?.raw ?? sample(p), v?.checked ?? false)
      if (value !== undefined) out[p.name] = value
    }
    return out
  }

  /** The context object; throws a readable error when the text is not a JSON object. */
  context (): Record<string, unknown> {
    const text = this.contextBox.value.trim()
    if (text === '') return {}
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('context must be a JSON object')
    return value as Record<string, unknown>
  }
}
