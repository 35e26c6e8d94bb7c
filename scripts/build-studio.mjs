// Builds the studio's page (studio/web, issue 36) into dist/studio/web: app.js (esbuild bundle of
// the page, CodeMirror and pdf.js), app.css, index.html and pdf.js's worker, all from
// node_modules so the page works offline (no CDN). Type-checking is separate
// (`npx tsc -p studio/web/tsconfig.json`, in `make lint`): esbuild only strips types.
import { build } from 'esbuild'
import { copyFile, mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const src = join(root, 'studio/web')
const out = join(root, 'dist/studio/web')
const require = createRequire(import.meta.url)

await mkdir(out, { recursive: true })
await build({
  entryPoints: [join(src, 'main.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // Debian's chromium and current browsers: pdf.js 5 needs recent ones anyway.
  target: ['chrome120', 'firefox120', 'safari17'],
  minify: true,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'warning'
})
await copyFile(join(src, 'index.html'), join(out, 'index.html'))
await copyFile(join(src, 'app.css'), join(out, 'app.css'))
// The minified worker of the same pdfjs-dist the bundle holds (the versions must match).
await copyFile(require.resolve('pdfjs-dist/build/pdf.worker.min.mjs'), join(out, 'pdf.worker.mjs'))
