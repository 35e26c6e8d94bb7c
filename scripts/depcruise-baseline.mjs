// Rewrites .dependency-cruiser-known-violations.json: the breaches of both import-rule runs of
// `npm run lint:imports` (.dependency-cruiser.cjs, .dependency-cruiser-runtime.cjs) in one file.
// Run it when a breach has gone away; its diff should only lose lines (docs/architecture.md).
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const depcruise = join(root, 'node_modules', '.bin', 'depcruise')
const known = []
for (const config of ['.dependency-cruiser.cjs', '.dependency-cruiser-runtime.cjs']) {
  const out = execFileSync(depcruise, ['-c', config, '-T', 'baseline', '.'],
    { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 })
  known.push(...JSON.parse(out))
}
const file = join(root, '.dependency-cruiser-known-violations.json')
writeFileSync(file, JSON.stringify(known, null, 2) + '\n')
console.log(`${file}: ${known.length} known violations`)
