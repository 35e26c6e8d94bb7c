// Optional hyphenation (a style's `"hyphenate": true`) by the render's `context.language`, with
// the TeX patterns of the `hyphen` package (Liang's algorithm). text.ts asks only for words
// that do not fit their line. Patterns are loaded once per worker and language, on first use
// (German's are 750 KB of source), from a fixed table of Latin-script languages: a language
// outside it, or none, means no hyphenation. Like the font caches, this is per-worker state of
// immutable data; nothing of one render's text outlives it beyond the bounded word memo below.
import { createRequire } from 'node:module'
import type { HyphenPatterns } from 'hyphen'

type Hyphenate = (text: string) => string
type CreateHyphenator = (patterns: HyphenPatterns, options: { hyphenChar: string, html: boolean }) => Hyphenate

// Loaded on first use (like the patterns): a worker whose templates never hyphenate loads nothing.
const require = createRequire(import.meta.url)

// Languages whose pattern file has the language's own name, then tags that need a mapping.
const SAME_NAME = ('af ca cs cy da es et eu fi fr fur ga gl hr hsb hu ia id is it kmr la lt lv nb nl nn no oc ' +
  'pl pms pt rm ro sk sl sq sv tk tr').split(' ')
/** Language tag (lower case) or its primary subtag → pattern file of `hyphen/patterns/`. */
const PATTERNS = new Map<string, string>([
  ...SAME_NAME.map((l): [string, string] => [l, l]),
  ['de', 'de-1996'], ['de-1901', 'de-1901'], ['de-1996', 'de-1996'], ['de-ch-1901', 'de-ch-1901'],
  ['en', 'en-us'], ['en-us', 'en-us'], ['en-gb', 'en-gb'], ['en-au', 'en-gb'], ['en-ie', 'en-gb'], ['en-nz', 'en-gb']
])

/** The hyphen drawn at the end of a line that breaks inside a word. */
export const HYPHEN = '-'
// Marks the break points in the library's answer; a word that already has one is left alone.
const SHY = '\u00AD'
// The library memoises every word it has seen, for ever: a new hyphenator after this many
// words keeps a long-lived worker's memory bounded whatever the documents say.
const WORDS_PER_HYPHENATOR = 20_000

export class Hyphenator {
  readonly patternFile: string
  private readonly patterns: HyphenPatterns
  private hyphenate: Hyphenate
  private words = 0

  constructor (patternFile: string, patterns: HyphenPatterns) {
    this.patternFile = patternFile
    this.patterns = patterns
    this.hyphenate = this.create()
  }

  /** Offsets inside `word` (UTF-16) where it may break with a hyphen, ascending; [] for none. */
  points (word: string): number[] {
    if (++this.words > WORDS_PER_HYPHENATOR) { this.hyphenate = this.create(); this.words = 1 }
    const marked = this.hyphenate(word)
    const out: number[] = []
    for (let i = 0, j = 0; j < marked.length; j++) {
      if (marked[j] === SHY && word[i] !== SHY) out.push(i)
      else i++
    }
    return out
  }

  private create (): Hyphenate {
    // The library adds the words it has seen to the exceptions object it is given: a copy
    // keeps the module's patterns as loaded.
    const createHyphenator = require('hyphen') as CreateHyphenator
    const [levels, trie, exceptions] = this.patterns
    const own: HyphenPatterns = exceptions === undefined ? [levels, trie] : [levels, trie, { ...exceptions }]
    return createHyphenator(own, { hyphenChar: SHY, html: false })
  }
}

const loaded = new Map<string, Hyphenator>()
/** Pattern loads and cache hits in this worker (tests check that a language loads once). */
export const hyphenationStats = { loads: 0, hits: 0 }

/** The pattern file for a language tag ("de", "de-AT", "en_GB" …), or undefined for none. */
export function patternFileFor (language: unknown): string | undefined {
  if (typeof language !== 'string' || language.length > 35) return undefined
  const tag = language.toLowerCase().replaceAll('_', '-')
  const dash = tag.indexOf('-')
  return PATTERNS.get(tag) ?? (dash < 0 ? undefined : PATTERNS.get(tag.slice(0, dash)))
}

/** The worker's hyphenator for `language` (patterns loaded on first use), or null for none. */
export function hyphenatorFor (language: unknown): Hyphenator | null {
  const file = patternFileFor(language)
  if (file === undefined) return null
  let h = loaded.get(file)
  if (h !== undefined) { hyphenationStats.hits++; return h }
  hyphenationStats.loads++
  h = new Hyphenator(file, require(`hyphen/patterns/${file}.js`) as HyphenPatterns)
  loaded.set(file, h)
  return h
}
