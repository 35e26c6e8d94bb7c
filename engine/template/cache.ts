// Compiled templates per published version. A version is immutable, so its key never goes
// stale; the LRU only bounds memory. A version was validated (and compiled) once, when it was
// published; a worker only parses and compiles it, once, on a miss. The size limit is checked
// again first, since it bounds what the worker is about to allocate.
import { LRUCache } from 'lru-cache'
import { TemplateError, TemplateLimitError } from '../errors.js'
import { MAX_TEMPLATE_BYTES } from '../limits.js'
import { compileTemplate, type CompiledTemplate } from './compile.js'
import type { TemplateDefinition } from './definition.js'
import { toPointer } from './pointer.js'

const cache = new LRUCache<string, CompiledTemplate>({ max: 256 })

export function getCompiled (versionKey: string, definitionJson: string): CompiledTemplate {
  const hit = cache.get(versionKey)
  if (hit !== undefined) return hit
  // UTF-16 length bounds the UTF-8 size from below; measure exactly only near the limit.
  if (definitionJson.length * 3 > MAX_TEMPLATE_BYTES && Buffer.byteLength(definitionJson) > MAX_TEMPLATE_BYTES) {
    const message = `template is ${Buffer.byteLength(definitionJson)} bytes; the limit is ${MAX_TEMPLATE_BYTES}`
    throw new TemplateLimitError(`template ${versionKey}: ${message}`, [{ path: '/', message }])
  }
  let def: TemplateDefinition
  try {
    def = JSON.parse(definitionJson) as TemplateDefinition
  } catch (err) {
    throw new TemplateError(`template ${versionKey} is not valid ` +
      `JSON: ${(err as Error).message}`, [{ path: '/', message: 'is not valid JSON' }])
  }
  let compiled: CompiledTemplate
  try {
    compiled = compileTemplate(def)
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err
    // Paths as JSON pointers, like validation reports them.
    const errors = err.errors.map((e) => ({ path: toPointer(e.path), message: e.message }))
    const first = errors[0] ?? { path: '/', message: err.message }
    const message = `template ${versionKey} is invalid: ${first.path} ${first.message}`
    throw err instanceof TemplateLimitError
      ? new TemplateLimitError(message, errors)
      : new TemplateError(message, errors)
  }
  cache.set(versionKey, compiled)
  return compiled
}

/** The compiled template if this thread has it; never parses or compiles. */
export function peekCompiled (versionKey: string): CompiledTemplate | undefined {
  return cache.get(versionKey)
}

/** For tests and for a worker that must drop everything (e.g. after a font change). */
export function clearCompiled (): void {
  cache.clear()
}

export function compiledCacheSize (): number {
  return cache.size
}
