// The page and its bundle, from dist/studio/web/ (built by `make build`; no CDN: works offline).
import { readFile } from 'node:fs/promises'
import { join, normalize, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** dist/studio/web/, next to this module once compiled (dist/studio/server/). */
export const WEB_DIR = fileURLToPath(new URL('../web/', import.meta.url))

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2'
}

/** A file of the bundle by its path under assets/ (or index.html); null when none (or outside). */
export async function readAsset (dir: string, relative: string): Promise<{ type: string, body: Buffer } | null> {
  const path = normalize(join(dir, relative))
  if (!path.startsWith(normalize(dir + sep)) || relative.includes('\0')) return null
  const ext = path.slice(path.lastIndexOf('.'))
  const type = TYPES[ext]
  if (type === undefined) return null
  try {
    return { type, body: await readFile(path) }
  } catch {
    return null
  }
}

/** When the bundle was not built: a page that says so (the API works without it). */
export const NO_BUNDLE_HTML = '<!doctype html><meta charset="utf-8"><title>svc studio</title>' +
  '<p>The studio page is not built: run <code>make build</code>.</p>'
