// What a new user runs into, told at once: --json usage errors as problem documents, an
// unreachable database named with the command that fixes it, loopback webhook URLs explained,
// `svc --help` without loading the server's heavy modules, completion scripts.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { childEnv, svc, svcBin } from './foundation-helpers.js'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'

let home: string
let database: TestDatabase
let env: Record<string, string>

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-friction-'))
  database = await createTestDatabase('friction')
  env = { SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: randomBytes(32).toString('hex') }
})
after(async () => {
  await database.drop()
  await rm(home, { recursive: true, force: true })
})

/** A port on which nothing listens. */
async function closedPort (): Promise<number> {
  return await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address()
      s.close(() => { resolve(typeof address === 'object' && address !== null ? address.port : 0) })
    })
  })
}

test('--json usage errors print a VALIDATION_FAILED problem document on stdout and exit 2', async () => {
  for (const args of [['--json', 'keys', 'list'], ['keys', 'create', '--json', '--workspace', 'w', '--name', 'n', '--mode', 'prod', '--scopes', 'render'],
    ['--json', 'runs', 'list', '--workspace', 'w', '--limit', 'lots'], ['--json', 'nonsense']]) {
    const r = await svc(args, env)
    assert.equal(r.code, 2, args.join(' '))
    const body = r.json()
    assert.equal(body.errorCode, 'VALIDATION_FAILED', args.join(' '))
    assert.equal(body.status, 400)
    assert.equal(body.correlationId, 'cli')
    assert.match(r.stderr, /^error: /)
  }
  const missing = (await svc(['--json', 'keys', 'list'], env)).json()
  assert.match(missing.detail, /--workspace/)
})

test('a database that does not answer: the address and what to run; db status exits 1', async () => {
  const port = await closedPort()
  const down = { ...env, SVC_DATABASE_URL: `mysql://svc:x@127.0.0.1:${port}/svc` }
  const text = await svc(['workspaces', 'list'], down)
  assert.equal(text.code, 1)
  assert.match(text.stderr, new RegExp(`^error: DATABASE_UNAVAILABLE: The service database at 127\\.0\\.0\\.1:${port} is not reachable \\(ECONNREFUSED\\): start it with \`svc db start\` \\(or \`make db-start\`\\), or check SVC_DATABASE_URL`))
  const json = await svc(['--json', 'keys', 'list', '--workspace', '00000000-0000-4000-8000-000000000000'], down)
  assert.equal(json.code, 1)
  assert.equal(json.json().errorCode, 'DATABASE_UNAVAILABLE')
  const status = await svc(['--json', 'db', 'status'], down)
  assert.equal(status.code, 1)
  assert.deepEqual([status.json().running, status.json().external, status.json().error], [false, true, 'ECONNREFUSED'])
  const up = await svc(['--json', 'db', 'status'], env)
  assert.equal(up.code, 0, up.stderr)
  assert.equal(up.json().running, true)
})

test('webhooks create with a loopback URL explains local development', async () => {
  assert.equal((await svc(['db', 'migrate'], env)).code, 0)
  const ws = (await svc(['--json', 'workspaces', 'create', '--name', 'W'], env)).json()
  const r = await svc(['webhooks', 'create', '--workspace', ws.id, '--url', 'https://127.0.0.1:9443/', '--events', 'template.published'], env)
  assert.equal(r.code, 1)
  assert.match(r.stderr, /WEBHOOK_URL_REFUSED: .*svc webhooks listen.*SVC_WEBHOOKS_ALLOW_PRIVATE=true/)
  const allowed = await svc(['--json', 'webhooks', 'create', '--workspace', ws.id, '--url', 'https://127.0.0.1:9443/', '--events', 'template.published'],
    { ...env, SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' })
  assert.equal(allowed.code, 0, allowed.stderr)
})

test('svc --help and simple commands load no database driver, HTTP server, client or engine', async () => {
  const hooks = join(home, 'hooks.mjs')
  const register = join(home, 'register.mjs')
  // eslint-disable-next-line no-template-curly-in-string -- JavaScript source written to a file
  await writeFile(hooks, 'export async function resolve (s, c, next) { const r = await next(s, c); process.stderr.write(`LOAD ${r.url}\\n`); return r }\n')
  await writeFile(register, `import { register } from 'node:module'\nregister(${JSON.stringify('file://' + hooks)})\n`)
  for (const args of [['--help'], ['keys', '--help'], ['completion', 'bash']]) {
    const r = await promisify(execFile)(process.execPath, ['--import', register, svcBin, ...args], { env: childEnv(env) })
    const loaded = r.stderr.split('\n').filter((l) => l.startsWith('LOAD '))
    assert.ok(loaded.some((l) => l.includes('/dist/cli/main.js')), 'the hook saw the CLI load')
    const heavy = loaded.filter((l) => /node_modules\/(mysql2|fastify|undici|pdfkit|piscina|pino|ajv|bwip-js)\/|dist\/(engine|pool|worker|client)\/|dist\/server\/(context|app|render|http)/.test(l))
    assert.deepEqual(heavy, [], `svc ${args.join(' ')} loaded heavy modules`)
  }
})
