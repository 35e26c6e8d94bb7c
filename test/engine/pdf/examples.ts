// The example templates rendered as the service renders them (engine/render.ts: an e-invoice's
// names and attachment too). Run as `node examples.js OUT.pdf` it writes the demo invoice, from
// which references/invoice-struct.txt is made: `pdfinfo -struct-text OUT.pdf` (then reviewed).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { render } from '../../../engine/render.js'
import { getCompiled } from '../../../engine/template/cache.js'
import type { RenderSuccess } from '../../../engine/types.js'
import { input } from './fixtures.js'

const examples = join(import.meta.dirname, '..', '..', '..', '..', 'examples')

export function renderExample (template: string, data: string): RenderSuccess {
  const def = JSON.parse(readFileSync(join(examples, 'templates', `${template}.json`), 'utf8')) as unknown
  const datasets = JSON.parse(readFileSync(join(examples, 'data', `${data}.json`), 'utf8')) as Record<string, unknown>
  const parameters = { invoiceId: 1, from: '2024-01-01', to: '2024-12-31' }
  const task = { ...input(def, datasets, {}, `example:${template}:${data}`), parameters }
  return render(getCompiled(task.versionKey, task.definition), task)
}

const out = process.argv[1]?.endsWith('examples.js') === true ? process.argv[2] : undefined
if (out !== undefined) writeFileSync(out, renderExample('invoice', 'invoice').bytes)
