// The parts of fontkit and linebreak the engine uses (neither package ships types).
declare module 'fontkit' {
  export function create (buffer: Uint8Array, postscriptName?: string): unknown
}
declare module 'linebreak' {
  export default class LineBreaker {
    constructor (text: string)
    nextBreak (): { position: number, required: boolean } | null
  }
}
