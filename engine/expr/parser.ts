// Recursive-descent parser: tokens -> a small tree that expressions.ts turns into closures.
// Precedence, lowest first: ?: , or/||, and/&&, == !=, < <= > >=, + -, * / %, unary (not ! -), postfix (. [] call).
import { SyntaxFault, tokenize, type Token } from './lexer.js'

export type Node =
  | { t: 'lit', value: unknown }
  | { t: 'name', name: string, pos: number }
  | { t: 'member', obj: Node, key: string }
  | { t: 'index', obj: Node, key: Node }
  | { t: 'call', name: string, args: Node[], pos: number }
  | { t: 'unary', op: '-' | 'not', arg: Node }
  | { t: 'binary', op: string, left: Node, right: Node }
  | { t: 'and' | 'or', left: Node, right: Node }
  | { t: 'cond', test: Node, then: Node, else: Node }

// Word forms of operators; `this`, `new`, `function` etc. are simply names that resolve to null.
const WORD_OPS = new Map([['and', '&&'], ['or', '||'], ['not', '!']])

/** Deepest nesting of brackets, unary operators and conditionals: recursion stays bounded. */
export const MAX_NESTING = 128

class Parser {
  private i = 0
  private depth = 0
  /** The 'eof' token that ends every token list: reading past the end reads it again. */
  private readonly eof: Token
  constructor (private readonly tokens: Token[]) {
    const last = tokens[tokens.length - 1]
    if (last?.kind !== 'eof') throw new Error('tokens must end with eof')
    this.eof = last
  }

  private peek (): Token { return this.tokens[this.i] ?? this.eof }
  private next (): Token { const tok = this.peek(); this.i++; return tok }

  /** The current token as an operator, mapping `and`/`or`/`not` to their symbols. */
  private opText (): string {
    const tok = this.peek()
    if (tok.kind === 'op') return tok.text
    if (tok.kind === 'ident') return WORD_OPS.get(tok.text) ?? ''
    return ''
  }

  private expect (text: string): void {
    const tok = this.next()
    if (tok.kind !== 'op' || tok.text !== text) {
      throw new SyntaxFault(`expected '${text}' but found ${describe(tok)}`, tok.pos)
    }
  }

  parseAll (): Node {
    const node = this.ternary()
    const tok = this.peek()
    if (tok.kind !== 'eof') throw new SyntaxFault(`unexpected ${describe(tok)}`, tok.pos)
    return node
  }

  /** Every recursion passes through ternary() or unary(): the depth is counted there. */
  private enter (): void {
    if (++this.depth > MAX_NESTING) {
      throw new SyntaxFault(`nested too deeply (more than ${MAX_NESTING} levels of ` +
      'brackets, operators and conditionals)', this.peek().pos)
    }
  }

  private ternary (): Node {
    this.enter()
    const test = this.or()
    if (this.opText() !== '?') { this.depth--; return test }
    this.next()
    const then = this.ternary()
    this.expect(':')
    const node: Node = { t: 'cond', test, then, else: this.ternary() }
    this.depth--
    return node
  }

  // A chain `a + b + c …` builds a left-deep tree: each link counts as a level too, so the tree
  // (and the recursion that compiles and evaluates it) is never deeper than MAX_NESTING.
  private or (): Node {
    const depth = this.depth
    let left = this.and()
    while (this.opText() === '||') { this.enter(); this.next(); left = { t: 'or', left, right: this.and() } }
    this.depth = depth
    return left
  }

  private and (): Node {
    const depth = this.depth
    let left = this.binary(0)
    while (this.opText() === '&&') { this.enter(); this.next(); left = { t: 'and', left, right: this.binary(0) } }
    this.depth = depth
    return left
  }

  private binary (level: number): Node {
    const ops = LEVELS[level]
    if (ops === undefined) return this.unary() // level === LEVELS.length: past the binary levels
    const depth = this.depth
    let left = this.binary(level + 1)
    for (;;) {
      const op = this.opText()
      if (!ops.includes(op)) { this.depth = depth; return left }
      this.enter()
      this.next()
      left = { t: 'binary', op, left, right: this.binary(level + 1) }
    }
  }

  private unary (): Node {
    this.enter()
    const node = this.unaryInner()
    this.depth--
    return node
  }

  private unaryInner (): Node {
    const op = this.opText()
    if (op === '!' || op === '-') {
      this.next()
      return { t: 'unary', op: op === '!' ? 'not' : '-', arg: this.unary() }
    }
    if (op === '+') { this.next(); return { t: 'unary', op: '-', arg: { t: 'unary', op: '-', arg: this.unary() } } }
    return this.postfix(this.primary())
  }

  private postfix (node: Node): Node {
    const depth = this.depth
    for (;;) {
      const op = this.opText()
      if (op === '.' || op === '[') this.enter()
      if (op === '.') {
        this.next()
        const tok = this.next()
        if (tok.kind !== 'ident') {
          throw new SyntaxFault('expected a field name after \'.\' but ' +
          `found ${describe(tok)}`, tok.pos)
        }
        node = { t: 'member', obj: node, key: tok.text }
      } else if (op === '[') {
        this.next()
        const key = this.ternary()
        this.expect(']')
        node = key.t === 'lit' && (typeof key.value === 'string' || typeof key.value === 'number')
          ? { t: 'member', obj: node, key: String(key.value) }
          : { t: 'index', obj: node, key }
      } else if (op === '(') {
        // Only a bare whitelisted name can be called; `a.b()` or `x()()` never reach a function value.
        throw new SyntaxFault('only functions from the whitelist can be called, by name', this.peek().pos)
      } else {
        this.depth = depth
        return node
      }
    }
  }

  private primary (): Node {
    const tok = this.next()
    switch (tok.kind) {
      case 'num': return { t: 'lit', value: tok.num }
      case 'str': return { t: 'lit', value: tok.text }
      case 'ident': {
        if (tok.text === 'true') return { t: 'lit', value: true }
        if (tok.text === 'false') return { t: 'lit', value: false }
        if (tok.text === 'null') return { t: 'lit', value: null }
        if (WORD_OPS.has(tok.text)) throw new SyntaxFault(`unexpected '${tok.text}'`, tok.pos)
        if (this.opText() === '(') return { t: 'call', name: tok.text, args: this.args(), pos: tok.pos }
        return { t: 'name', name: tok.text, pos: tok.pos }
      }
      case 'op':
        if (tok.text === '(') {
          const inner = this.ternary()
          this.expect(')')
          return inner
        }
        throw new SyntaxFault(`unexpected ${describe(tok)}`, tok.pos)
      default:
        throw new SyntaxFault('unexpected end of expression', tok.pos)
    }
  }

  private args (): Node[] {
    this.expect('(')
    const args: Node[] = []
    if (this.opText() === ')') { this.next(); return args }
    for (;;) {
      args.push(this.ternary())
      const op = this.opText()
      const tok = this.next()
      if (op === ')') return args
      if (op !== ',') throw new SyntaxFault(`expected ',' or ')' in argument list but found ${describe(tok)}`, tok.pos)
    }
  }
}

const LEVELS: string[][] = [['==', '!='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']]

function describe (tok: Token): string {
  if (tok.kind === 'eof') return 'end of expression'
  if (tok.kind === 'str') return 'a string'
  return `'${tok.text}'`
}

export function parse (src: string): Node {
  return new Parser(tokenize(src)).parseAll()
}
