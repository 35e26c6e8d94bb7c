// What a caller-chosen file name may contain: it is echoed in Content-Disposition and stored in
// a VARCHAR(255) column, so it must be well-formed Unicode (no lone surrogate, which no encoder
// can write), free of C0/C1 controls, DEL and bidi controls (U+202E would show "fdp.exe" as
// "exe.pdf"), free of path separators and quotes, and short in UTF-8 bytes.

declare global {
  interface String { isWellFormed: () => boolean, toWellFormed: () => string }
}

export const MAX_FILE_NAME_BYTES = 255

// C0, DEL, C1, ALM, LRM/RLM, LRE…RLO, LRI…PDI, and the characters a path or a quoted header
// value must not carry.
// (\p{Cc} is U+0000–U+001F and U+007F–U+009F.)
const FORBIDDEN = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069/\\"]/u

export function isSafeFileName (name: string): boolean {
  return name.length > 0 && name.isWellFormed() && !FORBIDDEN.test(name) && Buffer.byteLength(name, 'utf8') <= MAX_FILE_NAME_BYTES
}

export const FILE_NAME_RULE = `must be well-formed Unicode of at most ${MAX_FILE_NAME_BYTES} UTF-8 bytes, ` +
  'without control or bidi characters, /, \\ or "'

/** Ajv formats of request schemas (registered once, with the app's Ajv options). */
export const requestFormats = {
  'file-name': { type: 'string', validate: isSafeFileName }
} as const
