// Parameters of a template: the public JSON Schema (spec 2.3 `parameterSchema`) and the checker
// the server runs before any query. The checker coerces nothing silently except decimals (number
// or numeric string, normalised to a string so SQL binds them exactly) and applies defaults.
import type { DatasetDef, ParameterDef, TemplateDefinition } from './definition.js'

const DECIMAL = /^-?\d+(\.\d+)?$/
const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/
/** Bounds an `IN (…)` list: every item becomes a bound placeholder. */
export const MAX_LIST_ITEMS = 1000

type Schema = Record<string, unknown>

const isRequired = (p: ParameterDef): boolean => p.required === true && p.defaultValue === undefined

function scalarSchema (p: ParameterDef, itemType: string): Schema {
  const s: Schema = {}
  switch (itemType) {
    case 'string': s.type = 'string'; if (p.maxLength !== undefined) s.maxLength = p.maxLength; break
    case 'integer': s.type = 'integer'; break
    case 'decimal': s.type = ['number', 'string']; s.pattern = DECIMAL.source; break
    case 'boolean': s.type = 'boolean'; break
    case 'date': s.type = 'string'; s.pattern = DATE.source; break
    case 'datetime': s.type = 'string'; s.pattern = DATETIME.source; break
  }
  if (itemType === 'integer' || itemType === 'decimal') {
    if (p.minimum !== undefined) s.minimum = p.minimum
    if (p.maximum !== undefined) s.maximum = p.maximum
  }
  if (p.enum !== undefined) s.enum = p.enum
  return s
}

function propertySchema (p: ParameterDef): Schema {
  const list = p.type.endsWith('[]')
  const base = list
    ? { type: 'array', items: scalarSchema(p, p.type.slice(0, -2)), minItems: 1, maxItems: MAX_LIST_ITEMS }
    : scalarSchema(p, p.type)
  const s: Schema = { ...base }
  if (p.description !== undefined) s.description = p.description
  if (p.defaultValue !== undefined) s.default = p.defaultValue
  // An optional parameter may be sent as null; queries see null for it either way.
  if (!isRequired(p)) {
    s.type = [...[base.type].flat() as string[], 'null']
    if (Array.isArray(s.enum)) s.enum = [...s.enum, null]
  }
  return s
}

/** JSON Schema (draft 2020-12) of the `parameters` object of a render request. */
export function parameterSchema (def: Pick<TemplateDefinition, 'parameters'>): Schema {
  const properties: Record<string, Schema> = {}
  const required: string[] = []
  for (const p of def.parameters ?? []) {
    Object.defineProperty(properties, p.name, { value: propertySchema(p), enumerable: true, writable: true, configurable: true })
    if (isRequired(p)) required.push(p.name)
  }
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties, required, additionalProperties: false }
}

export type ParameterCheckResult =
  | { ok: true, values: Record<string, unknown> }
  | { ok: false, errors: Record<string, string[]> }

/** One value against one parameter; returns the normalised value or pushes messages. */
function checkScalar (p: ParameterDef, type: string, v: unknown, errs: string[]): unknown {
  switch (type) {
    case 'string':
      if (typeof v !== 'string') { errs.push('must be a string'); return v }
      if (p.maxLength !== undefined && [...v].length > p.maxLength) errs.push(`must be at most ${p.maxLength} characters`)
      break
    case 'integer':
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) { errs.push('must be an integer'); return v }
      break
    case 'decimal':
      if (typeof v === 'number' && Number.isFinite(v)) v = String(v)
      else if (typeof v !== 'string' || !DECIMAL.test(v)) { errs.push('must be a decimal number (number or numeric string)'); return v }
      break
    case 'boolean':
      if (typeof v !== 'boolean') errs.push('must be true or false')
      return v
    case 'date':
      if (typeof v !== 'string' || !DATE.test(v) || !validDate(v)) errs.push('must be a date YYYY-MM-DD')
      return v
    case 'datetime':
      if (typeof v !== 'string' || !DATETIME.test(v) || !validDate(v.slice(0, 10)) || Number.isNaN(Date.parse(v))) errs.push('must be an ISO 8601 date-time')
      return v
  }
  const n = Number(v)
  if (p.minimum !== undefined && n < p.minimum) errs.push(`must be >= ${p.minimum}`)
  if (p.maximum !== undefined && n > p.maximum) errs.push(`must be <= ${p.maximum}`)
  if (p.enum !== undefined && !p.enum.some(e => e === v || (type === 'decimal' && Number(e) === n))) errs.push(`must be one of ${p.enum.map(e => JSON.stringify(e)).join(', ')}`)
  return v
}

function validDate (s: string): boolean {
  const d = new Date(s + 'T00:00:00Z')
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s
}

function checkOne (p: ParameterDef, v: unknown, errs: string[]): unknown {
  if (!p.type.endsWith('[]')) return checkScalar(p, p.type, v, errs)
  if (!Array.isArray(v)) { errs.push('must be a list'); return v }
  if (v.length === 0) errs.push('must not be empty')
  if (v.length > MAX_LIST_ITEMS) { errs.push(`must have at most ${MAX_LIST_ITEMS} items`); return v }
  const item = p.type.slice(0, -2)
  return v.map((x, i) => {
    const itemErrs: string[] = []
    const out = checkScalar(p, item, x, itemErrs)
    for (const e of itemErrs) errs.push(`item ${i} ${e}`)
    return out
  })
}

export function compileParameterCheck (def: Pick<TemplateDefinition, 'parameters'>): (values: unknown) => ParameterCheckResult {
  const params = def.parameters ?? []
  const known = new Set(params.map(p => p.name))
  return (values) => {
    const errors: Record<string, string[]> = {}
    const out: Record<string, unknown> = {}
    if (values === undefined || values === null) values = {}
    // defineProperty: a caller-sent "__proto__" key must stay a plain key, never a prototype.
    const set = (o: object, k: string, v: unknown): void => { Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true }) }
    if (typeof values !== 'object' || Array.isArray(values)) return { ok: false, errors: { parameters: ['must be an object'] } }
    const given = values as Record<string, unknown>
    for (const name of Object.keys(given)) {
      if (!known.has(name)) set(errors, name, ['is not a parameter of this template'])
    }
    for (const p of params) {
      const v = Object.hasOwn(given, p.name) ? given[p.name] : undefined
      if (v === undefined || v === null) {
        if (p.defaultValue !== undefined) set(out, p.name, p.defaultValue)
        else if (isRequired(p)) set(errors, p.name, ['is required'])
        else set(out, p.name, null)
        continue
      }
      const errs: string[] = []
      set(out, p.name, checkOne(p, v, errs))
      if (errs.length > 0) set(errors, p.name, errs)
    }
    return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, values: out }
  }
}

/** The public pieces of a template record (spec 2.3). The SQL of datasets is never included. */
export function publicTemplateView (def: TemplateDefinition): {
  parameters: Array<{ name: string, type: string, required: boolean, defaultValue: unknown, description: string }>
  parameterSchema: Schema
  datasets: Array<{ code: string, description: string, cardinality: DatasetDef['cardinality'], fields: Array<{ name: string, type: string }> }>
} {
  return {
    parameters: (def.parameters ?? []).map(p => ({
      name: p.name, type: p.type, required: isRequired(p), defaultValue: p.defaultValue ?? null, description: p.description ?? ''
    })),
    parameterSchema: parameterSchema(def),
    datasets: (def.datasets ?? []).map(d => ({
      code: d.code, description: d.description ?? '', cardinality: d.cardinality, fields: d.fields.map(f => ({ name: f.name, type: f.type }))
    }))
  }
}
