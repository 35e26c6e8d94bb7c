// JSON Schema (draft 2020-12) of a template's `label` member. Expressions inside `zpl` and
// `copies` are compiled by validate.ts; ZPL structure rules are checked by compileLabel.
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
      type: 'array', minItems: 1, uniqueItems: true, items: { enum: [152, 203, 300, 600] }
    },
    rows: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
    copies: {
      description: 'a whole number from 0 to 10000 or an expression such as "{{ row.qty }}"',
      oneOf: [
        { type: 'integer', minimum: 0, maximum: 10000 },
        { type: 'string', minLength: 1, maxLength: 1000 }
      ]
    },
    zpl: { type: 'string', minLength: 6, maxLength: 200000 }
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
}
