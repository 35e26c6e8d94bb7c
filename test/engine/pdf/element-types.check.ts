// Compile-time checks (tsc builds this file; nothing here runs): `make build` fails when one
// no longer holds. Each `@ts-expect-error` line must be an error: with the check it documents
// removed, the directive itself becomes the error ("Unused '@ts-expect-error' directive").
import type { FromSchema } from 'json-schema-to-ts'
import {
  ELEMENTS, elementRegistry, type BlockElementSpec, type ElementSpec
} from '../../../engine/pdf/elements/index.js'
import type { ColumnSpec, ColumnsSpecDerived } from '../../../engine/pdf/elements/columns.js'
import type { GroupBands, TableSpec, TableSpecDerived } from '../../../engine/pdf/elements/table.js'
import type { ElementModule, SpecOf } from '../../../engine/pdf/elements/types.js'
import type { DocumentBands, DocumentSpec, DocumentSpecDerived } from '../../../engine/pdf/schema.js'
import type { LineEl } from '../../../engine/pdf/elements/line.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const yes = <T extends true>(): T => true as T

// 1. The registry is complete: every entry a whole module, filed under its own name.
type Line = typeof ELEMENTS.line
declare const withoutDraw: Omit<Line, 'draw'>
declare const withoutMeasure: Omit<Line, 'measure'>
declare const withoutRole: Omit<Line, 'role'>
declare const withoutSchema: Omit<Line, 'schema'>
// @ts-expect-error a module without draw
elementRegistry({ ...ELEMENTS, line: withoutDraw })
// @ts-expect-error a module without measure
elementRegistry({ ...ELEMENTS, line: withoutMeasure })
// @ts-expect-error a module without a structure role
elementRegistry({ ...ELEMENTS, line: withoutRole })
// @ts-expect-error a module without its schema fragment
elementRegistry({ ...ELEMENTS, line: withoutSchema })
// @ts-expect-error a module filed under another type's name
elementRegistry({ ...ELEMENTS, rect: ELEMENTS.line })
// @ts-expect-error a role that is not a structure type
elementRegistry({ ...ELEMENTS, line: { ...ELEMENTS.line, role: 'Paragraph' } })
elementRegistry({ ...ELEMENTS, line: { ...ELEMENTS.line, role: 'Figure' } })

// A module is checked where it is written, too.
// @ts-expect-error a module without draw, as a new element file would declare it
export const incomplete: ElementModule<'line', LineEl, unknown> = withoutDraw

// 2. Template types: derived from the schema, but for the recursive slots (lists of elements),
// which json-schema-to-ts leaves as unknown[]; each hand-typed slot stands exactly there.
yes<Equal<ColumnsSpecDerived['columns'], Array<ColumnSpec<unknown>>>>()
yes<Equal<Pick<TableSpecDerived['table'], 'groupHeader' | 'groupFooter'>, GroupBands<unknown>>>()
type Bands = 'pageHeader' | 'pageFooter' | 'reportHeader' | 'body' | 'summary'
yes<Equal<Pick<DocumentSpecDerived, Bands>, DocumentBands<unknown, unknown>>>()
// The slots hold the schema's element unions: tables in body flows only.
yes<Equal<Extract<ElementSpec, { table: unknown }>, never>>()
yes<Equal<Extract<BlockElementSpec, { table: unknown }>, TableSpec>>()
yes<Equal<Exclude<BlockElementSpec, ElementSpec>, TableSpec>>()
// The rest is FromSchema's: a member the schema lacks is an error.
// @ts-expect-error `colour` is not a line member
export const badLine: BlockElementSpec = { line: { colour: '#000' } }
export const goodDoc: DocumentSpec = {
  page: { size: 'A4', margins: [40, 40] },
  body: [{ text: 'Hello' }, { columns: [{ width: '50%', items: [{ spacer: 4 }, { line: {} }] }] }],
  // @ts-expect-error a table is not an element of a page header
  pageHeader: [{ table: { rows: 'lines', columns: [{ value: '{{ row.a }}' }] } }]
}
export const bodyTable: DocumentSpec = { body: [{ table: { rows: 'lines', columns: [{ value: '{{ row.a }}' }] } }] }
// The template definition's `document` is that type, not unknown.
yes<Equal<NonNullable<TemplateDefinition['document']>, DocumentSpec>>()
// SpecOf is FromSchema with the element lists stubbed, nothing more.
interface Plain { type: 'object', properties: { a: { type: 'string' } } }
yes<Equal<SpecOf<Plain>, FromSchema<Plain>>>()
