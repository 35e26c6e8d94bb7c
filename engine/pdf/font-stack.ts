// A font stack: the style's fonts, the template's font assets, then the installed default fonts
// (system-fonts.ts). Text is cut into runs, each drawn with the first font that has its
// characters. A whole word stays in one font when some font has all of it (no Helvetica "o"
// next to a Noto "ł" in one word); only a word no single font covers is split per character.
// Fast path: a standard primary font and WinAnsi text is one run, measured as before.
import type { FontFace, FontSet } from './fonts.js'
import { winAnsiOnly } from './metrics.js'
import { defaultStack, inRanges, type SystemFont } from './system-fonts.js'

export interface Run {
  /** null: no font of the stack has these characters (drawn as .notdef boxes). */
  face: FontFace | null
  start: number
  end: number
}

const CACHE_LIMIT = 20000

export class FontStack {
  readonly primary: FontFace
  readonly ascender: number
  readonly descender: number
  readonly lineGap: number
  private readonly fonts: FontSet
  private readonly explicit: FontFace[]
  private readonly defaults: SystemFont[]
  /** Faces of `defaults`, loaded on first need (null: not installed). */
  private readonly loaded: Array<FontFace | null | undefined>
  private readonly widths = new Map<string, number>()
  private readonly runCache = new Map<string, Run[]>()
  /** runs() of a text the primary standard font shows whole (fast path). */
  private readonly whole: Run[] = [{ face: null, start: 0, end: 0 }]

  constructor (fonts: FontSet, explicit: FontFace[]) {
    this.fonts = fonts
    this.explicit = explicit
    const primary = explicit[0]
    if (primary === undefined) throw new Error('a font stack needs at least one face')
    this.primary = primary
    this.ascender = this.primary.ascender
    this.descender = this.primary.descender
    this.lineGap = this.primary.lineGap
    this.defaults = defaultStack(/bold|black|heavy/i.test(this.primary.name))
    this.loaded = new Array<FontFace | null | undefined>(this.defaults.length)
  }

  /** Advance width of `s` in 1/1000 em, summed over its runs. */
  width (s: string): number {
    const p = this.primary
    if (p.std !== null && winAnsiOnly(s)) return p.width(s)
    let w = this.widths.get(s)
    if (w === undefined) {
      w = 0
      for (const r of this.runs(s)) w += (r.face ?? this.notdefFace()).width(s.slice(r.start, r.end))
      if (this.widths.size > CACHE_LIMIT) this.widths.clear()
      this.widths.set(s, w)
    }
    return w
  }

  /**
   * The font runs of `s` in logical order (cached: the same cell texts come back often). Read
   * them before the next call: the one run of the fast path is the same array each time.
   */
  runs (s: string): Run[] {
    const p = this.primary
    if (p.std !== null && winAnsiOnly(s)) {
      const run = this.whole[0]! // one entry, always
      run.face = p
      run.end = s.length
      return this.whole
    }
    let runs = this.runCache.get(s)
    if (runs === undefined) {
      runs = this.split(s)
      if (this.runCache.size > CACHE_LIMIT) this.runCache.clear()
      this.runCache.set(s, runs)
    }
    return runs
  }

  /** The face that draws .notdef boxes: the first embedded font of the stack. */
  notdefFace (): FontFace {
    for (const f of this.explicit) if (f.std === null) return f
    for (let i = 0; i < this.defaults.length; i++) {
      const f = this.defaultFace(i, this.defaults[i]!) // i < length
      if (f !== null) return f
    }
    return this.primary
  }

  private split (text: string): Run[] {
    const s = String(text) // see metrics.ts, widthStd
    const out: Run[] = []
    let i = 0
    while (i < s.length) {
      // A word and the spaces after it.
      let e = i
      while (e < s.length && s.charCodeAt(e) !== 32) e++
      if (e > i) this.word(s, i, e, out)
      let sp = e
      while (sp < s.length && s.charCodeAt(sp) === 32) sp++
      if (sp > e) {
        push(out, out[out.length - 1]?.face ?? this.primary, e, sp)
      }
      i = sp
    }
    return out
  }

  private word (s: string, a: number, b: number, out: Run[]): void {
    const cps = codePoints(s, a, b)
    const whole = this.covering(cps)
    if (whole !== null) { push(out, whole, a, b); return }
    let i = a
    for (const cp of cps) {
      const n = cp > 0xffff ? 2 : 1
      push(out, this.faceFor(cp), i, i + n)
      i += n
    }
  }

  /** The first face with every code point of `cps`, or null. */
  private covering (cps: number[]): FontFace | null {
    for (const f of this.explicit) if (cps.every((c) => f.has(c))) return f
    for (let i = 0; i < this.defaults.length; i++) {
      const d = this.defaults[i]! // i < length
      // A range-limited font (CJK: 20 MB) is only loaded when the word has a character of its script.
      if (d.ranges !== undefined && !cps.some((c) => inRanges(d, c))) continue
      const f = this.defaultFace(i, d)
      if (f !== null && cps.every((c) => f.has(c))) return f
    }
    return null
  }

  private faceFor (cp: number): FontFace | null {
    for (const f of this.explicit) if (f.has(cp)) return f
    for (let i = 0; i < this.defaults.length; i++) {
      const d = this.defaults[i]! // i < length
      if (!inRanges(d, cp)) continue
      const f = this.defaultFace(i, d)
      if (f !== null && f.has(cp)) return f
    }
    return null
  }

  /** `d`: defaults[i]. */
  private defaultFace (i: number, d: SystemFont): FontFace | null {
    let f = this.loaded[i]
    if (f === undefined) f = this.loaded[i] = this.fonts.find(d.name)
    return f
  }
}

function push (out: Run[], face: FontFace | null, start: number, end: number): void {
  const last = out[out.length - 1]
  // out may be empty.
  if (last !== undefined && last.face === face && last.end === start) last.end = end
  else out.push({ face, start, end })
}

function codePoints (s: string, a: number, b: number): number[] {
  const out: number[] = []
  for (let i = a; i < b; i++) {
    const cp = s.codePointAt(i)!
    out.push(cp)
    if (cp > 0xffff) i++
  }
  return out
}
