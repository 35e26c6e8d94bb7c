// `{ "barcode": { "type": "code128", "value": "{{ header.number }}", "height": 30 } }`: a linear
// or 2D symbol drawn as vectors. Encoding and drawing live in ../barcode.ts; this is its element.
import type { CompiledText } from '../../expr/expressions.js'
import { compileText } from '../../expr/expressions.js'
import { BARCODE_TYPES, drawBarcode, prepareBarcode } from '../barcode.js'
import { ALIGN_CENTER, ALIGN_RIGHT, type Style } from '../model.js'
import { color as colorOf, fail } from '../styles.js'
import { align, alignOf, color, common, len, num, obj, text } from './fields.js'
import type { ElementBase, ElementModule, SpecOf } from './types.js'

export interface BarcodeEl extends ElementBase {
  kind: 'barcode'
  bcid: string
  value: CompiledText
  height: number
  moduleWidth: number
  /** Fixed total width (linear) or side (2D); 0 = from moduleWidth. */
  width: number
  twoD: boolean
  showText: boolean
  textStyle: Style
  color: string
  align: number
  containerWidth: number
  /** The template's type name, and `alt`: the tagged Figure's text (null: the type and the value). */
  type: string
  alt: CompiledText | null
  /** Scratch: the alternative text evaluated by measure(). */
  altText: string
  /** Scratch: encoding of the current value. */
  text: string
  runs: number[]
  cols: number
  rows: number
  w: number
  h: number
}

const schema = {
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
        type: {
          enum: [
            'code128', 'code39', 'ean13', 'ean8', 'upca', 'itf14', 'interleaved2of5', 'qr', 'qrcode', 'datamatrix', 'pdf417',
            'gs1-128', 'gs1-datamatrix'
          ]
        },
        value: text,
        height: len,
        width: len,
        size: len,
        moduleWidth: { type: 'number', exclusiveMinimum: 0 },
        text: { type: 'boolean' },
        textStyle: { type: 'string' },
        color,
        align,
        alt: text
      }
    }
  }
} as const

export type BarcodeSpec = SpecOf<typeof schema>

export const barcodeElement: ElementModule<'barcode', BarcodeEl, BarcodeSpec> = {
  type: 'barcode',
  role: 'Figure',
  schema,
  flows: 'any',
  compile (spec, base, { path, width }, ctx) {
    const p = `${path}.barcode`
    const b = obj(spec.barcode, p)
    const name = String(b.type)
    const type = Object.hasOwn(BARCODE_TYPES, name) ? BARCODE_TYPES[name] : undefined
    if (type === undefined) {
      const known = Object.keys(BARCODE_TYPES).join(', ')
      throw fail(`${p}.type`, `unknown barcode type ${JSON.stringify(b.type)}: use ${known}`)
    }
    return {
      path: base.path,
      when: base.when,
      visible: base.visible,
      kind: 'barcode',
      bcid: type.bcid,
      twoD: type.twoD,
      value: compileText(String((b.value as string | number | undefined) ?? ''), `${p}.value`),
      height: num(b.height, 40, `${p}.height`),
      moduleWidth: num(b.moduleWidth, type.twoD ? 3 : 1, `${p}.moduleWidth`),
      width: Math.min(width, num(b.width ?? b.size, 0, `${p}.width`)),
      showText: b.text === true,
      textStyle: ctx.styles.resolve({ style: b.textStyle, font: 'Helvetica', size: 8 }, p, 'style'),
      color: colorOf(b.color ?? '#000000', `${p}.color`),
      align: alignOf(b.align, `${p}.align`),
      containerWidth: width,
      type: name,
      alt: b.alt === undefined ? null : compileText(typeof b.alt === 'string' ? b.alt : JSON.stringify(b.alt), `${p}.alt`),
      altText: '',
      text: '',
      runs: [],
      cols: 1,
      rows: 1,
      w: 0,
      h: 0
    }
  },
  measure (el, scope) {
    prepareBarcode(el, el.value(scope))
    el.altText = el.alt === null ? `${el.type} barcode: ${el.text}` : el.alt(scope)
    return el.h
  },
  height: (el) => el.h,
  draw: drawBarcode,
  structure (el, x, y) {
    const free = el.containerWidth - el.w
    const dx = el.align === ALIGN_CENTER ? free / 2 : el.align === ALIGN_RIGHT ? free : 0
    return { alt: el.altText, box: [x + dx, y, el.w, el.h] }
  }
}
