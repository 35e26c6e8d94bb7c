// The element registry (engine/pdf/elements/index.ts) at run time: the schema's element unions
// name exactly the registered types, each with its module's schema fragment and a structure
// role, and every element type of the schema validates, compiles and changes what is drawn.
// (That an incomplete registry does not build is element-types.check.ts, checked by tsc.)
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { ELEMENTS, type BlockElementSpec, type ElementType } from '../../../engine/pdf/elements/index.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import { documentSchema } from '../../../engine/pdf/schema.js'
import { validateTemplate } from '../../../engine/template/validate.js'
import { png2x1 } from '../../helpers/png.js'
import { input, pdfInfo } from './fixtures.js'

const ROLES = ['P', 'H', 'Div', 'Sect', 'Table', 'Figure', 'Artifact', 'None']

/**
 * One element of each type, as a template writes it (a new type must add one to build), and
 * whether it paints anything itself (a spacer and a page break only move what follows).
 */
interface Sample { spec: BlockElementSpec, paints: boolean }
const SAMPLES: { [K in ElementType]: Sample & { spec: Record<K, unknown> } } = {
  text: { spec: { text: 'Sample {{ header.n }}' }, paints: true },
  columns: {
    spec: {
      columns: [{ width: '50%', items: [{ text: 'left' }] }, { items: [{ rect: { height: 8, fill: '#ccc' } }] }]
    },
    paints: true
  },
  table: { spec: { table: { rows: 'lines', columns: [{ header: 'A', value: '{{ row.a }}' }] } }, paints: true },
  barcode: { spec: { barcode: { type: 'code128', value: '{{ header.n }}', height: 20 } }, paints: true },
  line: { spec: { line: { thickness: 1 } }, paints: true },
  rect: { spec: { rect: { height: 12, stroke: '#000000' } }, paints: true },
  image: { spec: { image: { asset: 'logo', width: 20 } }, paints: true },
  pageBreak: { spec: { pageBreak: true }, paints: false },
  spacer: { spec: { spacer: 30 }, paints: false }
}

/** The sample of a type the schema names (the registry's types are SAMPLES' keys). */
function sampleOf (type: string): Sample {
  const samples: Partial<Record<string, Sample>> = SAMPLES
  const sample = samples[type]
  assert.ok(sample !== undefined, `a sample of ${type}`)
  return sample
}

/** Element types of a `$defs` union, nested unions expanded. */
function unionTypes (name: string): string[] {
  const defs = documentSchema.$defs as Record<string, { oneOf?: Array<{ $ref: string }> } | undefined>
  const union = defs[name]?.oneOf
  assert.ok(union !== undefined, `$defs/${name} is a union`)
  return union.flatMap((r) => {
    const inner = r.$ref.replace('#/$defs/', '')
    return defs[inner]?.oneOf !== undefined ? unionTypes(inner) : [inner]
  })
}

function template (body: unknown[]): Record<string, unknown> {
  return {
    code: 'registry',
    format: 'document',
    datasets: [
      { code: 'header', cardinality: 'single', query: 'SELECT n FROM h', fields: [{ name: 'n', type: 'string' }] },
      { code: 'lines', cardinality: 'multiple', query: 'SELECT a FROM l', fields: [{ name: 'a', type: 'string' }] }
    ],
    // Untagged: "paints" is told by the bytes, and a tagged spacer adds an (empty) artifact sequence.
    document: { pdf: { tagged: false }, body },
    assets: { images: { logo: { data: png2x1(0, Buffer.from([0, 0, 0, 255])) } } }
  }
}

function render (body: unknown[]): { bytes: Uint8Array, pageCount: number } {
  const def = template(body)
  const v = validateTemplate(def)
  assert.ok(v.ok, `valid: ${JSON.stringify(v.ok ? [] : v.errors)}`)
  const cd = compileDocument(v.template.document, v.template)
  return renderPdf(cd, input(def, { header: { n: 'N-1' }, lines: [{ a: 'one' }, { a: 'two' }] }))
}

test('the schema\'s element unions list exactly the registered types, each with its own fragment and a role', () => {
  const all = unionTypes('blockElement')
  assert.deepEqual([...all].sort(), Object.keys(ELEMENTS).sort())
  assert.deepEqual(unionTypes('element'), all.filter((t) => t !== 'table'), 'every type but the table stands in boxes')
  const defs = documentSchema.$defs as Record<string, unknown>
  for (const [type, m] of Object.entries(ELEMENTS)) {
    assert.equal(m.type, type)
    assert.equal(defs[type], m.schema, `$defs/${type} is the module's fragment`)
    assert.ok(ROLES.includes(m.role), `${type}: role ${m.role}`)
  }
})

const same = (a: { bytes: Uint8Array }, b: { bytes: Uint8Array }): boolean => Buffer.from(a.bytes).equals(b.bytes)
const before = { text: 'before' }
const after = { text: 'after' }

test('every element type of the schema validates, compiles to its kind, paints and takes its place', () => {
  const alone = render([before])
  const plain = render([before, after])
  for (const type of unionTypes('blockElement')) {
    const sample = sampleOf(type)
    const def = template([sample.spec])
    const v = validateTemplate(def)
    assert.ok(v.ok, `${type}: ${JSON.stringify(v.ok ? [] : v.errors)}`)
    assert.equal(compileDocument(v.template.document, v.template).body[0]?.kind, type)
    // Painted: the page differs with the element last; placed: what follows moves (or a new page starts).
    const last = render([before, sample.spec])
    // A page break last starts an empty page; anything else paints on page 1 or not at all.
    if (type === 'pageBreak') assert.equal(last.pageCount, 2)
    else assert.equal(!same(last, alone), sample.paints, `${type} paints: ${sample.paints}`)
    const r = render([before, sample.spec, after])
    assert.ok(!same(r, plain), `${type} moves what follows`)
    assert.equal(pdfInfo(r.bytes).pages, type === 'pageBreak' ? 2 : 1)
  }
})

test('in a column, every box element type is measured and drawn (a table is refused there)', () => {
  const column = (...items: unknown[]): unknown[] => [{ columns: [{ items }] }]
  const alone = render(column(before))
  const plain = render(column(before, after))
  for (const type of unionTypes('element')) {
    const sample = sampleOf(type)
    assert.equal(!same(render(column(before, sample.spec)), alone), sample.paints, `${type} paints in a column`)
    // A page break in a box takes no space and does nothing.
    const moved = !same(render(column(before, sample.spec, after)), plain)
    assert.equal(moved, type !== 'pageBreak', `${type} moves what follows`)
  }
  assert.throws(() => compileDocument({ body: column(SAMPLES.table.spec) }, {}),
    /tables are allowed in body, reportHeader and summary only/)
})
