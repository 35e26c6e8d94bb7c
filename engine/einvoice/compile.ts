// `document.einvoice` → CompiledEinvoice, once per template version. Every problem is collected
// and reported together, each naming its JSON path and its business term (BT/BG number), so
// publishing a template (and `svc templates validate`) shows the whole mapping's problems.
import { TemplateError } from '../errors.js'
import { compileExpression, compileText, type CompiledExpr } from '../expr/expressions.js'
import { Dec } from './decimal.js'
import { COUNTRIES, CURRENCIES, PAYMENT_MEANS, TYPE_CODES, UNITS, VAT_CATEGORIES } from './code-lists.js'
import { compileReader, type Getter, type InvoiceReader } from './reader.js'
import { LISTS, TERMS, termLabel, type Term } from './terms.js'

export type Profile = 'EN16931' | 'XRECHNUNG'
export const PROFILES: readonly Profile[] = ['EN16931', 'XRECHNUNG']

export interface CompiledEinvoice {
  profile: Profile
  /** Every term's accessor (reader.ts); list terms are read with `scope.row` set. */
  reader: InvoiceReader
}

interface Issue { path: string, message: string }

const ROOT = 'document.einvoice'

export interface CodeList { name: string, rule: string, codes: ReadonlySet<string> }
const codeLists = new Map<string, CodeList | null>()

/** The code list a value of this term must belong to, and the EN 16931 rule (BR-CL-nn) that says so. */
export function codeList (key: string): CodeList | null {
  // Asked per render by the rules: each term's answer is worked out once.
  let list = codeLists.get(key)
  if (list === undefined) codeLists.set(key, list = codeListOf(key))
  return list
}

function codeListOf (key: string): CodeList | null {
  if (key === 'currency') return { name: 'ISO 4217', rule: 'BR-CL-04', codes: CURRENCIES }
  if (key === 'typeCode') return { name: 'UNCL 1001 (380, 381, 384, 389)', rule: 'BR-CL-01', codes: TYPE_CODES }
  if (key.endsWith('.country')) return { name: 'ISO 3166-1', rule: 'BR-CL-14', codes: COUNTRIES }
  const rec20 = 'UN/ECE Rec. 20 (the subset in docs/einvoice.md)'
  if (key === 'lines.unit') return { name: rec20, rule: 'BR-CL-23', codes: UNITS }
  if (key === 'payment.means') return { name: 'UNCL 4461', rule: 'BR-CL-16', codes: PAYMENT_MEANS }
  const uncl5305 = 'UNCL 5305 (S, Z, E, AE, K, G, O)'
  if (key.endsWith('.category')) return { name: uncl5305, rule: 'BR-CL-17', codes: VAT_CATEGORIES }
  return null
}

