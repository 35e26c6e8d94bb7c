// The registry of element types: one line per type. Adding a type is its module (see
// types.ts, ElementModule) plus one line here; the compiled element union, the template's
// element types, the document schema's element unions and every dispatch follow from this list.
// Order matters where an element object names two types (only without schema validation):
// the first listed wins, as it always has.
import { barcodeElement } from './barcode.js'
import { columnsElement } from './columns.js'
import { imageElement } from './image.js'
import { lineElement } from './line.js'
import { pageBreakElement } from './page-break.js'
import { rectElement } from './rect.js'
import { spacerElement } from './spacer.js'
import { tableElement } from './table.js'
import { textElement } from './text.js'
import type { ElementBase, ElementModule, Flows } from './types.js'

export const ELEMENTS = elementRegistry({
  text: textElement,
  columns: columnsElement,
  table: tableElement,
  barcode: barcodeElement,
  line: lineElement,
  rect: rectElement,
  image: imageElement,
  pageBreak: pageBreakElement,
  spacer: spacerElement
})

/**
 * What the registry must be: under each name, a complete module of that name. A module without
 * draw, measure or role, or filed under another name, is a compile error here.
 */
export type ElementRegistry<R> = { [K in keyof R]: K extends string ? ModuleOf<K> : never }
// Any template type: `never` accepts every module's own (ElementModule relates it to the compiled one).
type ModuleOf<K extends string> = ElementModule<K, ElementBase & { kind: K }, never, Flows>

/**
 * The registry as it is, checked: `satisfies ElementRegistry<R>` for an object whose own keys are
 * the names (test/engine/pdf/element-types.check.ts shows what it rejects).
 */
export function elementRegistry<R extends ElementRegistry<R>> (r: R): R { return r }

type Registry = typeof ELEMENTS
export type ElementType = keyof Registry
/** A compiled element of any type. */
export type Elem = { [K in ElementType]: Parameters<Registry[K]['draw']>[0] }[ElementType]
type SpecOfType<K extends ElementType> = Parameters<Registry[K]['compile']>[0]
type BoxType = { [K in ElementType]: Registry[K]['flows'] extends 'any' ? K : never }[ElementType]
/** An element as the template writes it, in headers, footers, columns and bands (`#/$defs/element`). */
export type ElementSpec = { [K in BoxType]: SpecOfType<K> }[BoxType]
/** An element of body, reportHeader and summary (`#/$defs/blockElement`): any type. */
export type BlockElementSpec = { [K in ElementType]: SpecOfType<K> }[ElementType]

/** The module of a compiled element (one cast: the registry's entries are checked above). */
export function moduleOf (el: Elem): AnyModule {
  return ELEMENTS[el.kind]
}
/** A module as the dispatch sees it: any compiled element in, as the registry pairs them. */
export type AnyModule = ElementModule<string, Elem, unknown, Flows>

/** The types in registry order. */
export const ELEMENT_TYPES = Object.keys(ELEMENTS) as ElementType[]
