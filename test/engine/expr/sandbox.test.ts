import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compileExpression, compileText, createScope, type EvalScope } from '../../../engine/expr/expressions.js'
import { RenderError, TemplateError } from '../../../engine/errors.js'

function scope (): EvalScope {
  // JSON.parse makes `__proto__` an own property: the engine must still refuse it.
  const row: unknown = JSON.parse('{ "name": "x", "__proto__": { "polluted": true }, "constructor": "own" }')
  const s = createScope({
    datasets: { header: { fn: () => 'called' } }, parameters: { p: 1 }, context: { language: 'en' }
  })
  s.row = row
  return s
}

const ev = (src: string, s = scope()): unknown => compileExpression(src, 'body[0].text')(s)

test('prototype and constructor paths resolve to null', () => {
  for (const src of [
    'row.__proto__', 'row["__proto__"]', 'row.__proto__.polluted', 'row.constructor', 'row["constructor"]',
    'row.prototype', 'header.toString', 'header.hasOwnProperty', 'row.name.constructor', 'lines.constructor',
    '__proto__', 'constructor', 'row["__pro" + "to__"]', 'context.__proto__', 'params.constructor'
  ]) {
    assert.equal(ev(src), null, src)
  }
})

test('globals, this and process are just unknown names', () => {
  const globals = ['this', 'globalThis', 'process', 'require', 'window', 'Function', 'eval', 'process.env', 'globalThis.process.exit']
  for (const src of globals) {
    assert.equal(ev(src), null, src)
  }
})

test('calling anything but a whitelisted name is a compile error', () => {
  for (const src of [
    'row.constructor.constructor("return process")()', 'eval("1")', 'Function("return 1")', 'require("fs")',
    'process.exit()', 'header.fn()', 'upper("a")()', 'row["constructor"]("x")', 'toString()', 'hasOwnProperty("x")',
    'constructor("x")', '__proto__()', '(upper)("x")'
  ]) {
    assert.throws(() => compileExpression(src, 'body[0].text'),
      (e: unknown) => e instanceof TemplateError && e.message.startsWith('body[0].text: '), src)
  }
})

test('a function stored in data is not reachable as a value', () => {
  assert.equal(ev('header.fn'), null)
})

test('evaluation never mutates Object.prototype', () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort()
  ev('row.__proto__.polluted')
  ev('coalesce(row.__proto__, row.constructor)')
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before)
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
})

test('runtime errors are RenderError RENDER_FAILED naming where and the expression', () => {
  const cases: Array<[string, RegExp]> = [
    ['upper(row)', /upper expects text, got an object/],
    ['formatNumber(1 / 0, 2)', /not finite/],
    ['row * 2', /expects a number/],
    ['lines[row]', /cannot index/],
    ['formatNumber("abc")', /expects a number/]
  ]
  for (const [src, reason] of cases) {
    assert.throws(() => ev(src), (e: unknown) => {
      assert.ok(e instanceof RenderError, src)
      assert.equal(e.code, 'RENDER_FAILED')
      assert.ok(e.message.startsWith(`body[0].text: ${src}: `), e.message)
      assert.match(e.message, reason)
      return true
    })
  }
})

test('printing a non-printable value in text fails with the expression', () => {
  const s = scope()
  assert.throws(() => compileText('x {{ row }}', 'pageFooter[0].text')(s), (e: unknown) => e instanceof RenderError && e.message === 'pageFooter[0].text: row: cannot print an object; choose a field or use a function')
  assert.throws(() => compileText('{{ 1 / 0 }}', 'w')(s), (e: unknown) => e instanceof RenderError && /not a finite number/.test(e.message))
})
