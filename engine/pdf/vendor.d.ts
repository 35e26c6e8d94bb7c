// The parts of fontkit, linebreak and hyphen the engine uses (none of them ships types).
declare module 'fontkit' {
  export function create (buffer: Uint8Array, postscriptName?: string): unknown
}
declare module 'linebreak' {
  export default class LineBreaker {
    constructor (text: string)
    nextBreak (): { position: number, required: boolean } | null
  }
}
declare module 'hyphen' {
  /** A pattern file of `hyphen/patterns/`: levels table, pattern trie, exceptions (word → break offsets). */
  export type HyphenPatterns = [number[][], object] | [number[][], object, Record<string, number[]>]
}
