// What an element type is: one module per type (text.ts, table.ts, …) holds its schema fragment,
// compile, measure, draw and structure role; index.ts lists them in the one registry. The
// compiler checks every entry against ElementModule, so a type without draw, measure or role
// does not build, and nothing else needs to know the list (the schema's element unions, the
// compiled element union and the dispatch are all read from the registry).
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import type { CompiledExpr, EvalScope } from '../../expr/expressions.js'
import type { Canvas } from '../canvas.js'
import type { FontSet } from '../fonts.js'
import type { PreparedImage } from '../images.js'
import type { PdfOptions } from '../pdf-options.js'
import type { StyleBook } from '../styles.js'
import type { Elem } from './index.js'

/**
 * What the element becomes in a tagged PDF (ISO 32000-1, 14.8.4 standard structure types; tags.ts
 * acts on it, `structure()` may refine it): `P` a paragraph, `H` a heading, `Div`
 * a grouping of other elements, `Sect` a section, `Table` a table, `Figure` a picture that needs
 * alternative text, `Artifact` decoration drawn that is not content, `None` what draws nothing
 * (a spacer, a page break): no marked content at all, where an artifact would be an empty one.
 */
export type StructureRole = 'P' | 'H' | 'Div' | 'Sect' | 'Table' | 'Figure' | 'Artifact' | 'None'

/**
 * What a tagged element's structure element is, where its role alone does not say (structure()):
 * `type` instead of the role's (H1–H6 for a heading), a Figure's alternative text and its box.
 */
export interface Structure {
  type?: string
  alt?: string
  /** The box drawn: x, y (top, layout coordinates), width, height. */
  box?: [number, number, number, number]
}

/** What every compiled element has. */
export interface ElementBase {
  /** JSON path of the element, used in error messages. */
  path: string
  /** Optional `if` condition; the element is skipped when it is falsy. */
  when: CompiledExpr | null
  /** Scratch: result of the last `when` evaluation. */
  visible: boolean
}

/** Compile-time context: resolved styles, fonts and images, and the compiler of nested flows. */
export interface CompileCtx {
  styles: StyleBook
  fonts: FontSet
  images: Map<string, PreparedImage>
  imageAssets: Record<string, unknown>
  pdf: PdfOptions
  /** Compiles a nested list of elements (columns, group bands); `blocks`: body-only elements allowed. */
  items (items: unknown, path: string, width: number, blocks: boolean): Elem[]
}

/** Where an element is compiled: its JSON path and the width of its container. */
export interface Place { path: string, width: number }

/** Measuring and drawing of any element in a box without page breaks (for columns' items). */
export interface Boxes {
  measure (el: Elem, scope: EvalScope): number
  /** Height of an already measured element, without evaluating anything again. */
  height (el: Elem): number
  draw (el: Elem, c: Canvas, x: number, y: number): void
}

/** The page flow as an element placing itself in it sees it (pager.ts implements it). */
export interface PageFlow {
  readonly scope: EvalScope
  /** Top and bottom of the body area, and the cursor. */
  readonly top: number
  readonly bottom: number
  y: number
  readonly body: Canvas
  newPage (): void
  /** Measures a flow of box elements (group bands) at the scope's current row. */
  measureBand (items: Elem[]): number
  /** Measures and draws a flow of box elements at (x, y); returns its height. */
  drawBand (items: Elem[], x: number, y: number): number
}

/**
 * One element type. `T`: its name, which is also the member that marks it in the template
 * (`{ "line": { … } }`); `E`: the compiled element; `S`: the element as the template writes it;
 * `F`: where it may stand, `any` flow (headers, footers, columns, bands) or `body` flows only
 * (body, reportHeader, summary: a table, which the page flow lays out).
 */
export interface ElementModule<T extends string, E extends ElementBase & { kind: T }, S, F extends Flows = 'any'> {
  type: T
  role: StructureRole
  /** The JSON Schema of the element object (its `$defs` entry in the document schema). */
  schema: JSONSchema
  flows: F
  /** Whether the member's value marks this type (default: present). Checked in registry order. */
  accepts?: (value: unknown) => boolean
  /**
   * The compiled element: `base`'s fields written out one by one (`path: base.path, …`), never
   * spread. A spread gave nearly every element its own hidden class in V8 (33 text elements of the
   * invoice, 24 classes), so each read of an element's field during layout was a megamorphic lookup.
   */
  compile (spec: S, base: ElementBase, at: Place, ctx: CompileCtx): E
  /** Evaluates and prepares the element into its scratch fields; returns its height. Visible elements only. */
  measure (el: E, scope: EvalScope, boxes: Boxes): number
  /** Height of the element as measure() last prepared it. */
  height (el: E, boxes: Boxes): number
  /** Paints what measure() prepared, its box's top-left at (x, y). */
  draw (el: E, c: Canvas, x: number, y: number, boxes: Boxes): void
  /** The structure element's details when tagged (after measure(), drawn at x, y); default: the role. */
  structure? (el: E, x: number, y: number): Structure | undefined
  /**
   * Placing in the page flow when the element is visible; without it, the element moves whole
   * to the next page when it does not fit (text continues line by line; a table row by row).
   */
  flow? (el: E, p: PageFlow, x: number): void
}

export type Flows = 'any' | 'body'

/**
 * The template's element type from its schema fragment. Lists of elements are `$ref`s to
 * `#/$defs/element` or `blockElement`, which json-schema-to-ts cannot follow (the schema is
 * recursive): they come out as `unknown[]`, and the module puts its hand-typed slot there
 * (test/engine/pdf/element-types.test.ts checks each slot against the schema).
 */
export type SpecOf<S extends JSONSchema> = FromSchema<S & { $defs: { element: true, blockElement: true } }>
