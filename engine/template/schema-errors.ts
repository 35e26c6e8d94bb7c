// Ajv's errors for a template, made readable. Ajv reports every failed alternative of a oneOf/anyOf
// (a wrong column width inside a table gave 13 errors, the first about a missing `text`). Here:
// - an element (a oneOf of `$ref`s, one per kind) is judged as the kind its data names (the one
//   member `text`, `table`, … it has), by validating it against that kind's schema alone;
// - any other union becomes one message from its `description` ("expected a number, "*" or a
//   percentage"), plus the reason of the alternative whose type the value has (e.g. "must be >= 0");
// - the deepest (most specific) error comes first.
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js'
import { documentSchema } from '../pdf/schema.js'
import type { ValidationIssue } from './validate.js'

type Raw = ErrorObject & { parentSchema?: Record<string, unknown>, data?: unknown }

const DEFS = documentSchema.$defs as unknown as Record<string, { oneOf?: ReadonlyArray<{ $ref?: string }> }>
const DOCUMENT_ID = documentSchema.$id

/** Kinds of a union of `$ref`s, nested unions expanded: blockElement -> text, columns, …, table. */
function kindsOf (union: ReadonlyArray<{ $ref?: string }>): string[] | null {
  const kinds: string[] = []
  for (const branch of union) {
    const name = branch.$ref?.replace(/^#\/\$defs\//, '')
    if (name === undefined || !Object.hasOwn(DEFS, name)) return null
    const inner = DEFS[name]?.oneOf
    if (inner !== undefined) {
      const k = kindsOf(inner)
      if (k === null) return null
      kinds.push(...k)
    } else kinds.push(name)
  }
  return kinds
}

export function schemaErrors (ajv: Ajv2020, raw: Raw[]): ValidationIssue[] {
  const out: ValidationIssue[] = []
  collect(ajv, raw, '', out)
  const seen = new Set<string>()
  const unique = out.filter((e) => {
    const k = `${e.path}\n${e.message}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
  const depth = (p: string): number => p === '/' ? 0 : p.split('/').length
  return unique.map((e, i) => ({ e, i })).sort((a, b) => depth(b.e.path) - depth(a.e.path) || a.i - b.i).map(x => x.e)
}

function collect (ajv: Ajv2020, raw: Raw[], prefix: string, out: ValidationIssue[]): void {
  // Unions, outermost first (at one path the widest, blockElement before element): everything
  // they cover is replaced by what they say.
  const width = (e: Raw): number => kindsOf(branchesOf(e))?.length ?? 0
  const unions = raw.filter(e => e.keyword === 'oneOf' || e.keyword === 'anyOf')
    .sort((a, b) => a.instancePath.length - b.instancePath.length || width(b) - width(a))
  const covered: Array<(e: Raw) => boolean> = []
  for (const u of unions) {
    if (covered.some(c => c(u))) continue
    const at = u.instancePath
    const kinds = kindsOf(branchesOf(u))
    if (kinds !== null) {
      covered.push(e => e.instancePath === at || e.instancePath.startsWith(at + '/'))
      element(ajv, u.data, kinds, prefix + at, out)
    } else {
      const under = u.schemaPath + '/'
      covered.push(e => e.instancePath === at && (e === u || e.schemaPath.startsWith(under)))
      const description = typeof u.parentSchema?.description === 'string'
        ? u.parentSchema.description
        : 'one of the allowed forms'
      // The alternative whose type the value has, if it failed for another reason than its type.
      const reason = raw.find(e => e.instancePath === at && e.schemaPath.startsWith(under) &&
        e.keyword !== 'type' && e.keyword !== 'pattern' && e !== u)
      const why = reason === undefined ? '' : ` (${message(reason).message})`
      out.push({ path: pointer(prefix + at), message: `expected ${description}${why}` })
    }
  }
  for (const e of raw) {
    if (covered.some(c => c(e)) || e.keyword === 'if') continue
    const m = message(e)
    out.push({ path: pointer(prefix + m.path), message: m.message })
  }
}

const branchesOf = (u: Raw): Array<{ $ref?: string }> => (u.parentSchema?.[u.keyword] ?? []) as Array<{ $ref?: string }>

/** An element is judged as the one kind it names; no kind or two kinds is the error itself. */
function element (ajv: Ajv2020, data: unknown, kinds: string[], at: string, out: ValidationIssue[]): void {
  const list = kinds.join(', ')
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    out.push({ path: pointer(at), message: `expected an element: an object with one of ${list}` }); return
  }
  const named = kinds.filter(k => Object.hasOwn(data, k))
  if (named.length === 0) {
    const table = Object.hasOwn(data, 'table')
    out.push({
      path: pointer(at),
      message: table
        ? 'tables are allowed in body, reportHeader and summary only'
        : `expected an element: an object with one of ${list}`
    })
    return
  }
  if (named.length > 1) {
    out.push({
      path: pointer(at),
      message: `an element has exactly one of ${list}; this one has ${named.join(' and ')}`
    }); return
  }
  const check = ajv.getSchema(`${DOCUMENT_ID}#/$defs/${named[0]}`)
  if (check === undefined || check(data)) return
  collect(ajv, (check.errors ?? []) as Raw[], at, out)
}

function message (e: Raw): { path: string, message: string } {
  let path = e.instancePath
  let text = e.message ?? 'is invalid'
  if (e.keyword === 'required') { path += `/${String(e.params.missingProperty)}`; text = 'is required' }
  if (e.keyword === 'additionalProperties') {
    path += `/${String(e.params.additionalProperty)}`
    text = 'is not allowed here'
  }
  if (e.keyword === 'false schema') text = 'is not allowed for this format'
  if (e.keyword === 'enum') text += `: ${(e.params.allowedValues as unknown[]).map(v => JSON.stringify(v)).join(', ')}`
  return { path, message: text }
}

const pointer = (p: string): string => p === '' ? '/' : p
