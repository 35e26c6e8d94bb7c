// The one way a TypeScript type is derived from a route's JSON schema object: the routes use it
// through their type provider (SchemaTypes, http/types.ts). svc/client takes its types from the
// OpenAPI document instead (client/api-types.ts), which is generated from the same schema objects.
// Type-only: nothing here exists at run time.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'

/**
 * `'validated'`: what a handler holds after Ajv validated it (and filled each `default`, so a
 * defaulted property is present), or what a route answers. `'sent'`: what a caller may send
 * (a defaulted property stays optional).
 */
export type SchemaSide = 'validated' | 'sent'

export type FromRouteSchema<S, Side extends SchemaSide = 'validated'> = S extends JSONSchema
  ? Side extends 'sent' ? FromSchema<S, { keepDefaultedPropertiesOptional: true }> : FromSchema<S>
  : unknown
