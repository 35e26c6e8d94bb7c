// JSON Schema (draft 2020-12) of a whole template file. `document` is owned by the PDF layout
// (engine/pdf/schema.ts), `label` by engine/zpl/schema.ts. Semantic rules that a schema cannot
// express (unique names, placeholders, expressions) live in validate.ts.
import { documentSchema } from '../pdf/schema.js'
import { labelSchema } from '../zpl/schema.js'

/** Names that must never become object keys we read or write by name. */
export const FORBIDDEN_NAMES = ['__proto__', 'constructor', 'prototype']

export const TEMPLATE_CODE = '^[a-z0-9][a-z0-9_-]{0,63}$'
const IDENTIFIER = '^[A-Za-z_][A-Za-z0-9_]{0,63}$'
const BASE64 = '^[A-Za-z0-9+/\\s]*={0,2}\\s*$'

const parameterDef = {
  type: 'object',
  required: ['name', 'type'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: IDENTIFIER, not: { enum: FORBIDDEN_NAMES } },
    type: { enum: ['string', 'integer', 'decimal', 'boolean', 'date', 'datetime', 'integer[]', 'string[]'] },
    required: { type: 'boolean' },
    description: { type: 'string', maxLength: 2000 },
    enum: { type: 'array', minItems: 1, maxItems: 1000, items: { type: ['string', 'number'] } },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    maxLength: { type: 'integer', minimum: 0 },
    defaultValue: {}
  }
}

const datasetDef = {
  type: 'object',
  required: ['code', 'cardinality', 'query', 'fields'],
  additionalProperties: false,
  properties: {
    code: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
    description: { type: 'string', maxLength: 2000 },
    cardinality: { enum: ['single', 'multiple'] },
    required: { type: 'boolean' },
    query: { type: 'string', minLength: 1, maxLength: 100000 },
    fields: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        required: ['name', 'type'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1, maxLength: 128 }, type: { type: 'string', minLength: 1, maxLength: 32 } }
      }
    }
  }
}

const assetMap = {
  type: 'object',
  propertyNames: { pattern: '^[A-Za-z0-9_-]{1,64}$', not: { enum: FORBIDDEN_NAMES } },
  additionalProperties: {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: { data: { type: 'string', minLength: 4, pattern: BASE64 } }
  }
}

export const templateSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://svc.invalid/schemas/template.json',
  type: 'object',
  required: ['code', 'format'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    code: { type: 'string', pattern: TEMPLATE_CODE },
    description: { type: 'string', maxLength: 2000 },
    documentType: { type: 'string', maxLength: 100 },
    format: { enum: ['document', 'label'] },
    parameters: { type: 'array', maxItems: 100, items: parameterDef },
    datasets: { type: 'array', maxItems: 50, items: datasetDef },
    document: documentSchema,
    label: labelSchema,
    assets: { type: 'object', additionalProperties: false, properties: { fonts: assetMap, images: assetMap } }
  },
  allOf: [
    { if: { properties: { format: { const: 'document' } }, required: ['format'] }, then: { required: ['document'], properties: { label: false } } },
    { if: { properties: { format: { const: 'label' } }, required: ['format'] }, then: { required: ['label'], properties: { document: false } } }
  ]
}
