// Parameters of a template: the public JSON Schema (spec 2.3 `parameterSchema`) is the one
// validator. The server compiles that same schema with Ajv and enforces it, so a value is
// accepted exactly when the published schema accepts it; afterwards it applies defaults and the
// documented normalisation (decimals become strings so SQL binds them exactly). Nothing else is
// coerced. The schema is strict by itself: exact patterns for dates and date-times (real
// calendar days, hours 00-23), the safe-integer range, and one keyword of its own, `decimal`,
// for bounds and enums that must hold for numeric strings too (JSON Schema compares numbers only).
import { Ajv2020, type ErrorObject, type KeywordDefinition } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { DatasetDef, ParameterDef, ParameterType, TemplateDefinition } from './definition.js'

/** Bounds an `IN (…)` list: every item becomes a bound placeholder. */
export const MAX_LIST_ITEMS = 1000
/** Longest decimal string: DECIMAL(65,30) prints in 67 characters. */
export const MAX_DECIMAL_LENGTH = 100

// Fixed-width alternatives only: linear, and exact about month lengths and leap years.
const DAY = '(?:\\d{4}-(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|\\d{4}-(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)' +
  '|\\d{4}-02-(?:0[1-9]|1\\d|2[0-8])|(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)'
const DECIMAL = '^-?\\d+(?:\\.\\d+)?$'
const DATE = `^${DAY}$`
const DECIMAL_TEXT = new RegExp(DECIMAL)
const HOUR_MINUTE = '(?:[01]\\d|2[0-3]):[0-5]\\d'
const DATETIME = `^${DAY}T${HOUR_MINUTE}(?::[0-5]\\d(?:\\.\\d{1,9})?)?(?:Z|[+-]${HOUR_MINUTE})?$`

type Schema = Record<string, unknown>

const isRequired = (p: ParameterDef): boolean => p.required === true && p.defaultValue === undefined

/** `decimal`: minimum, maximum and enum compared as numbers, for numbers and numeric strings. */
export interface DecimalRule { minimum?: number, maximum?: number, enum?: Array<string | number> }

const decimalKeyword: KeywordDefinition = {
  keyword: 'decimal',
  schemaType: 'object',
  metaSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      minimum: { type: 'number' },
      maximum: { type: 'number' },
      enum: { type: 'array', items: { type: ['string', 'number'] } }
    }
  },
  errors: true,
  validate: function check (rule: DecimalRule, data: unknown): boolean {
    // Anything that is not a decimal is the business of `type` and `pattern`.
    if (typeof data !== 'number' && (typeof data !== 'string' || !DECIMAL_TEXT.test(data))) return true
    const n = Number(data)
    const errors: Array<Partial<ErrorObject>> = []
    const { minimum, maximum, enum: allowed } = rule
    if (minimum !== undefined && n < minimum) errors.push({ keyword: 'minimum', params: { limit: minimum } })
    if (maximum !== undefined && n > maximum) errors.push({ keyword: 'maximum', params: { limit: maximum } })
    if (allowed !== undefined && !allowed.some((e) => Number(e) === n)) {
      errors.push({ keyword: 'enum', params: { allowedValues: allowed } })
    }
    ;(check as unknown as { errors: Array<Partial<ErrorObject>> }).errors = errors
    return errors.length === 0
  }
}

/**
 * An Ajv that knows what parameterSchema uses (the `date` format, the `decimal` keyword).
 * Exported so that callers (and tests) validate with exactly what the server enforces.
 */
export function parameterAjv (): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true })
  addFormats.default(ajv, { mode: 'full', formats: ['date'] })
  ajv.addKeyword(decimalKeyword)
  return ajv
}

