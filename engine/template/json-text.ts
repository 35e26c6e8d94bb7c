// Template file text -> value. JSON.parse's messages name a byte offset at best ("position 3885")
// and none at all for some tokens, so on failure a small scanner finds the first offending
// character and the error names its line and column with the line itself and a caret under it.
import type { ValidationIssue } from './validate.js'

export type ParsedText = { ok: true, json: unknown } | { ok: false, errors: ValidationIssue[] }

export function parseTemplateText (text: string): ParsedText {
  try {
    return { ok: true, json: JSON.parse(text) }
  } catch (err) {
    const found = firstSyntaxError(text) ?? { pos: text.length, what: (err as Error).message }
    return { ok: false, errors: [{ path: '/', message: describeAt(text, found.pos, found.what) }] }
  }
}

/** `line L, column C: <what>` and the line with a caret under the column (long lines cut around it). */
export function describeAt (text: string, pos: number, what: string): string {
  const before = text.slice(0, pos)
  const line = before.split('\n').length
  const lineStart = before.lastIndexOf('\n') + 1
  let lineEnd = text.indexOf('\n', pos)
  if (lineEnd < 0) lineEnd = text.length
  const column = pos - lineStart + 1
  // Cut to 80 characters around the column so a minified file still gives a readable excerpt.
  const from = Math.max(lineStart, pos - 60)
  const to = Math.min(lineEnd, from + 80)
  const excerpt = (from > lineStart ? '…' : '') + text.slice(from, to).replace(/\r$/, '').replace(/\t/g, ' ') +
    (to < lineEnd ? '…' : '')
  const caret = ' '.repeat(pos - from + (from > lineStart ? 1 : 0)) + '^'
  return `is not valid JSON: line ${line}, column ${column}: ${what}\n  ${excerpt}\n  ${caret}`
}

interface Fault { pos: number, what: string }

/** The first syntax error of `s` (RFC 8259), or null when it is valid JSON. Iterative: no recursion. */
export function firstSyntaxError (s: string): Fault | null {
  let i = 0
  const ws = (): void => { while (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r') i++ }
  const at = (what: string): Fault => ({
    pos: Math.min(i, s.length),
    what: i >= s.length
      ? `unexpected end of file (${what})`
      : what
  })
  const stack: string[] = []
  // `value` expects a value next; after a value we expect `,` or the closer of the open container.
  for (;;) {
    ws()
    const c = s[i]
    if (c === '{' || c === '[') {
      stack.push(c); i++; ws()
      if (s[i] === (c === '{' ? '}' : ']')) { stack.pop(); i++ } else if (c === '{') {
        const f = key(); if (f !== null) return f
        continue
      } else continue
    } else if (c === '"') {
      const f = string(); if (f !== null) return f
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(s.slice(i, i + 400))
      if (m === null) return at('expected a digit after "-"')
      i += m[0].length
    } else if (s.startsWith('true', i)) i += 4
    else if (s.startsWith('false', i)) i += 5
    else if (s.startsWith('null', i)) i += 4
    // The text may end here (index past the end).
    else return at(c === undefined ? 'expected a value' : `expected a value, found ${JSON.stringify(c)}`)
    // After a value: close containers or continue with the next member.
    for (;;) {
      ws()
      const top = stack[stack.length - 1]
      if (top === undefined) {
        return i < s.length
          ? at(`unexpected ${JSON.stringify(s[i])} after the end of the JSON value`)
          : null
      }
      const closer = top === '{' ? '}' : ']'
      if (s[i] === closer) { stack.pop(); i++; continue }
      if (s[i] !== ',') return at(`expected ',' or '${closer}'${i < s.length ? `, found ${JSON.stringify(s[i])}` : ''}`)
      i++; ws()
      if (s[i] === closer) return at(`trailing comma before '${closer}'`)
      if (top === '{') { const f = key(); if (f !== null) return f }
      break
    }
  }

  function key (): Fault | null {
    ws()
    if (s[i] !== '"') {
      return at(`expected a double-quoted property name${i < s.length ? `, found ${JSON.stringify(s[i])}` : ''}`)
    }
    const f = string(); if (f !== null) return f
    ws()
    if (s[i] !== ':') {
      return at('expected \':\' after the property ' +
      `name${i < s.length ? `, found ${JSON.stringify(s[i])}` : ''}`)
    }
    i++
    return null
  }

  function string (): Fault | null {
    i++
    while (i < s.length && s[i] !== '"') {
      const code = s.charCodeAt(i)
      if (code < 0x20) return at('control character (a raw line break or tab?) inside a string: write it as \\n or \\t')
      if (s[i] === '\\') {
        const e = s[i + 1]
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) return at('\\u must be followed by 4 hex digits')
          i += 6; continue
        }
        // The text may end here (index past the end).
        if (e === undefined || !'"\\/bfnrt'.includes(e)) return at(`invalid escape \\${e ?? ''} in a string`)
        i += 2; continue
      }
      i++
    }
    if (i >= s.length) return at('unterminated string')
    i++
    return null
  }
}
