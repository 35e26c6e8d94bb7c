// The glyphs of one font subset: original glyph id → subset glyph id in first-use order, with
// .notdef (0) always subset glyph 0. Shared by the TrueType and CFF subsetters.
export class GlyphMap {
  /** Original glyph ids by subset glyph id. */
  readonly glyphs: number[] = []
  private readonly mapping = new Map<number, number>()

  constructor () { this.include(0) }

  /** The subset glyph id of `gid`, added on first use. */
  include (gid: number): number {
    let n = this.mapping.get(gid)
    if (n === undefined) {
      n = this.glyphs.length
      this.glyphs.push(gid)
      this.mapping.set(gid, n)
    }
    return n
  }
}