function scalarSchema (p: ParameterDef, itemType: string): Schema {
  const s: Schema = {}
  switch (itemType) {
    case 'string': s.type = 'string'; if (p.maxLength !== undefined) s.maxLength = p.maxLength; break
    case 'integer':
      s.type = 'integer'
      s.minimum = Math.max(p.minimum ?? -Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER)
      s.maximum = Math.min(p.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
      break
    case 'decimal': {
      s.type = ['number', 'string']
      s.pattern = DECIMAL
      s.maxLength = MAX_DECIMAL_LENGTH
      // Standard keywords for the numbers; `decimal` for numbers and numeric strings alike.
      if (p.minimum !== undefined) s.minimum = p.minimum
      if (p.maximum !== undefined) s.maximum = p.maximum
      const rule: DecimalRule = {}
      if (p.minimum !== undefined) rule.minimum = p.minimum
      if (p.maximum !== undefined) rule.maximum = p.maximum
      if (p.enum !== undefined) rule.enum = p.enum
      if (Object.keys(rule).length > 0) s.decimal = rule
      return s
    }
    case 'boolean': s.type = 'boolean'; break
    case 'date': s.type = 'string'; s.pattern = DATE; s.format = 'date'; break
    case 'datetime': s.type = 'string'; s.pattern = DATETIME; break
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
    const type: unknown = base.type
    s.type = [...[type].flat(), 'null']
    if (Array.isArray(s.enum)) s.enum = [...(s.enum as unknown[]), null]
  }
  return s
}

/** JSON Schema (draft 2020-12) of the `parameters` object of a render request. */
export function parameterSchema (def: Pick<TemplateDefinition, 'parameters'>): Schema {
  const properties: Record<string, Schema> = {}
  const required: string[] = []
  for (const p of def.parameters ?? []) {
    Object.defineProperty(properties, p.name, {
      value: propertySchema(p),
      enumerable: true,
      writable: true,
      configurable: true
    })
    if (isRequired(p)) required.push(p.name)
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties,
    required,
    additionalProperties: false
  }
}

export type ParameterCheckResult =
  | { ok: true, values: Record<string, unknown> }
  | { ok: false, errors: Record<string, string[]> }

const TYPE_MESSAGE: Record<Exclude<ParameterType, `${string}[]`>, string> = {
  string: 'must be a string',
  integer: 'must be an integer',
  decimal: 'must be a decimal number (number or numeric string)',
  boolean: 'must be true or false',
  date: 'must be a date YYYY-MM-DD',
  datetime: 'must be an ISO 8601 date-time'
}
const typeMessages = Object.values(TYPE_MESSAGE)

/** Ajv's error for one value, in the words callers have always seen. */
function messageOf (p: ParameterDef, e: ErrorObject, inItem: boolean): string {
  const type = p.type === 'integer[]' ? 'integer' : p.type === 'string[]' ? 'string' : p.type
  const limit = e.params.limit as number
  switch (e.keyword) {
    case 'minItems': return 'must not be empty'
    case 'maxItems': return `must have at most ${MAX_LIST_ITEMS} items`
    case 'maxLength': return type === 'decimal' ? TYPE_MESSAGE.decimal : `must be at most ${limit} characters`
    case 'minimum': case 'maximum': {
      // The safe-integer range is part of "integer", not a bound the author chose.
      const bound = e.keyword === 'minimum' ? p.minimum : p.maximum
      if (Math.abs(limit) === Number.MAX_SAFE_INTEGER && bound === undefined) return TYPE_MESSAGE.integer
      return e.keyword === 'minimum' ? `must be >= ${limit}` : `must be <= ${limit}`
    }
    case 'enum': return `must be one of ${(p.enum ?? []).map((v) => JSON.stringify(v)).join(', ')}`
    case 'type': if (p.type.endsWith('[]') && !inItem) return 'must be a list'
  }
  return TYPE_MESSAGE[type]
}

/** Ajv errors -> messages per parameter name, today's wording, one type error per value. */
function errorsOf (params: Map<string, ParameterDef>, raw: ErrorObject[]): Record<string, string[]> {
  const errors: Record<string, string[]> = Object.create(null) as Record<string, string[]>
  const add = (name: string, message: string): void => {
    let list = errors[name]
    if (list === undefined) errors[name] = list = []
    if (!list.includes(message)) list.push(message)
  }
  for (const e of raw) {
    if (e.instancePath === '') {
      if (e.keyword === 'required') add(String(e.params.missingProperty), 'is required')
      else if (e.keyword === 'additionalProperties') {
        add(String(e.params.additionalProperty), 'is not a parameter of this template')
      } else add('parameters', 'must be an object')
      continue
    }
    // "/name" or "/name/item" (a top-level parameter's path has no item segment).
    const [, rawName = '', item] = e.instancePath.split('/')
    const name = rawName.replace(/~1/g, '/').replace(/~0/g, '~')
    const p = params.get(name) as ParameterDef
    const message = messageOf(p, e, item !== undefined)
    add(name, item === undefined ? message : `item ${item} ${message}`)
  }
  // A value of the wrong kind also fails its range or enum: report only the kind, as ever.
  for (const [name, messages] of Object.entries(errors)) {
    const kinds = messages.filter((m) => typeMessages.some((t) => m.endsWith(t)) || m === 'must be a list')
    if (kinds.length > 0) errors[name] = kinds
  }
  return { ...errors }
}

// One Ajv per thread: its options never change and compiled schemas are removed from it.
const ajv = parameterAjv()

/** Compiles the published schema of a template into the check the server runs on every render. */
export function compileParameterCheck (
  def: Pick<TemplateDefinition, 'parameters'>
): (values: unknown) => ParameterCheckResult {
  const params = def.parameters ?? []
  const byName = new Map(params.map((p) => [p.name, p]))
  const schema = parameterSchema(def)
  const validate = ajv.compile(schema)
  // Ajv keeps every compiled schema; the function is all we need, so its cache stays small.
  ajv.removeSchema(schema)
  // defineProperty: a caller-sent "__proto__" key must stay a plain key, never a prototype.
  const set = (o: object, k: string, v: unknown): void => {
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  }
  return (values) => {
    if (values === undefined || values === null) values = {}
    if (!validate(values)) return { ok: false, errors: errorsOf(byName, validate.errors ?? []) }
    const given = values as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const p of params) {
      const v = Object.hasOwn(given, p.name) ? given[p.name] : undefined
      if (v === undefined || v === null) set(out, p.name, p.defaultValue ?? null)
      else set(out, p.name, p.type === 'decimal' && typeof v === 'number' ? String(v) : v)
    }
    return { ok: true, values: out }
  }
}

/** The public pieces of a template record (spec 2.3). The SQL of datasets is never included. */
export function publicTemplateView (def: TemplateDefinition): {
  parameters: Array<{ name: string, type: string, required: boolean, defaultValue: unknown, description: string }>
  parameterSchema: Schema
  datasets: Array<{
    code: string
    description: string
    cardinality: DatasetDef['cardinality']
    fields: Array<{ name: string, type: string }>
  }>
} {
  return {
    parameters: (def.parameters ?? []).map(p => ({
      name: p.name,
      type: p.type,
      required: isRequired(p),
      defaultValue: p.defaultValue ?? null,
      description: p.description ?? ''
    })),
    parameterSchema: parameterSchema(def),
    datasets: (def.datasets ?? []).map(d => ({
      code: d.code,
      description: d.description ?? '',
      cardinality: d.cardinality,
      fields: d.fields.map(f => ({ name: f.name, type: f.type }))
    }))
  }
}
