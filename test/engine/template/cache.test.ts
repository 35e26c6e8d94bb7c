import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { clearCompiled, compiledCacheSize, getCompiled } from '../../../engine/template/cache.js'
import { compileTemplate } from '../../../engine/template/compile.js'
import { TemplateError } from '../../../engine/errors.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import { itemAt } from '../../helpers/item-at.js'

const read = (name: string): string => readFileSync(new URL(`../../../../examples/templates/${name}.json`, import.meta.url), 'utf8')

test('compileTemplate: a label compiles to ZPL output with a compiled label', () => {
  const c = compileTemplate(JSON.parse(read('shipping-label')) as TemplateDefinition)
  assert.equal(c.format, 'label')
  assert.equal(c.outputFormat, 'zpl')
  assert.equal(c.label?.rows, 'parcels')
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(c.label?.widthDots, 812)
  assert.equal(c.document, undefined)
})

test('compileTemplate: a document compiles to PDF output via the layout engine', () => {
  const c = compileTemplate(JSON.parse(read('invoice')) as TemplateDefinition)
  assert.equal(c.format, 'document')
  assert.equal(c.outputFormat, 'pdf')
  assert.notEqual(c.document, undefined)
  assert.equal(c.label, undefined)
})

test('getCompiled compiles once per version key and returns the same object', () => {
  clearCompiled()
  const a = getCompiled('tpl-1:3', read('invoice'))
  // A different (even broken) text under the same immutable version key is never looked at.
  const b = getCompiled('tpl-1:3', '{ broken')
  assert.equal(a, b)
  assert.equal(compiledCacheSize(), 1)
  const c = getCompiled('tpl-1:4', read('invoice'))
  assert.notEqual(a, c)
  assert.equal(compiledCacheSize(), 2)
})

test('getCompiled keeps at most 256 versions', () => {
  clearCompiled()
  const text = read('shipping-label')
  for (let i = 0; i < 300; i++) getCompiled(`lbl:${i}`, text)
  assert.equal(compiledCacheSize(), 256)
})

test('getCompiled rejects bad JSON and invalid templates with TemplateError paths', () => {
  clearCompiled()
  assert.throws(() => getCompiled('bad:1', '{ nope'), (e: unknown) => e instanceof TemplateError && /not valid JSON/.test(e.message))
  const t = JSON.parse(read('invoice')) as { document: { body: Array<{ text?: string }> } }
  itemAt(t.document.body, 0).text = '{{ header.number + }}'
  assert.throws(() => getCompiled('bad:2', JSON.stringify(t)), (e: unknown) => e instanceof TemplateError && e.errors[0]?.path === '/document/body/0/text')
  assert.equal(compiledCacheSize(), 0, 'failures are not cached')
})
