// Hand-written lexer for template expressions. No regex over the whole source and no eval:
// the token stream feeds the recursive-descent parser in parser.ts.

export type TokenKind = 'num' | 'str' | 'ident' | 'op' | 'eof'

export interface Token {
  kind: TokenKind
  /** Operator/punctuation text, identifier name or the decoded string literal. */
  text: string
  num: number
  /** 0-based offset in the expression source, for error messages. */
  pos: number
}

/** A syntax error with the offset it was found at; expressions.ts turns it into a TemplateError. */
export class SyntaxFault extends Error {
  readonly pos: number
  constructor (message: string, pos: number) {
    super(message)
    this.pos = pos
  }
}

// Longest first so `<=` wins over `<`.
const OPERATORS = [
  '==', '!=', '<=', '>=', '&&', '||', '+', '-', '*', '/', '%', '<', '>', '!', '?', ':', '.', ',', '(', ')', '[', ']'
]

const isDigit = (c: string): boolean => c >= '0' && c <= '9'
const isIdentStart = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_'
const isIdentPart = (c: string): boolean => isIdentStart(c) || isDigit(c)

export function tokenize (src: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i]! // i < src.length
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue }
    const start = i
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1] ?? ''))) {
      while (isDigit(src[i] ?? '')) i++
      if (src[i] === '.') { i++; while (isDigit(src[i] ?? '')) i++ }
      if (src[i] === 'e' || src[i] === 'E') {
        let j = i + 1
        if (src[j] === '+' || src[j] === '-') j++
        if (!isDigit(src[j] ?? '')) throw new SyntaxFault('malformed number', start)
        i = j
        while (isDigit(src[i] ?? '')) i++
      }
      if (isIdentStart(src[i] ?? '')) throw new SyntaxFault('malformed number', start)
      const text = src.slice(start, i)
      tokens.push({ kind: 'num', text, num: Number(text), pos: start })
      continue
    }
    if (isIdentStart(c)) {
      while (isIdentPart(src[i] ?? '')) i++
      tokens.push({ kind: 'ident', text: src.slice(start, i), num: 0, pos: start })
      continue
    }
    if (c === '"' || c === "'") {
      const [text, end] = readString(src, i)
      tokens.push({ kind: 'str', text, num: 0, pos: start })
      i = end
      continue
    }
    const op = OPERATORS.find(o => src.startsWith(o, i))
    if (op === undefined) throw new SyntaxFault(`unexpected character '${c}'`, start)
    tokens.push({ kind: 'op', text: op, num: 0, pos: start })
    i += op.length
  }
  tokens.push({ kind: 'eof', text: '', num: 0, pos: src.trimEnd().length })
  return tokens
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '/': '/' }

/** Reads a quoted literal starting at `start`; returns the decoded text and the offset after it. */
function readString (src: string, start: number): [string, number] {
  const quote = src[start]
  let out = ''
  let i = start + 1
  while (i < src.length) {
    const c = src[i]
    if (c === quote) return [out, i + 1]
    if (c === '\\') {
      const e = src[i + 1]
      if (e === 'u') {
        const hex = src.slice(i + 2, i + 6)
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new SyntaxFault('bad \\u escape', i)
        out += String.fromCharCode(parseInt(hex, 16))
        i += 6
        continue
      }
      // The escape may be the last character of the source.
      const mapped = e === undefined ? undefined : ESCAPES[e]
      if (mapped === undefined) throw new SyntaxFault(`bad escape '\\${e ?? ''}'`, i)
      out += mapped
      i += 2
      continue
    }
    out += c
    i++
  }
  throw new SyntaxFault('unterminated string', start)
}
