// JSON Schema (draft 2020-12) of a template's `label` member. Expressions inside `zpl` and
// `copies` are compiled by validate.ts; ZPL structure rules are checked by compileLabel.
const len = { type: 'number', minimum: 0, maximum: 2000 } as const
const place = { x: len, y: len } as const
const data = { type: 'string', minLength: 1, maxLength: 4000 } as const
const textEl = {
  type: 'object',
  required: ['type', 'x', 'y', 'text', 'size'],
  additionalProperties: false,
  properties: {
    type: { const: 'text' },
    ...place,
    text: data,
    size: len,
    font: { const: '0' },
    rotation: { enum: [0, 90, 180, 270] },
    maxWidth: len,
    maxLines: { type: 'integer', minimum: 1, maximum: 99 },
    align: { enum: ['left', 'center', 'right', 'justify'] }
  }
} as const
const barcodeEl = {
  type: 'object',
  required: ['type', 'x', 'y', 'symbology', 'data', 'module'],
  additionalProperties: false,
  properties: {
    type: { const: 'barcode' },
    ...place,
    data,
    module: { type: 'number', exclusiveMinimum: 0, maximum: 50 },
    height: len,
    symbology: { enum: ['code128', 'code39', 'ean13', 'ean8', 'upca', 'interleaved2of5', 'qr', 'datamatrix', 'gs1-128', 'gs1-datamatrix'] },
    hri: { type: 'boolean' }
  }
} as const
const boxEl = {
  type: 'object',
  required: ['type', 'x', 'y', 'width', 'height'],
  additionalProperties: false,
  properties: { type: { const: 'box' }, ...place, width: len, height: len, thickness: len, rounding: { type: 'integer', minimum: 0, maximum: 8 } }
} as const
const imageEl = {
  type: 'object',
  required: ['type', 'x', 'y', 'width', 'height', 'data'],
  additionalProperties: false,
  properties: {
    type: { const: 'image' },
    ...place,
    width: len,
    height: len,
    data: { description: 'a PNG, base64', type: 'string', minLength: 1, maxLength: 2_000_000 }
  }
} as const
const lineEl = {
  type: 'object',
  required: ['type', 'x', 'y', 'length'],
  additionalProperties: false,
  properties: { type: { const: 'line' }, ...place, length: len, thickness: len, direction: { enum: ['horizontal', 'vertical'] } }
} as const

export const labelSchema = {
  type: 'object',
  required: ['widthIn', 'heightIn', 'rows'],
  // Raw ZPL or declarative elements (elements.ts), one of them.
  oneOf: [{ required: ['zpl'] }, { required: ['elements'] }],
  additionalProperties: false,
  properties: {
    widthIn: { type: 'number', exclusiveMinimum: 0, maximum: 15 },
    heightIn: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
    dpi: { description: 'the resolution the ZPL is written for (default 203)', enum: [152, 203, 300, 600] },
    resolutions: {
      description: 'resolutions the label may be rendered at (default all four); each is checked at publish',
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: [152, 203, 300, 600] }
    },
    rows: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
    copies: {
      description: 'a whole number from 0 to 10000 or an expression such as "{{ row.qty }}"',
      oneOf: [
        { type: 'integer', minimum: 0, maximum: 10000 },
        { type: 'string', minLength: 1, maxLength: 1000 }
      ]
    },
    zpl: { type: 'string', minLength: 6, maxLength: 200000 },
    unit: { description: 'unit of the elements\' lengths (default mm)', enum: ['mm', 'pt'] },
    elements: { type: 'array', minItems: 1, maxItems: 500, items: { oneOf: [textEl, barcodeEl, boxEl, lineEl, imageEl] } }
  }
} as const

/** A validated `label` member (labelSchema is the authority; this type mirrors it). */
export interface LabelDef {
  widthIn: number
  heightIn: number
  /** The resolution `zpl` is written for; default 203. */
  dpi?: 152 | 203 | 300 | 600
  /** Resolutions it may be rendered at; default all four. */
  resolutions?: Array<152 | 203 | 300 | 600>
  /** Code of a `multiple` dataset: one label per row. */
  rows: string
  /** Expression text ("{{ row.qty }}") or a number; default 1. */
  copies?: string | number
  zpl?: string
  /** Declarative elements instead of `zpl`, lengths in `unit`. */
  unit?: 'mm' | 'pt'
  elements?: LabelElement[]
}

interface At { x: number, y: number }
/** One declarative element (labelSchema's element schemas are the authority). */
export type LabelElement =
  | At & { type: 'text', text: string, size: number, font?: '0', rotation?: 0 | 90 | 180 | 270, maxWidth?: number, maxLines?: number, align?: 'left' | 'center' | 'right' | 'justify' }
  | At & { type: 'barcode', symbology: string, data: string, module: number, height?: number, hri?: boolean }
  | At & { type: 'box', width: number, height: number, thickness?: number, rounding?: number }
  | At & { type: 'line', length: number, thickness?: number, direction?: 'horizontal' | 'vertical' }
  | At & { type: 'image', width: number, height: number, data: string }
