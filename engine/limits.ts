// Limits the engine applies to a template itself (a render's own limits come in RenderLimits).
// They bound what one template can make a worker allocate, whoever published it: checked at
// publish (TEMPLATE_INVALID with the JSON path) and again when a worker compiles a version
// (RENDER_LIMIT_EXCEEDED), always before the expensive step.

/** Largest template file (JSON text, UTF-8 bytes), embedded fonts and images included. */
export const MAX_TEMPLATE_BYTES = 12 * 1024 * 1024

/** Most pixels of one image asset (width × height from its header, before any decoding). */
export const MAX_IMAGE_PIXELS = 25_000_000
