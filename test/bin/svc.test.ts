// bin/svc's first line gives the process its memory and CPU settings (docs/deploy.md, "Sizing"): run as
// an executable (as make run, the cluster, the bench and the systemd unit do), the process has
// them; run as `node bin/svc`, it has Node's defaults.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const svc = fileURLToPath(new URL('../../../bin/svc', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'svc-bin-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })
// Preloaded into the process: reports what it was started with when it exits.
const probe = join(dir, 'probe.mjs')
writeFileSync(probe, `process.on('exit', (code) => process.stderr.write('PROBE ' + JSON.stringify({
  code, arenas: process.env.MALLOC_ARENA_MAX ?? null, flags: process.execArgv }) + '\\n'))
`)

interface Started { code: number, arenas: string | null, flags: string[] }

function started (command: string, args: string[]): Started {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: `--import=${probe}` }
  delete env.MALLOC_ARENA_MAX
  const r = spawnSync(command, [...args, '--help'], { env, encoding: 'utf8' })
  const line = /PROBE (.*)/.exec(r.stderr)
  assert.ok(line !== null, `no report from ${command}: ${r.stderr}`)
  return JSON.parse(line[1]!) as Started
}

test('bin/svc run as an executable starts with its memory and CPU settings; node bin/svc with the defaults', () => {
  const own = started(svc, [])
  const flags = ['--max-semi-space-size=4', '--heap-growing-percent=30', '--no-parallel-scavenge']
  assert.deepEqual(own, { code: 0, arenas: '2', flags })
  const plain = started(process.execPath, [svc])
  assert.deepEqual(plain, { code: 0, arenas: null, flags: [] })
})
