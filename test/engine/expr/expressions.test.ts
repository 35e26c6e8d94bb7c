import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compileExpression, compileText, createScope, isConstantText, type EvalScope } from '../../../engine/expr/expressions.js'
import { TemplateError } from '../../../engine/errors.js'

function scope (): EvalScope {
  const s = createScope({
    datasets: {
      header: {
        number: 'INV-1001', total: '12.50', tax: '2.38', currency: 'EUR', 'due date': '2024-04-01', nested: { deep: { x: 5 } }
      },
      lines: [{ sku: 'A-1', qty: '2', amount: '3.10' }, { sku: 'B-2', qty: '1', amount: '4.20' }]
    },
    parameters: { invoiceId: 42, header: 'shadowed by dataset' },
    context: { language: 'en', company: 'ACME' }
  })
  s.row = { qty: '3', name: 'Widget', 'a b': 'spaced', zero: '0.00' }
  s.page = 2
  s.pages = 5
  s.index = 7
  return s
}

const ev = (src: string, s = scope()): unknown => compileExpression(src, 'test')(s)

test('literals', () => {
  assert.equal(ev('42'), 42)
  assert.equal(ev('3.25'), 3.25)
  assert.equal(ev('1e3'), 1000)
  assert.equal(ev('"dq"'), 'dq')
  assert.equal(ev("'sq'"), 'sq')
  assert.equal(ev('"a\\"b\\n\\u0041"'), 'a"b\nA')
  assert.equal(ev('true'), true)
  assert.equal(ev('false'), false)
  assert.equal(ev('null'), null)
})

test('paths: dot, index, quoted key, nested, missing', () => {
  assert.equal(ev('header.total'), '12.50')
  assert.equal(ev('row.qty'), '3')
  assert.equal(ev('lines[0].sku'), 'A-1')
  assert.equal(ev('lines[1]["sku"]'), 'B-2')
  assert.equal(ev('row["a b"]'), 'spaced')
  assert.equal(ev('header["due date"]'), '2024-04-01')
  assert.equal(ev('header.nested.deep.x'), 5)
  assert.equal(ev('lines[index - 7].sku'), 'A-1')
  assert.equal(ev('header.missing.x'), null)
  assert.equal(ev('lines[5].sku'), null)
  assert.equal(ev('lines[0.5]'), null)
  assert.equal(ev('nothing.here'), null)
  assert.equal(ev('header.number.length'), null, 'members of primitives are not reachable')
})

test('name resolution: scope names, then dataset codes, then parameters', () => {
  assert.equal(ev('page'), 2)
  assert.equal(ev('pages'), 5)
  assert.equal(ev('index'), 7)
  assert.equal(ev('group'), null)
  assert.equal(ev('context.company'), 'ACME')
  assert.equal(ev('params.invoiceId'), 42)
  assert.equal(ev('invoiceId'), 42)
  assert.deepEqual(ev('header.currency'), 'EUR', 'dataset wins over a parameter of the same name')
  assert.equal(ev('params.header'), 'shadowed by dataset')
})

test('arithmetic with numbers and numeric strings', () => {
  assert.equal(ev('1 + 2 * 3'), 7)
  assert.equal(ev('(1 + 2) * 3'), 9)
  assert.equal(ev('10 - 4 - 3'), 3)
  assert.equal(ev('7 / 2'), 3.5)
  assert.equal(ev('7 % 4'), 3)
  assert.equal(ev('-row.qty'), -3)
  assert.equal(ev('--2'), 2)
  assert.equal(ev('header.total + header.tax'), 14.88)
  assert.equal(ev('row.qty * 2'), 6)
  assert.equal(ev('header.missing * 2'), null, 'null propagates')
})

test('+ concatenates when a side is not numeric', () => {
  assert.equal(ev('"Invoice " + header.number'), 'Invoice INV-1001')
  assert.equal(ev('"n=" + 5'), 'n=5')
  assert.equal(ev('"x" + null'), 'x')
  assert.equal(ev('null + null'), null)
})

test('comparison', () => {
  assert.equal(ev('header.total == 12.5'), true)
  assert.equal(ev('header.total != 12.5'), false)
  assert.equal(ev('row.name == "Widget"'), true)
  assert.equal(ev('"10" > "9"'), true, 'numeric strings compare as numbers')
  assert.equal(ev('"b" > "a"'), true)
  assert.equal(ev('2 <= 2'), true)
  assert.equal(ev('2 < 2'), false)
  assert.equal(ev('3 >= 4'), false)
  assert.equal(ev('null == null'), true)
  assert.equal(ev('header.missing == null'), true)
  assert.equal(ev('null < 1'), false)
  assert.equal(ev('"1" == "1.0"'), false, 'two strings compare as text')
})

test('logic: words and symbols, short-circuit, truthiness of zero decimals', () => {
  assert.equal(ev('true and false'), false)
  assert.equal(ev('true && 5'), 5)
  assert.equal(ev('false or "x"'), 'x')
  assert.equal(ev('null || "fallback"'), 'fallback')
  assert.equal(ev('not true'), false)
  assert.equal(ev('!0'), true)
  assert.equal(ev('row.zero ? "some" : "none"'), 'none')
  assert.equal(ev('lines ? "has" : "empty"'), 'has')
  assert.equal(ev('false and upper(header)'), false, 'right side not evaluated')
})

test('ternary is right-associative and binds loosest', () => {
  assert.equal(ev('page == 1 ? "first" : page == 2 ? "second" : "other"'), 'second')
  assert.equal(ev('1 + 1 == 2 ? 10 : 20'), 10)
})

test('syntax errors are TemplateErrors naming where, the expression and the column', () => {
  for (const src of ['1 +', '(1', 'a..b', '"open', '1 2', 'a ? b', '@', 'f(1,', 'and', '1abc']) {
    assert.throws(() => compileExpression(src, 'body[3].text'), (err: unknown) => {
      assert.ok(err instanceof TemplateError, src)
      assert.match(err.message, /^body\[3\]\.text: /)
      assert.ok(err.message.includes(src.trim()), err.message)
      assert.equal(err.errors[0]?.path, 'body[3].text')
      return true
    })
  }
  assert.throws(() => compileExpression('1 +', 'w'), /at column 4/)
  assert.throws(() => compileExpression('  1 +  ', 'w'), /: 1 \+: unexpected end of expression at column 4$/)
})

test('compileText: constants, placeholders, null prints empty', () => {
  const s = scope()
  assert.equal(isConstantText('plain'), true)
  assert.equal(isConstantText('a {{ b }}'), false)
  assert.equal(compileText('plain text', 'w')(s), 'plain text')
  assert.equal(compileText('{{ header.number }}', 'w')(s), 'INV-1001')
  assert.equal(compileText('Page {{ page }} of {{ pages }}', 'w')(s), 'Page 2 of 5')
  assert.equal(compileText('[{{ header.missing }}]', 'w')(s), '[]')
  assert.equal(compileText('{{a}}{{b}}{{c}}{{ page }}!', 'w')(s), '2!')
  assert.equal(compileText('{{ 0.1 + 0.2 }}', 'w')(s), '0.3')
  assert.throws(() => compileText('Total {{ header.total', 'footer'), (e: unknown) => e instanceof TemplateError && /footer: unclosed/.test(e.message))
})

test('a compiled expression is reusable across scopes', () => {
  const e = compileExpression('row.qty * 2', 'w')
  const s = scope()
  const out: unknown[] = []
  for (const qty of [1, '2.5', null]) { s.row = { qty }; out.push(e(s)) }
  assert.deepEqual(out, [2, 5, null])
})
