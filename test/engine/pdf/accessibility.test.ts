// The accessibility checks (engine/pdf/accessibility.ts): with `document.pdf.ua: PDF/UA-1` each
// finding is a publish-time error naming its JSON path; without it the same findings are
// validate's warnings, at the same paths.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { validateAndCompile, validateTemplate } from '../../../engine/template/validate.js'
import { png2x1 } from '../../helpers/png.js'

type Obj = Record<string, unknown>
type Edit = (d: Obj & { body: Obj[], styles: Obj }) => void

/** An accessible template: a title, an image with alt, a table with its header row, headings in order. */
function template (edit: Edit = () => {}, ua = true): Obj {
  const document = {
    ...(ua ? { pdf: { ua: 'PDF/UA-1' } } : {}),
    info: { title: 'Statement' },
    styles: { h1: { size: 18, heading: 1 }, h2: { size: 14, heading: 2 } },
    body: [
      { text: 'Statement', style: 'h1' },
      { image: { asset: 'logo', width: 20, alt: 'ACME logo' } },
      { text: 'Lines', heading: 2 },
      { table: { rows: 'lines', columns: [{ header: 'Item', value: '{{ row.item }}' }] } },
      { columns: [{ items: [{ text: 'Totals', style: 'h2' }] }, { items: [{ text: 'Notes', heading: 3 }] }] }
    ]
  }
  edit(document)
  return {
    code: 'statement',
    format: 'document',
    datasets: [{ code: 'lines', cardinality: 'multiple', query: 'SELECT item FROM t', fields: [{ name: 'item', type: 'string' }] }],
    assets: { images: { logo: { data: png2x1(0, Buffer.from([0, 0, 0, 255])) } } },
    document
  }
}

/** Each case: how to break the template, and the finding's JSON pointer. */
const CASES: Array<{ name: string, edit: Edit, path: string, message: RegExp }> = [
  { name: 'no title', edit: (d) => { delete d.info }, path: '/document/info/title', message: /title is required/ },
  { name: 'an empty title', edit: (d) => { d.info = { title: ' ' } }, path: '/document/info/title', message: /title is required/ },
  {
    name: 'an image without alt',
    edit: (d) => { d.body[1] = { image: { asset: 'logo', width: 20 } } },
    path: '/document/body/1/image/alt',
    message: /image needs alt text/
  },
  {
    name: 'a table without its header row',
    edit: (d) => { (d.body[3]!.table as Obj).header = false },
    path: '/document/body/3/table/header',
    message: /header row/
  },
  {
    name: 'a first heading that is not H1 (from a style)',
    edit: (d) => { d.body[0] = { text: 'Statement', style: 'h2' } },
    path: '/document/body/0/style',
    message: /first heading is H2 \(from style h2\): it must be H1/
  },
  {
    name: 'a skipped heading level',
    edit: (d) => { d.body[2] = { text: 'Lines', heading: 3 } },
    path: '/document/body/2/heading',
    message: /H3 follows H1: no heading level may be skipped/
  },
  {
    name: 'a skipped level inside columns, in document order',
    edit: (d) => { d.styles.h2 = { heading: 4 } },
    path: '/document/body/4/columns/0/items/0/style',
    message: /H4 \(from style h2\) follows H2/
  }
]

test('an accessible template publishes as PDF/UA-1 and validates without warnings', () => {
  const r = validateTemplate(template())
  assert.ok(r.ok, JSON.stringify(r.ok ? null : r.errors))
  assert.deepEqual(r.warnings, [])
  const plain = validateTemplate(template(undefined, false))
  assert.ok(plain.ok)
  assert.deepEqual(plain.warnings, [])
})

for (const c of CASES) {
  test(`PDF/UA-1: ${c.name} is refused at publish, naming ${c.path}; without UA it is a warning there`, () => {
    const r = validateAndCompile(template(c.edit))
    if (r.ok) assert.fail('published')
    assert.deepEqual(r.errors.map((e) => e.path), [c.path])
    assert.match(r.errors[0]!.message, c.message)
    const w = validateAndCompile(template(c.edit, false))
    assert.ok(w.ok, JSON.stringify(w.ok ? null : w.errors))
    assert.deepEqual(w.warnings.map((x) => x.path), [c.path])
    assert.match(w.warnings[0]!.message, c.message)
    assert.match(w.warnings[0]!.message, /^accessibility: .*\(an error with document\.pdf\.ua: PDF\/UA-1\)$/)
  })
}

test('every finding is listed at once; page headers and footers (artifacts) are not checked', () => {
  const r = validateAndCompile(template((d) => {
    delete d.info
    d.body[1] = { image: { asset: 'logo', width: 20 } }
    d.pageHeader = [{ image: { asset: 'logo', width: 20 } }, { text: 'Running head', heading: 4 }]
  }))
  if (r.ok) assert.fail('published')
  assert.deepEqual(r.errors.map((e) => e.path), ['/document/info/title', '/document/body/1/image/alt'])
})

test('group headers and footers of a table are read in document order', () => {
  const w = validateAndCompile(template((d) => {
    const t = d.body[3]!.table as Obj
    t.groupBy = '{{ row.item }}'
    t.groupHeader = [{ text: '{{ row.item }}', heading: 4 }]
  }, false))
  assert.ok(w.ok)
  assert.deepEqual(w.warnings.map((x) => x.path), ['/document/body/3/table/groupHeader/0/heading'])
})
