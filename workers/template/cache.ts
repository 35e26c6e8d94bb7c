// Compiled templates per published version. A version is immutable, so its key never goes
// stale; the LRU only bounds memory. Parsing, validating and compiling happen on a miss only.
import { LRUCache } from 'lru-cache'
import { TemplateError } from '../errors.js'
import type { CompiledTemplate } from './compile.js'
import { validateAndCompile } from './validate.js'

const cache = new LRUCache<string, CompiledTemplate>({ max: 256 })

export function getCompiled (versionKey: string, definitionJson: string): CompiledTemplate {
  const hit = cache.get(versionKey)
  if (hit !== undefined) return hit
  let json: unknown
  try {
    json = JSON.parse(definitionJson)
  } catch (err) {
    throw new TemplateError(`template ${versionKey} is not valid JSON: ${(err as Error).message}`, [{ path: '/', message: 'is not valid JSON' }])
  }
  const result = validateAndCompile(json)
  if (!result.ok) {
    const first = result.errors[0]
    throw new TemplateError(`template ${versionKey} is invalid: ${first.path} ${first.message}`, result.errors)
  }
  cache.set(versionKey, result.compiled)
  return result.compiled
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
