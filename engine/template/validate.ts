// Validation of a template file: JSON Schema first (all errors, JSON-pointer paths), then the
// semantic rules, then a full compile so anything the layout engine rejects is reported too.
import { Ajv2020 } from 'ajv/dist/2020.js'
import { TemplateError } from '../errors.js'
import { MAX_TEMPLATE_BYTES } from '../limits.js'
import { compileTemplate, type CompiledTemplate } from './compile.js'
import type { TemplateDefinition } from './definition.js'
import { compileText } from '../expr/expressions.js'
import { compileParameterCheck } from './parameters.js'
import { pathIssues } from './paths.js'
import { templateSchema } from './schema.js'
import { datasetSqlProblem } from './dataset-sql.js'
import { SqlLexError, tokenizeSql } from './sql-lexer.js'
import type { SqlToken } from './sql-lexer.js'
import { schemaErrors } from './schema-errors.js'
import { toPointer } from './pointer.js'
import { accessibilityIssues } from '../pdf/accessibility.js'

export { toPointer }

export interface ValidationIssue { path: string, message: string }
/**
 * `warnings`: the template is valid but a check was skipped (a dataset without fields), or it
 * lacks what a screen reader needs (accessibility, engine/pdf/accessibility.ts).
 */
export type ValidationResult =
  { ok: true, template: TemplateDefinition, warnings: ValidationIssue[] } | { ok: false, errors: ValidationIssue[] }

// Compiled once per worker. Ajv's default strict mode still rejects unknown keywords in our schemas.
// verbose: errors carry their schema and data, which schema-errors.ts needs to collapse unions.
const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, verbose: true })
const schemaCheck = ajv.compile(templateSchema)

/** Scope names that a dataset code would be shadowed by. */
const RESERVED = new Set(['row', 'group', 'page', 'pages', 'index', 'context', 'params'])

export function validateTemplate (json: unknown): ValidationResult {
  const r = validateAndCompile(json)
  return r.ok ? { ok: true, template: r.template, warnings: r.warnings } : r
}

/** The JSON text of `json`: JSON.stringify gives undefined for undefined (or a function). */
function jsonText (json: unknown): string {
  const stringify: (value: unknown) => string | undefined = JSON.stringify
  return stringify(json) ?? ''
}

/**
 * The one validation of a template, at publish: size, schema, semantic rules, a full compile
 * (kept, so the caller need not compile again), then the expression paths (paths.ts). `bytes`: the file's UTF-8
 * size when the caller has the text; measured from the value otherwise.
 */
export function validateAndCompile (
  json: unknown,
  bytes?: number
):
  | { ok: true, template: TemplateDefinition, compiled: CompiledTemplate, warnings: ValidationIssue[] }
  | { ok: false, errors: ValidationIssue[] } {
  const size = bytes ?? Buffer.byteLength(jsonText(json))
  if (size > MAX_TEMPLATE_BYTES) {
    return {
      ok: false,
      errors: [{ path: '/', message: `template is ${size} bytes; the limit is ${MAX_TEMPLATE_BYTES}` }]
    }
  }
  if (!schemaCheck(json)) return { ok: false, errors: schemaErrors(ajv, schemaCheck.errors ?? []) }
  const def = json as unknown as TemplateDefinition
  const errors = semanticErrors(def)
  if (errors.length > 0) return { ok: false, errors }
  let compiled: CompiledTemplate
  try {
    compiled = compileTemplate(def, { everyResolution: true })
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err
    const issues = err.errors.length > 0 ? err.errors : [{ path: '', message: err.message }]
    return { ok: false, errors: issues.map((e) => ({ path: toPointer(e.path), message: e.message })) }
  }
  // Last: every path of every expression against the names the runtime scope will hold.
  const paths = pathIssues(def)
  if (paths.errors.length > 0) return { ok: false, errors: paths.errors }
  return { ok: true, template: def, compiled, warnings: [...paths.warnings, ...accessibilityWarnings(def)] }
}

/** Without PDF/UA-1 (which made them errors when compiling) the accessibility findings are warnings. */
function accessibilityWarnings (def: TemplateDefinition): ValidationIssue[] {
  if (def.format === 'label') return []
  return accessibilityIssues(def.document).map((i) => ({
    path: toPointer(i.path),
    message: `accessibility: ${i.message} (an error with document.pdf.ua: PDF/UA-1)`
  }))
}

