// Dataset SQL split into tokens exactly where MariaDB/MySQL's lexer splits it, so the publish check
// (dataset-sql.ts) and the placeholder split (server/datasources/sql.ts) see the code the server
// will run — no regular expression over the whole text, which got `1--1` wrong (MariaDB reads
// 1 minus -1; a `--` starts a comment only when whitespace, a control character or the end follows).
//
// Read as MariaDB's sql_lex.cc reads it:
// - `#` to the end of the line, and `-- ` (`--` then a character ≤ U+0020, U+007F or the end):
//   comments up to `\n`;
// - `/* … */`: a comment up to the first `*/` (no nesting); `/*!…*/`, `/*M!…*/` (their content is
//   executed; `/*m!` too, though MariaDB only reads `M`: refusing more is safe) and `/*+…*/`
//   (MySQL 8 optimizer hints, which can change session limits) are their own kind, `executable`,
//   which the check refuses;
// - `'…'` and `"…"`: strings with doubled quotes and backslash escapes; a quote escaped with a
//   backslash is refused, because under NO_BACKSLASH_ESCAPES (a server-wide sql_mode the data
//   source's owner may set) that string would end earlier and its tail would be code. Without that
//   form, a string ends at the same place in both modes. Under ANSI_QUOTES `"…"` is an identifier:
//   the check treats it as one too where that matters (a function name);
// - `` `…` ``: an identifier with doubled backticks, no escapes;
// - words: runs of letters, digits, `_`, `$` and non-ASCII characters (keywords, names, numbers);
// - `:name` / `:context.name` placeholders (not after `:` or a word character, so `a::int` and
//   '10:30' are none), and every other character as a one-character operator.
// A NUL character is refused: MariaDB ends a comment at NUL and its reading past it is not worth
// reproducing. An unterminated string, identifier or comment is refused too.

export type SqlTokenKind = 'space' | 'comment' | 'executable' | 'string' | 'identifier' | 'word' | 'placeholder' | 'op'

export interface SqlToken {
  kind: SqlTokenKind
  /** Offsets into the SQL text: `sql.slice(start, end)` is the token. */
  start: number
  end: number
  /**
   * `string`/`identifier`: the content without quotes (doubled quotes and escapes undone);
   * `placeholder`: the name without `:`; `word`: the word in upper case; else the text.
   */
  value: string
}

/** The SQL cannot be read safely (unterminated, ambiguous or NUL); the message says why. */
export class SqlLexError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'SqlLexError'
  }
}

const isWordChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
  c === 0x5f || c === 0x24 || c >= 0x80
/** What JavaScript's `\w` matches: the placeholder rule predates this lexer and stays the same. */
const isAsciiWord = (ch: string | undefined): boolean => ch !== undefined && /\w/.test(ch)
const PLACEHOLDER = /:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y
// MariaDB's escapes; `\%` and `\_` keep their backslash (LIKE patterns), any other `\x` is `x`.
const ESCAPES: Record<string, string> = { 0: '\0', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a', '%': '\\%', _: '\\_' }

/** Tokens of `sql`, covering it from start to end; throws SqlLexError. */
export function tokenizeSql (sql: string): SqlToken[] {
  if (sql.includes('\0')) throw new SqlLexError('must not contain a NUL character')
  const tokens: SqlToken[] = []
  let i = 0
  const push = (kind: SqlTokenKind, end: number, value = sql.slice(i, end)): void => {
    tokens.push({ kind, start: i, end, value })
    i = end
  }
  while (i < sql.length) {
    const ch = sql[i]
    const next = sql[i + 1]
    const code = sql.charCodeAt(i)
    if (code <= 0x20) {
      let end = i + 1
      while (end < sql.length && sql.charCodeAt(end) <= 0x20) end++
      push('space', end)
    } else if (ch === '#' || (ch === '-' && next === '-' && dashDashComment(sql.charCodeAt(i + 2)))) {
      const nl = sql.indexOf('\n', i)
      push('comment', nl === -1 ? sql.length : nl)
    } else if (ch === '/' && next === '*') {
      const close = sql.indexOf('*/', i + 2)
      if (close === -1) throw new SqlLexError('has an unterminated /* comment')
      const executable = /^\/\*(?:!|[Mm]!|\+)/.test(sql.slice(i, i + 4))
      push(executable ? 'executable' : 'comment', close + 2)
    } else if (ch === "'" || ch === '"') {
      const [end, value] = quoted(sql, i, ch)
      push('string', end, value)
    } else if (ch === '`') {
      const [end, value] = backticked(sql, i)
      push('identifier', end, value)
    } else if (ch === ':' && placeholderEnd(sql, i) !== -1) {
      const end = placeholderEnd(sql, i)
      push('placeholder', end, sql.slice(i + 1, end))
    } else if (isWordChar(code)) {
      let end = i + 1
      while (end < sql.length && isWordChar(sql.charCodeAt(end))) end++
      push('word', end, sql.slice(i, end).toUpperCase())
    } else {
      // One UTF-16 unit is enough: every character above U+007F is a word character.
      push('op', i + 1)
    }
  }
  return tokens
}

/** Where the placeholder starting at the `:` at `i` ends, or -1 when that `:` starts none. */
function placeholderEnd (sql: string, i: number): number {
  if (sql[i - 1] === ':' || isAsciiWord(sql[i - 1])) return -1
  PLACEHOLDER.lastIndex = i
  return PLACEHOLDER.test(sql) ? PLACEHOLDER.lastIndex : -1
}

/** `--` is a comment when a space or control character follows it, or nothing (NaN: the end). */
function dashDashComment (code: number): boolean {
  return Number.isNaN(code) || code <= 0x20 || code === 0x7f
}

/** A '…' or "…" string from `start`: [end, content]. */
function quoted (sql: string, start: number, quote: string): [number, string] {
  let value = ''
  let i = start + 1
  while (i < sql.length) {
    const ch = sql[i]
    if (ch === '\\') {
      if (i + 1 >= sql.length) break
      const escaped = sql.charAt(i + 1)
      if (escaped === quote) {
        throw new SqlLexError(`has a quote escaped with a backslash (\\${quote}), which servers in ` +
          `NO_BACKSLASH_ESCAPES mode read differently: write ${quote}${quote} instead`)
      }
      value += ESCAPES[escaped] ?? escaped
      i += 2
    } else if (ch === quote) {
      if (sql[i + 1] !== quote) return [i + 1, value]
      value += quote
      i += 2
    } else {
      value += ch
      i++
    }
  }
  throw new SqlLexError(`has an unterminated ${quote === "'" ? 'string' : 'quoted text'}`)
}

/** A `…` identifier from `start`: [end, name]. */
function backticked (sql: string, start: number): [number, string] {
  let value = ''
  let i = start + 1
  while (i < sql.length) {
    if (sql[i] === '`') {
      if (sql[i + 1] !== '`') return [i + 1, value]
      value += '`'
      i += 2
    } else {
      value += sql[i]
      i++
    }
  }
  throw new SqlLexError('has an unterminated `identifier`')
}
