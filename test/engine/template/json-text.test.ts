import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { firstSyntaxError, parseTemplateText } from '../../../engine/template/json-text.js'
import { itemAt } from '../../helpers/item-at.js'

const invoice = readFileSync(new URL('../../../../examples/templates/invoice.json', import.meta.url), 'utf8')

function messageOf (text: string): string {
  const r = parseTemplateText(text)
  assert.ok(!r.ok, 'expected a syntax error')
  assert.equal(r.errors.length, 1)
  const e = itemAt(r.errors, 0)
  assert.equal(e.path, '/')
  return e.message
}

test('a syntax error deep in a real template names its line and column with a caret excerpt', () => {
  // Drop the comma after the "format" member: the error is at the start of the next line's key.
  const lines = invoice.split('\n')
  const at = lines.findIndex((l) => /^\s*"format": /.test(l))
  assert.ok(at > 0)
  lines[at] = itemAt(lines, at).replace(/,\s*$/, '')
  const next = itemAt(lines, at + 1)
  const column = next.length - next.trimStart().length + 1
  const message = messageOf(lines.join('\n'))
  const [head, excerpt, caret] = message.split('\n')
  assert.equal(head, `is not valid JSON: line ${at + 2}, column ${column}: expected ',' or '}', found "\\""`)
  assert.equal(excerpt, `  ${next}`)
  assert.equal(caret, `  ${' '.repeat(column - 1)}^`)
  assert.doesNotMatch(message, /position/)
})

test('each kind of mistake is named where it is', () => {
  const cases: Array<[string, number, number, RegExp]> = [
    ['{\n  "a": 1,\n}', 3, 1, /trailing comma before '}'/],
    ['{\n  "a": x\n}', 2, 8, /expected a value, found "x"/],
    ["{ 'a': 1 }", 1, 3, /double-quoted property name/],
    ['{ "a" 1 }', 1, 7, /expected ':'/],
    ['{ "a": "one\ntwo" }', 1, 12, /control character/],
    ['{ "a": "\\q" }', 1, 9, /invalid escape/],
    ['{ "a": [1, 2 }', 1, 14, /expected ',' or ']'/],
    ['{ "a": 1 } x', 1, 12, /after the end/],
    ['{ "a": [1', 1, 10, /unexpected end of file/],
    ['', 1, 1, /unexpected end of file/]
  ]
  for (const [text, line, column, what] of cases) {
    const [head = ''] = messageOf(text).split('\n')
    assert.match(head, new RegExp(`^is not valid JSON: line ${line}, ` +
      `column ${column}: `), `${JSON.stringify(text)} -> ${head}`)
    assert.match(head, what, JSON.stringify(text))
  }
})

test('the scanner accepts what JSON.parse accepts', () => {
  for (const text of [invoice, '[]', '{}', ' 1 ', '"\\u00e9\\n"', '{"a":[{},[],null,true,false,-0.5e+3]}']) {
    assert.equal(firstSyntaxError(text), null, text.slice(0, 40))
    assert.ok(parseTemplateText(text).ok)
  }
})

test('a long minified line is cut around the error', () => {
  const text = '{"a":"' + 'x'.repeat(500) + '",,"b":1}'
  const [, excerpt = '', caret = ''] = messageOf(text).split('\n')
  assert.ok(excerpt.length < 90)
  assert.equal(excerpt[caret.length - 1], ',')
})
