// JSON Schema (draft 2020-12) of a template's `document` member: the layout syntax of
// docs/layout.md. It checks shape only; compile.ts checks what a schema cannot (known styles,
// fonts and assets, widths that fit, expressions that parse) and names the JSON path.
// The embedded $id makes the `#/$defs/...` references resolve inside this schema wherever
// the template schema embeds it.
import { pdfOptionsSchema } from './pdf-options.js'

const color = { type: 'string', pattern: '^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|black|white|gray|grey|red|green|blue)$' }
// `description` of a union is the whole error message when a value matches none of its forms.
const width = { description: 'a number, "*" or a percentage', anyOf: [{ type: 'number', minimum: 0 }, { type: 'string', pattern: '^(\\d+(\\.\\d+)?%|(\\d+(\\.\\d+)?)?\\*)$' }] }
const len = { type: 'number', minimum: 0 }
const align = { enum: ['left', 'center', 'right'] }
const expr = { type: 'string', minLength: 1, maxLength: 2000 }
const text = { type: 'string', maxLength: 20000 }
const fontName = { type: 'string', minLength: 1, maxLength: 100 }
// One font, or a stack: first choice first (docs/layout.md, "Fonts").
const font = { anyOf: [fontName, { type: 'array', items: fontName, minItems: 1, maxItems: 20 }] }
const direction = { enum: ['auto', 'ltr', 'rtl'] }
// `hyphenate`: words that do not fit may break with a hyphen, by `context.language` (off by default).
const styleProps = {
  font,
  size: { type: 'number', exclusiveMinimum: 0, maximum: 500 },
  color,
  lineGap: { type: 'number' },
  hyphenate: { type: 'boolean' }
}
const flow = (element: string): object => ({ type: 'array', maxItems: 1000, items: { $ref: `#/$defs/${element}` } })

const common = { if: expr }

export const documentSchema = {
  $id: 'https://svc.invalid/schemas/document.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    page: {
      type: 'object',
      additionalProperties: false,
      properties: {
        size: { description: 'a page size name (A3, A4, A5, A6, LETTER, LEGAL, TABLOID) or [width, height] in points', anyOf: [{ enum: ['A3', 'A4', 'A5', 'A6', 'LETTER', 'LEGAL', 'TABLOID', 'a3', 'a4', 'a5', 'a6', 'letter', 'legal', 'tabloid'] }, { type: 'array', items: { type: 'number', exclusiveMinimum: 0 }, minItems: 2, maxItems: 2 }] },
        orientation: { enum: ['portrait', 'landscape'] },
        margins: { description: 'a number or an array of 2 to 4 numbers (points)', anyOf: [len, { type: 'array', items: len, minItems: 2, maxItems: 4 }] }
      }
    },
    info: { type: 'object', additionalProperties: false, properties: { title: text, author: text, subject: text } },
    // Document-level PDF options: the archival standard (PDF/A), font embedding (pdf-options.ts).
    pdf: pdfOptionsSchema,
    // The e-invoice mapping (engine/einvoice/compile.ts checks it, naming each BT number).
    einvoice: { type: 'object' },
    defaultStyle: { type: 'object', additionalProperties: false, properties: styleProps },
    styles: { type: 'object', propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,63}$' }, additionalProperties: { type: 'object', additionalProperties: false, properties: styleProps } },
    fallbackFont: { type: 'string', minLength: 1 },
    pageHeader: flow('element'),
    pageFooter: flow('element'),
    reportHeader: flow('blockElement'),
    body: flow('blockElement'),
    summary: flow('blockElement')
  },
  $defs: {
    // Anything but a table: page header/footer, columns, group bands.
    element: {
      oneOf: [
        { $ref: '#/$defs/text' }, { $ref: '#/$defs/columns' }, { $ref: '#/$defs/barcode' }, { $ref: '#/$defs/line' },
        { $ref: '#/$defs/rect' }, { $ref: '#/$defs/image' }, { $ref: '#/$defs/pageBreak' }, { $ref: '#/$defs/spacer' }
      ]
    },
    // body, reportHeader and summary may also hold tables.
    blockElement: { oneOf: [{ $ref: '#/$defs/element' }, { $ref: '#/$defs/table' }] },
    text: {
      type: 'object',
      required: ['text'],
      additionalProperties: false,
      properties: { ...common, text: { type: ['string', 'number'] }, style: { type: 'string' }, ...styleProps, align, direction, maxLines: { type: 'integer', minimum: 0 }, width: len }
    },
    columns: {
      type: 'object',
      required: ['columns'],
      additionalProperties: false,
      properties: {
        ...common,
        gap: len,
        columns: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'object', additionalProperties: false, properties: { width, items: flow('element') } } }
      }
    },
    table: {
      type: 'object',
      required: ['table'],
      additionalProperties: false,
      properties: {
        ...common,
        table: {
          type: 'object',
          required: ['rows', 'columns'],
          additionalProperties: false,
          properties: {
            rows: expr,
            style: { type: 'string' },
            ...styleProps,
            headerStyle: { type: 'string' },
            headerFill: color,
            zebra: color,
            lineColor: color,
            padding: len,
            repeatHeader: { type: 'boolean' },
            header: { type: 'boolean' },
            groupBy: expr,
            groupHeader: flow('element'),
            groupFooter: flow('element'),
            columns: {
              type: 'array',
              minItems: 1,
              maxItems: 100,
              items: { type: 'object', additionalProperties: false, properties: { header: text, value: text, width, align, direction, maxLines: { type: 'integer', minimum: 0 } } }
            }
          }
        }
      }
    },
    barcode: {
      type: 'object',
      required: ['barcode'],
      additionalProperties: false,
      properties: {
        ...common,
        barcode: {
          type: 'object',
          required: ['type', 'value'],
          additionalProperties: false,
          properties: {
            type: { enum: ['code128', 'code39', 'ean13', 'ean8', 'upca', 'itf14', 'interleaved2of5', 'qr', 'qrcode', 'datamatrix', 'pdf417', 'gs1-128', 'gs1-datamatrix'] },
            value: text,
            height: len,
            width: len,
            size: len,
            moduleWidth: { type: 'number', exclusiveMinimum: 0 },
            text: { type: 'boolean' },
            textStyle: { type: 'string' },
            color,
            align
          }
        }
      }
    },
    line: { type: 'object', required: ['line'], additionalProperties: false, properties: { ...common, line: { type: 'object', additionalProperties: false, properties: { color, thickness: len, width: len } } } },
    rect: { type: 'object', required: ['rect'], additionalProperties: false, properties: { ...common, rect: { type: 'object', additionalProperties: false, properties: { width: len, height: len, fill: color, stroke: color, thickness: len } } } },
    image: { type: 'object', required: ['image'], additionalProperties: false, properties: { ...common, image: { type: 'object', required: ['asset'], additionalProperties: false, properties: { asset: { type: 'string' }, width: len, height: len, align } } } },
    pageBreak: { type: 'object', required: ['pageBreak'], additionalProperties: false, properties: { ...common, pageBreak: { const: true } } },
    spacer: { type: 'object', required: ['spacer'], additionalProperties: false, properties: { ...common, spacer: len } }
  }
} as const
