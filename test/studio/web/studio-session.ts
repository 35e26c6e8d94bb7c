// What the studio's browser test and its benchmark share: the demo workspace on a test database,
// `bin/svc studio` as a real child process (its URL read from its one line of output), and
// Debian's chromium driven by playwright-core with the flags of the issue.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { chromium, type Browser } from 'playwright-core'
import { createDb } from '../../../server/store/db.js'
import { projectRoot } from '../../../server/util/paths.js'
import { childEnv, svc } from '../../cli/foundation-helpers.js'
import { createTestDatabase, serverUrl, testDataSourceAllow, type TestDatabase } from '../../helpers/db.js'

export interface DemoWorkspace {
  tdb: TestDatabase
  home: string
  workspaceId: string
  /** The development environment's database (`<prefix>_development`). */
  devDatabase: string
  env: Record<string, string>
  drop (): Promise<void>
}

/** `svc demo` on a fresh test database: the workspace, its three environments, the examples published. */
export async function demoWorkspace (): Promise<DemoWorkspace> {
  const prefix = `t${randomBytes(4).toString('hex')}_studio`
  const tdb = await createTestDatabase('studio')
  const home = await mkdtemp(join(tmpdir(), 'svc-studio-'))
  const env = {
    SVC_HOME: home,
    SVC_DATABASE_URL: tdb.url,
    SVC_MASTER_KEY: randomBytes(32).toString('hex'),
    SVC_DATASOURCE_ALLOW: testDataSourceAllow()
  }
  const drop = async (): Promise<void> => {
    const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
    for (const [e, short] of [['development', 'dev'], ['staging', 'stg'], ['production', 'prod']]) {
      await admin.query(`DROP DATABASE IF EXISTS \`${prefix}_${e}\``)
      await admin.query(`DROP USER IF EXISTS '${prefix}_${short}_ro'@'%'`)
    }
    await admin.end()
    await tdb.drop()
    await rm(home, { recursive: true, force: true })
  }
  const r = await svc(['--json', 'demo', '--db-prefix', prefix], env, 120_000)
  if (r.code !== 0) { await drop(); throw new Error(`svc demo failed: ${r.stderr}${r.stdout}`) }
  const doc = r.json() as { workspace: { id: string } }
  return { tdb, home, workspaceId: doc.workspace.id, devDatabase: `${prefix}_development`, env, drop }
}

export interface StudioProcess {
  url: string
  child: ChildProcess
  /** Everything the process wrote to stderr so far (for failure messages). */
  stderr (): string
  stop (): Promise<void>
}

/** Starts `bin/svc studio ARGS` and resolves with the URL it prints (`studio: http://…/TOKEN/`). */
export async function startStudio (args: string[], env: Record<string, string>): Promise<StudioProcess> {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'svc'), 'studio', ...args], {
    env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe']
  })
  let err = ''
  child.stderr.on('data', (b: Buffer) => { err += b.toString() })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout })
    const timer = setTimeout(() => reject(new Error(`svc studio printed no URL in 60 s: ${err}`)), 60_000)
    lines.on('line', (line) => {
      const m = /^studio: (http:\/\/\S+\/)$/.exec(line.trim())
      if (m?.[1] !== undefined) { clearTimeout(timer); resolve(m[1]) }
    })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`svc studio exited (${code}): ${err}`)) })
  })
  return {
    url,
    child,
    stderr: () => err,
    async stop () {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    }
  }
}

/** Debian's chromium, headless, with the flags of the issue (no sandbox in containers, no GPU, quiet). */
export async function launchChromium (): Promise<Browser> {
  return await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run']
  })
}
