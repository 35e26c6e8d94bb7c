// JSON Schema (draft 2020-12) of a template's `document` member: the layout syntax of
// docs/layout.md. It checks shape only; compile.ts checks what a schema cannot (known styles,
// fonts and assets, widths that fit, expressions that parse) and names the JSON path.
// The element schemas come from their modules (elements/*.ts), through the registry.
// The embedded $id makes the `#/$defs/...` references resolve inside this schema wherever
// the template schema embeds it.
import { ELEMENTS, type BlockElementSpec, type ElementSpec, type ElementType } from './elements/index.js'
import { flow, HEADING, len, styleProps, text } from './elements/fields.js'
import type { SpecOf } from './elements/types.js'
import { pdfOptionsSchema } from './pdf-options.js'

const pageSizes = [
  'A3', 'A4', 'A5', 'A6', 'LETTER', 'LEGAL', 'TABLOID', 'a3', 'a4', 'a5', 'a6', 'letter', 'legal', 'tabloid'
] as const

/** The document's own members; the bands are lists of elements. */
const documentShape = {
  type: 'object',
  additionalProperties: false,
  properties: {
    page: {
      type: 'object',
      additionalProperties: false,
      properties: {
        size: {
          description: 'a page size name (A3, A4, A5, A6, LETTER, LEGAL, TABLOID) or [width, height] in points',
          anyOf: [
            { enum: pageSizes },
            { type: 'array', items: { type: 'number', exclusiveMinimum: 0 }, minItems: 2, maxItems: 2 }
          ]
        },
        orientation: { enum: ['portrait', 'landscape'] },
        margins: {
          description: 'a number or an array of 2 to 4 numbers (points)',
          anyOf: [len, { type: 'array', items: len, minItems: 2, maxItems: 4 }]
        }
      }
    },
    info: { type: 'object', additionalProperties: false, properties: { title: text, author: text, subject: text } },
    // Document-level PDF options: the archival standard (PDF/A), font embedding (pdf-options.ts).
    pdf: pdfOptionsSchema,
    // The e-invoice mapping (engine/einvoice/compile.ts checks it, naming each BT number).
    einvoice: { type: 'object' },
    defaultStyle: { type: 'object', additionalProperties: false, properties: styleProps },
    styles: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,63}$' },
      additionalProperties: { type: 'object', additionalProperties: false, properties: { ...styleProps, heading: HEADING } }
    },
    fallbackFont: { type: 'string', minLength: 1 },
    pageHeader: flow('element'),
    pageFooter: flow('element'),
    reportHeader: flow('blockElement'),
    body: flow('blockElement'),
    summary: flow('blockElement')
  }
} as const

const ref = (name: string): { $ref: string } => ({ $ref: `#/$defs/${name}` })
const types = Object.keys(ELEMENTS) as ElementType[]

export const documentSchema = {
  $id: 'https://svc.invalid/schemas/document.json',
  ...documentShape,
  $defs: {
    // Anything but a body-only element (a table): page header/footer, columns, group bands.
    element: { oneOf: types.filter((t) => ELEMENTS[t].flows === 'any').map(ref) },
    // body, reportHeader and summary may also hold tables.
    blockElement: { oneOf: [ref('element'), ...types.filter((t) => ELEMENTS[t].flows === 'body').map(ref)] },
    ...Object.fromEntries(types.map((t) => [t, ELEMENTS[t].schema]))
  }
}

/** What the schema alone gives for the document (for the type test): the bands come out as unknown[]. */
export type DocumentSpecDerived = SpecOf<typeof documentShape>
type Bands = 'pageHeader' | 'pageFooter' | 'reportHeader' | 'body' | 'summary'
/** The bands, hand-typed: the recursive slots (see elements/types.ts, SpecOf). */
export interface DocumentBands<E, B> {
  pageHeader?: E[]
  pageFooter?: E[]
  reportHeader?: B[]
  body?: B[]
  summary?: B[]
}
/** A template's `document`, as the schema describes it. */
export type DocumentSpec = Omit<DocumentSpecDerived, Bands> & DocumentBands<ElementSpec, BlockElementSpec>
