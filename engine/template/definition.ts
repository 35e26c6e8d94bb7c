// Shape of a template file after validation (schema.ts is the authority; these types mirror it,
// but for `document`, whose type is derived from its schema: engine/pdf/schema.ts, DocumentSpec).
import type { DocumentSpec } from '../pdf/schema.js'
import type { TemplateFormat } from '../types.js'
import type { LabelDef } from '../zpl/schema.js'

export type { LabelDef }

export type ParameterType =
  'string' | 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'integer[]' | 'string[]'

export interface ParameterDef {
  name: string
  type: ParameterType
  /** Default false. A parameter with a defaultValue is never missing. */
  required?: boolean
  description?: string
  enum?: Array<string | number>
  minimum?: number
  maximum?: number
  /** Strings (and each item of string[]): maximum length in characters. */
  maxLength?: number
  defaultValue?: unknown
}

export interface FieldDef { name: string, type: string }

export interface DatasetDef {
  code: string
  description?: string
  cardinality: 'single' | 'multiple'
  /** `single` only: no row fails the render (DATASET_FAILED naming the dataset) instead of rendering blanks. */
  required?: boolean
  /** SQL with `:name` / `:context.xxx` placeholders. Never leaves the server. */
  query: string
  fields: FieldDef[]
}

export interface AssetDef { data: string }

export interface TemplateDefinition {
  code: string
  description?: string
  documentType?: string
  format: TemplateFormat
  parameters?: ParameterDef[]
  datasets?: DatasetDef[]
  document?: DocumentSpec
  label?: LabelDef
  assets?: { fonts?: Record<string, AssetDef>, images?: Record<string, AssetDef> }
}