/** A constant's problem for its term's kind, or null. */
function constantProblem (key: string, term: Term, v: string): string | null {
  if (term.kind === 'date' &&
    !/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${termLabel(key)}: expected a date (YYYY-MM-DD), got ${JSON.stringify(v)}`
  if ((term.kind === 'amount' || term.kind === 'quantity' || term.kind === 'rate') && Dec.parse(v) === null) {
    return `${termLabel(key)}: expected a decimal number, got ${JSON.stringify(v)}`
  }
  const list = codeList(key)
  if (list !== null && !list.codes.has(v)) return `${termLabel(key)}: ${JSON.stringify(v)} is not in ${list.name}`
  return null
}

/** A value: `{{ expr }}` alone keeps its type, text with placeholders is text, anything else a constant. */
function compileValue (v: unknown, path: string): { get: Getter, constant: string | null } {
  if (typeof v === 'number' || typeof v === 'boolean') return { get: () => v, constant: String(v) }
  if (typeof v !== 'string') {
    throw new TemplateError(`${path}: expected a string or a number`, [{
      path,
      message: 'expected a string or a number'
    }])
  }
  const m = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(v)
  if (m !== null && !m[1]!.includes('{{')) return { get: compileExpression(m[1]!, path), constant: null }
  if (v.includes('{{')) return { get: compileText(v, path), constant: null }
  return { get: () => v, constant: v }
}

/** A list's `rows`: a bare expression like a table's (`lines` or `{{ lines }}`). */
function compileRows (v: unknown, path: string): CompiledExpr {
  if (typeof v !== 'string') {
    throw new TemplateError(`${path}: expected an expression`, [{
      path,
      message: 'expected an expression'
    }])
  }
  const m = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(v)
  return compileExpression(m !== null ? m[1]! : v, path)
}

/** Throws one TemplateError listing every problem of the mapping. */
export function compileEinvoice (spec: unknown, document: Record<string, unknown>,
  datasetCodes: string[]): CompiledEinvoice {
  const issues: Issue[] = []
  const values = new Map<string, Getter>()
  const constants = new Map<string, unknown>()
  const rows = new Map<string, CompiledExpr>()
  const add = (path: string, message: string): void => { issues.push({ path, message }) }
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw fail([{
      path: ROOT,
      message: 'expected an object'
    }])
  }
  const o = spec as Record<string, unknown>
  const profile = o.profile ?? 'EN16931'
  if (!PROFILES.includes(profile as Profile)) {
    add(`${ROOT}.profile`,
    `unknown profile ${JSON.stringify(profile)}: use EN16931 or XRECHNUNG`)
  }
  const pdf = document.pdf as Record<string, unknown> | undefined
  if (pdf?.standard !== 'PDF/A-3b' && pdf?.standard !== 'PDF/A-3a') {
    add('document.pdf.standard',
      'an e-invoice is embedded in a PDF/A-3 document: set "standard": "PDF/A-3b" (or "PDF/A-3a", tagged)')
  }
  if (datasetCodes.includes('invoice')) {
    add(ROOT,
      "a dataset named 'invoice' would hide the computed invoice in expressions")
  }
  const walk = (node: Record<string, unknown>, prefix: string): void => {
    for (const [k, v] of Object.entries(node)) {
      if (prefix === '' && k === 'profile') continue
      const key = prefix + k
      const path = `${ROOT}.${key}`
      if (k === 'rows' && Object.hasOwn(LISTS, prefix.slice(0, -1))) {
        try { rows.set(prefix.slice(0, -1), compileRows(v, path)) } catch (err) { collect(err, add) }
        continue
      }
      const term = TERMS.get(key)
      if (term === undefined) {
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, key + '.')
        else add(path, `unknown term '${key}' (docs/einvoice.md lists the mapping)`)
        continue
      }
      try {
        const c = compileValue(v, path)
        values.set(key, c.get)
        if (c.constant !== null) constants.set(key, v)
        const problem = c.constant === null ? null : constantProblem(key, term, c.constant)
        if (problem !== null) add(path, problem)
      } catch (err) { collect(err, add) }
    }
  }
  walk(o, '')
  // Lists given without rows, and the terms each profile needs.
  for (const [list, info] of Object.entries(LISTS)) {
    const used = [...values.keys()].some((key) => key.startsWith(list + '.'))
    if ((used || list === 'lines') && !rows.has(list)) {
      add(`${ROOT}.${list}.rows`,
      `${info.bg} ${info.name}: 'rows' (an expression giving the rows) is required`)
    }
  }
  for (const [key, term] of TERMS) {
    if (values.has(key) || term.need === undefined) continue
    if (term.need === 'xrechnung' && profile !== 'XRECHNUNG') continue
    const list = key.split('.')[0]!
    if (Object.hasOwn(LISTS, list) && list !== 'lines' && !rows.has(list)) continue
    add(`${ROOT}.${key}`, `${termLabel(key)} is required${term.need === 'xrechnung' ? ' by XRechnung' : ''}`)
  }
  if (issues.length > 0) throw fail(issues)
  return { profile: profile as Profile, reader: compileReader(values, constants, rows) }
}

function collect (err: unknown, add: (path: string, message: string) => void): void {
  if (!(err instanceof TemplateError)) throw err
  for (const e of err.errors) add(e.path, e.message)
  if (err.errors.length === 0) add(ROOT, err.message)
}

function fail (issues: Issue[]): TemplateError {
  return new TemplateError(issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues)
}
