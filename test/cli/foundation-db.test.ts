// `svc db start|status|stop`: a real second MariaDB in a temporary SVC_HOME on a free port,
// reached afterwards through instance.json (no SVC_DATABASE_URL), then stopped.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, stat, readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { svc } from './foundation-helpers.js'

let home: string | undefined

after(async () => {
  if (home === undefined) return
  await svc(['db', 'stop'], { SVC_HOME: home }) // in case an assertion failed midway
  await rm(home, { recursive: true, force: true })
})

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const address = s.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      s.close(() => resolve(port))
    })
  })
}

test('db start creates and starts a private MariaDB, status reports it, migrate uses it, stop stops it', async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-db-'))
  const port = await freePort()
  const env = { SVC_HOME: home, SVC_DB_PORT: String(port), SVC_MASTER_KEY: 'ab'.repeat(32) }

  const before = await svc(['--json', 'db', 'status'], env)
  assert.equal(before.code, 1, 'not running: exit 1')
  assert.equal(before.json().running, false)
  const text = await svc(['db', 'status'], env)
  assert.equal(text.code, 1)
  assert.match(text.stdout, /not running .*svc db start/)

  const started = await svc(['--json', 'db', 'start'], env, 120_000)
  assert.equal(started.code, 0, started.stderr + started.stdout)
  assert.deepEqual(started.json(), { running: true, port, database: 'svc', user: 'svc', home })
  const info = JSON.parse(await readFile(join(home, 'db', 'instance.json'), 'utf8'))
  assert.equal(info.port, port)
  assert.equal((await stat(join(home, 'db', 'instance.json'))).mode & 0o777, 0o600, 'instance.json holds a password')

  const again = await svc(['--json', 'db', 'start'], env, 60_000)
  assert.equal(again.code, 0, 'start is idempotent')

  const status = await svc(['--json', 'db', 'status'], env)
  const s = status.json()
  assert.equal(s.running, true)
  assert.equal(s.port, port)
  assert.equal(s.external, false)
  assert.ok(Number.isInteger(s.pid) && s.pid > 0)
  process.kill(s.pid, 0) // the pid is alive

  // Without SVC_DATABASE_URL the commands use the private instance.
  const migrated = await svc(['--json', 'db', 'migrate'], env)
  assert.equal(migrated.code, 0, migrated.stderr + migrated.stdout)
  assert.ok(migrated.json().current.includes('001_initial.sql'))
  const ws = await svc(['--json', 'workspaces', 'create', '--name', 'on the private db'], env)
  assert.equal(ws.code, 0, ws.stderr + ws.stdout)

  const stopped = await svc(['--json', 'db', 'stop'], env, 60_000)
  assert.equal(stopped.code, 0)
  assert.deepEqual(stopped.json(), { stopped: true })
  assert.throws(() => process.kill(s.pid, 0), 'the server process is gone')
  assert.equal((await svc(['--json', 'db', 'status'], env)).json().running, false)
  assert.deepEqual((await svc(['--json', 'db', 'stop'], env)).json(), { stopped: false })
})