function semanticErrors (def: TemplateDefinition): ValidationIssue[] {
  const errors: ValidationIssue[] = []
  const params = def.parameters ?? []
  const datasets = def.datasets ?? []
  const paramNames = new Set<string>()
  params.forEach((p, i) => {
    const at = `/parameters/${i}`
    if (paramNames.has(p.name)) errors.push({ path: `${at}/name`, message: `duplicate parameter name '${p.name}'` })
    paramNames.add(p.name)
    if (p.minimum !== undefined && p.maximum !== undefined && p.minimum > p.maximum) {
      errors.push({ path: `${at}/minimum`, message: 'must not be greater than maximum' })
    }
    if (p.defaultValue !== undefined) {
      const r = compileParameterCheck({ parameters: [{ ...p, required: false }] })({ [p.name]: p.defaultValue })
      if (!r.ok) errors.push({ path: `${at}/defaultValue`, message: Object.values(r.errors).flat().join('; ') })
    }
  })
  const cardinality = new Map<string, string>()
  datasets.forEach((d, i) => {
    const at = `/datasets/${i}`
    if (cardinality.has(d.code)) errors.push({ path: `${at}/code`, message: `duplicate dataset code '${d.code}'` })
    if (RESERVED.has(d.code)) {
      errors.push({
        path: `${at}/code`,
        message: `'${d.code}' is a reserved name in expressions`
      })
    }
    if (paramNames.has(d.code)) errors.push({ path: `${at}/code`, message: `'${d.code}' is also a parameter name` })
    cardinality.set(d.code, d.cardinality)
    const sqlProblem = datasetSqlProblem(d.query)
    if (sqlProblem !== undefined) errors.push({ path: `${at}/query`, message: sqlProblem })
    for (const name of queryPlaceholders(d.query)) {
      if (name.startsWith('context.') && name.split('.').length === 2) continue
      if (!paramNames.has(name)) {
        errors.push({
          path: `${at}/query`,
          message: `placeholder :${name} is not a declared parameter`
        })
      }
    }
  })
  const needMultiple = (code: string, path: string): void => {
    const c = cardinality.get(code)
    if (c === undefined) errors.push({ path, message: `'${code}' is not a dataset of this template` })
    else if (c !== 'multiple') errors.push({ path, message: `dataset '${code}' must have cardinality 'multiple'` })
  }
  if (def.format === 'label' && def.label !== undefined) needMultiple(def.label.rows, '/label/rows')
  const einvoice = (def.document as { einvoice?: unknown } | undefined)?.einvoice !== undefined
  walk(def.document, 'document', (value, path, parentKey, owner) => {
    if (typeof value === 'string' && value.includes('{{')) {
      try { compileText(value, path) } catch (err) {
        if (!(err instanceof TemplateError)) throw err
        errors.push({ path: toPointer(path), message: err.errors[0]?.message ?? err.message })
      }
    }
    if (parentKey === 'rows' && typeof value === 'string' && owner === 'table') {
      const rows = value.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1').trim()
      // An e-invoice's computed lists (invoice.vat, invoice.lines …) are rows too.
      if (!(einvoice && rows.startsWith('invoice.'))) needMultiple(rows, toPointer(path))
    }
  })
  return errors
}

/** Visits every value under `node` with its dotted path, its key and the key of its parent object. */
type Visit = (v: unknown, path: string, key: string, owner: string) => void

function walk (node: unknown, path: string, visit: Visit, key = '', owner = ''): void {
  visit(node, path, key, owner)
  if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${path}[${i}]`, visit, key, owner))
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) walk(v, `${path}.${k}`, visit, k, key)
  }
}

/**
 * `:name` and `:context.xxx` placeholders of a query, read by the SQL lexer (sql-lexer.ts) so that
 * quoted text, comments and `::` ('10:30', a cast) are never placeholders. SQL the lexer cannot
 * read has none here; datasetSqlProblem() reports why.
 */
export function queryPlaceholders (sql: string): string[] {
  let tokens: SqlToken[]
  try {
    tokens = tokenizeSql(sql)
  } catch (err) {
    if (err instanceof SqlLexError) return []
    throw err
  }
  return tokens.filter((t) => t.kind === 'placeholder').map((t) => t.value)
}
