// The part of fontkit the engine uses, typed (fontkit ships no types), and the one fix it needs.
// A leaf module, so the font modules that use it (fonts, system-fonts, standard-substitutes)
// form no import circle.
export interface GlyphPosition { xAdvance: number }
export interface Glyph { id: number, advanceWidth: number, codePoints: number[] }
/** The part of a fontkit font we use (fontkit ships no types). */
export interface FontkitFont {
  layout (text: string, features?: string[], script?: string, language?: string, direction?: string): {
    advanceWidth: number
    glyphs: Glyph[]
    positions: GlyphPosition[]
  }
  hasGlyphForCodePoint (cp: number): boolean
  unitsPerEm: number
  ascent: number
  descent: number
  lineGap: number
}

/**
 * fontkit caches one Glyph object per glyph id with the code points of the first text that
 * produced it; a contextual form or ligature reached later from other characters would then be
 * written to the PDF's ToUnicode map with the wrong text, and what a document extracts to would
 * depend on what the worker rendered before. Each lookup with code points gets its own view of
 * the cached glyph (metrics stay shared through the prototype).
 */
export function ownCodePoints (fk: FontkitFont): FontkitFont {
  const f = fk as unknown as { getGlyph (id: number, cps?: number[]): object | null, ownCodePoints?: true }
  if (f.ownCodePoints === true) return fk
  const getGlyph = f.getGlyph.bind(f)
  f.getGlyph = (id, cps) => {
    const g = getGlyph(id, cps)
    return g === null || cps === undefined || cps.length === 0
      ? g
      : (Object.create(g, { codePoints: { value: cps } }) as object)
  }
  f.ownCodePoints = true
  return fk
}
