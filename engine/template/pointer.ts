// Compile-error paths as JSON pointers, for validation at publish and for a worker's compile on a
// cache miss. Its own module so a render worker does not load validate.ts, which compiles the
// template JSON Schema with Ajv when imported (hundreds of ms of CPU per thread start).

/** One reference token of a JSON pointer (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapeToken (k: string): string { return k.replace(/~/g, '~0').replace(/\//g, '~1') }

/** `document.body[3].table.rows` -> `/document/body/3/table/rows` (paths from compile errors). */
export function toPointer (path: string): string {
  if (path.startsWith('/') || path === '') return path === '' ? '/' : path
  const parts = path.replace(/\[(\d+)\]/g, '.$1').split('.').filter(p => p !== '')
  return '/' + parts.map(escapeToken).join('/')
}
