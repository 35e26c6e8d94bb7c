// A name-keyed CFF subset (glyphs known by name, one Private DICT), for a simple Type 1 font
// with FontFile3 /Type1C: the embedded standard fonts (simple-face.ts), whose text stays
// WinAnsi-encoded single bytes, exactly the content stream of an unembedded standard font.
// Same copying as cff-subset.ts (kept charstrings as bytes, only the subroutines they call);
// the charset names each kept glyph, which is how a viewer finds the glyph of a WinAnsi code.
import { GLOBAL } from './cff-charstrings.js'
import { OP } from './cff-read.js'
import { TOP_DROP, Writer, withSubrs, type CffFont } from './cff-subset.js'
import { entry, index, startOf, Strings } from './cff-write.js'

/** The subset of `glyphs` (original ids, .notdef first) named `names`, as a CFF table. */
export function nameKeyedCff (font: CffFont, glyphs: number[], names: string[]): Buffer {
  const { src } = font
  if (src.cid) throw new Error('CFF: a CID-keyed font cannot be a simple font')
  const codes = glyphs.map((g) => font.graph.glyph(g))
  const w = new Writer(font)
  for (const c of codes) w.follow(c)
  const strings = new Strings(src)
  const topEntries = Buffer.concat(strings.entries(src.top, TOP_DROP))
  // charset format 0: the name (string id) of every glyph after .notdef.
  const charset = Buffer.alloc(1 + 2 * (glyphs.length - 1))
  if (names.length !== glyphs.length) throw new Error('CFF: a name per glyph expected')
  names.forEach((name, i) => { if (i > 0) charset.writeUInt16BE(strings.add(name), 2 * i - 1) })
  const locals = w.groups.get(0)
  const priv = locals === undefined ? font.privateOf(0) : withSubrs(font.privateOf(0))
  const parts = [
    Buffer.from([1, 0, 4, 4]),
    src.nameIndex,
    Buffer.alloc(0), // Top DICT INDEX, once the offsets are known
    strings.index(),
    index((w.groups.get(GLOBAL) ?? []).map((c) => w.emit(c))),
    charset,
    index(codes.map((c) => w.emit(c))),
    priv,
    ...(locals === undefined ? [] : [index(locals.map((c) => w.emit(c)))])
  ]
  // Offsets are 5-byte integers: the Top DICT's size does not depend on them.
  const top = (cs: number, chars: number, p: number): Buffer => index([Buffer.concat([
    topEntries, entry(OP.charset, cs), entry(OP.CharStrings, chars), entry(OP.Private, priv.length, p)
  ])])
  parts[2] = top(0, 0, 0)
  // The placeholder has the final size: the offsets can be read with it in place.
  parts[2] = top(startOf(parts, 5), startOf(parts, 6), startOf(parts, 7))
  return Buffer.concat(parts, startOf(parts, parts.length))
}
