// Where each JSON pointer's value starts in a template's text, so an error keyed by its path
// (the validator's own form) can be shown at its line and column in the editor. The text is
// valid JSON here (the parse error has its own position). Iterative, like json-text.ts: a
// deeply nested file cannot exhaust the stack.
import { escapeToken } from '../../engine/template/pointer.js'

export interface Position { line: number, column: number }

/** Every value's start offset by its JSON pointer ('' is the root). */
export function valueOffsets (text: string): Map<string, number> {
  const out = new Map<string, number>()
  // Each open container: its pointer, whether an object, and the next array index.
  const stack: Array<{ ptr: string, obj: boolean, index: number, key: string | null }> = []
  let i = 0
  const ws = (): void => { while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++ }
  const readString = (): string => {
    const start = i
    i++
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
    i++
    return JSON.parse(text.slice(start, i)) as string
  }
  const here = (): string => {
    const top = stack.at(-1)
    if (top === undefined) return ''
    return top.obj ? `${top.ptr}/${escapeToken(top.key ?? '')}` : `${top.ptr}/${top.index}`
  }
  ws()
  while (i < text.length) {
    const top = stack.at(-1)
    if (top?.obj === true && top.key === null) {
      // Expect a key or the close.
      ws()
      if (text[i] === '}') { stack.pop(); i++; afterValue(); continue }
      top.key = readString(); ws(); i++ // ':'
      ws()
    }
    // A value starts here.
    out.set(here(), i)
    const c = text[i]
    if (c === '{' || c === '[') {
      stack.push({ ptr: here(), obj: c === '{', index: 0, key: null })
      i++; ws()
      if (c === '[' && text[i] === ']') { stack.pop(); i++; afterValue() }
      continue
    }
    if (c === '"') readString()
    else while (i < text.length && !',]} \t\n\r'.includes(text[i] as string)) i++
    afterValue()
  }
  return out

  /** After a value: `,` moves to the next key/index, a closer ends containers. */
  function afterValue (): void {
    for (;;) {
      ws()
      const t = stack.at(-1)
      if (t === undefined) { i = text.length; return }
      if (text[i] === ',') {
        i++; ws()
        if (t.obj) t.key = null; else t.index++
        return
      }
      if (text[i] === '}' || text[i] === ']') { stack.pop(); i++; continue }
      i = text.length
      return
    }
  }
}

/** Line and column (1-based) of an offset. */
export function positionOf (text: string, offset: number): Position {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 }
}

/** The position of a pointer's value; an unknown pointer falls back to its nearest known parent. */
export function pointerPosition (text: string, offsets: Map<string, number>, pointer: string): Position {
  let p = pointer === '/' ? '' : pointer
  for (;;) {
    const at = offsets.get(p)
    if (at !== undefined) return positionOf(text, at)
    if (p === '') return { line: 1, column: 1 }
    p = p.slice(0, p.lastIndexOf('/'))
  }
}
