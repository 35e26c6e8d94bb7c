// `{ "image": { "asset": "logo", "width": 120, "align": "right" } }`: a PNG or JPEG from the
// template's `assets.images`, decoded once per template version and embedded once per PDF.
import { compileText, type CompiledText } from '../../expr/expressions.js'
import { prepareImage, type PreparedImage } from '../images.js'
import { ALIGN_CENTER, ALIGN_RIGHT } from '../model.js'
import { fail } from '../styles.js'
import { align, alignOf, common, len, num, obj, text } from './fields.js'
import type { CompileCtx, ElementBase, ElementModule, SpecOf } from './types.js'

export interface ImageEl extends ElementBase {
  kind: 'image'
  image: PreparedImage
  width: number
  height: number
  align: number
  containerWidth: number
  /** `alt`: the alternative text of the tagged Figure (null: none given). */
  alt: CompiledText | null
  /** Scratch: the alternative text evaluated by measure(). */
  altText: string
}

const schema = {
  type: 'object',
  required: ['image'],
  additionalProperties: false,
  properties: {
    ...common,
    image: {
      type: 'object',
      required: ['asset'],
      additionalProperties: false,
      properties: { asset: { type: 'string' }, width: len, height: len, align, alt: text }
    }
  }
} as const

export type ImageSpec = SpecOf<typeof schema>

export const imageElement: ElementModule<'image', ImageEl, ImageSpec> = {
  type: 'image',
  role: 'Figure',
  schema,
  flows: 'any',
  compile (spec, base, { path: at, width }, ctx) {
    const path = `${at}.image`
    const im = obj(spec.image, path)
    const img = assetImage(im.asset, path, ctx)
    // One of width/height keeps the aspect ratio; neither means 1 px = 1 pt (capped to the box).
    let w = im.width === undefined ? undefined : num(im.width, 0, `${path}.width`)
    const h0 = im.height === undefined ? undefined : num(im.height, 0, `${path}.height`)
    if (w === undefined && h0 === undefined) w = Math.min(width, img.width)
    if (w === undefined) w = ((h0 ?? 0) * img.width) / img.height
    let h = h0 ?? (w * img.height) / img.width
    if (w > width) {
      h = (h * width) / w
      w = width
    }
    const a = alignOf(im.align, `${path}.align`)
    const alt = im.alt === undefined ? null : compileText(typeof im.alt === 'string' ? im.alt : JSON.stringify(im.alt), `${path}.alt`)
    return { path: base.path, when: base.when, visible: base.visible, kind: 'image', image: img, width: w, height: h, align: a, containerWidth: width, alt, altText: '' }
  },
  measure (el, scope) {
    if (el.alt !== null) el.altText = el.alt(scope)
    return el.height
  },
  height: (el) => el.height,
  draw (el, c, x, y) { c.image(el.image, left(el, x), y, el.width, el.height) },
  structure: (el, x, y) => ({ alt: el.altText, box: [left(el, x), y, el.width, el.height] })
}

/** Where the image's box starts in its container, by its alignment. */
function left (el: ImageEl, x: number): number {
  if (el.align === ALIGN_CENTER) return x + (el.containerWidth - el.width) / 2
  if (el.align === ALIGN_RIGHT) return x + el.containerWidth - el.width
  return x
}

/** The named image asset, decoded on first use in this template. */
function assetImage (name: unknown, path: string, ctx: CompileCtx): PreparedImage {
  if (typeof name !== 'string' || !Object.hasOwn(ctx.imageAssets, name)) {
    throw fail(`${path}.asset`, `unknown image asset ${JSON.stringify(name)}`)
  }
  let img = ctx.images.get(name)
  if (img === undefined) {
    const pdfa = ctx.pdf.pdfa
    // PDF/A: transparency is flattened onto white (PDF/A-1 has none; flat is valid in every part).
    img = prepareImage(ctx.images.size, ctx.imageAssets[name], `assets.images.${name}`, pdfa !== null)
    if (pdfa !== null && img.dict.ColorSpace === 'DeviceCMYK') {
      throw fail(`assets.images.${name}`, 'a CMYK JPEG cannot be used in a PDF/A document (document.pdf.standard): ' +
        'its colours are outside the sRGB output intent; save it as RGB')
    }
    if (pdfa?.part === 1 && img.dict.BitsPerComponent === 16) {
      throw fail(`assets.images.${name}`, 'a 16-bit PNG cannot be used in a PDF/A-1 document ' +
        '(PDF 1.4 has 8-bit images at most): save it with 8 bits per channel, or use PDF/A-2b')
    }
    ctx.images.set(name, img)
  }
  return img
}
