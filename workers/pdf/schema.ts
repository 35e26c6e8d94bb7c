// STUB created by the template helper so workers/template/schema.ts compiles; the PDF layout
// helper owns this file and replaces it with the real JSON Schema of the `document` member.
export const documentSchema = { type: 'object' } as const
