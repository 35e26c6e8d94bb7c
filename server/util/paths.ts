// Where the project's non-TypeScript files live, from the compiled module's location
// (dist/server/util → project root), so the same code works from any working directory.
import { fileURLToPath } from 'node:url'
import { dirname, join, resolve } from 'node:path'
import { existsSync } from 'node:fs'

function findRoot (): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'server'))) return dir
    const parent = resolve(dir, '..')
    if (parent === dir) throw new Error('project root not found above ' + fileURLToPath(import.meta.url))
    dir = parent
  }
}

export const projectRoot = findRoot()
export const migrationsDir = join(projectRoot, 'server', 'store', 'migrations')
export const examplesDir = join(projectRoot, 'examples')
