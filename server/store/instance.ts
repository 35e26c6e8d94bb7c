// A private MariaDB server in the state folder (SVC_HOME/db), on 127.0.0.1 only, started and
// stopped by the project itself. Recipe from shared/notes/measured-facts.md: install-db with
// --no-defaults, mariadbd in the background, ping over the socket, then set up the accounts
// (secureGrants: the tenant-isolation rules of docs/security.md).
import { spawn, execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync, openSync, closeSync } from 'node:fs'
import { mkdir, readFile, writeFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { userInfo } from 'node:os'

const run = promisify(execFile)

export interface InstanceInfo {
  port: number
  user: string
  password: string
  database: string
  url: string
  socket: string
}
export interface InstanceStatus { running: boolean, pid?: number, dir: string, info?: InstanceInfo }

export function instanceDir (home: string): string { return join(home, 'db') }
const infoFile = (dir: string): string => join(dir, 'instance.json')
const pidFile = (dir: string): string => join(dir, 'db.pid')
const sockFile = (dir: string): string => join(dir, 'db.sock')

async function which (cmd: string): Promise<boolean> {
  try { await run('sh', ['-c', `command -v ${cmd}`]); return true } catch { return false }
}

/** Installs Debian's mariadb-server when it is missing and we are root; otherwise says what to do. */
export async function ensureMariadbInstalled (log: (line: string) => void = () => {}): Promise<void> {
  if (await which('mariadbd') && await which('mariadb-install-db')) return
  if (process.getuid?.() !== 0) {
    throw new Error('MariaDB is not installed. Run as root: apt-get install -y mariadb-server ' +
      '(or set SVC_DATABASE_URL to a MySQL 8 / MariaDB >= 10.6 server)')
  }
  log('installing mariadb-server (Debian package) …')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  await run('apt-get', ['update', '-qq'], { env, maxBuffer: 64 << 20 })
  await run('apt-get', ['install', '-y', '-qq', 'mariadb-server'], { env, maxBuffer: 64 << 20 })
}

async function readPid (dir: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(pidFile(dir), 'utf8')).trim())
    process.kill(pid, 0)
    return pid
  } catch { return undefined }
}

export async function readInstanceInfo (home: string): Promise<InstanceInfo | undefined> {
  try { return JSON.parse(await readFile(infoFile(instanceDir(home)), 'utf8')) as InstanceInfo } catch { return undefined }
}

export async function instanceStatus (home: string): Promise<InstanceStatus> {
  const dir = instanceDir(home)
  const pid = await readPid(dir)
  const info = await readInstanceInfo(home)
  return { running: pid !== undefined, pid, dir, info }
}

async function ping (dir: string): Promise<boolean> {
  try {
    // mysqladmin ping answers "alive" even when access is denied: enough to know the server is up.
    await run('mariadb-admin', ['--no-defaults', `--socket=${sockFile(dir)}`, `-u${adminUser()}`, '--connect-timeout=2', 'ping'])
    return true
  } catch { return false }
}

/**
 * The instance's administrator: the operating-system user running svc, authenticated by the
 * unix_socket plugin over the socket only (root when svc runs as root). No TCP account has more
 * than the service database.
 */
export function adminUser (): string { return userInfo().username }

/** How to reach the instance as its administrator (mysql2 options: the socket, no password). */
export function adminConnection (home: string): { socketPath: string, user: string } {
  return { socketPath: sockFile(instanceDir(home)), user: adminUser() }
}

async function rootSql (dir: string, sql: string, extra: string[] = []): Promise<string> {
  const args = (user: string): string[] => ['--no-defaults', `--socket=${sockFile(dir)}`, `-u${user}`, ...extra, '-e', sql]
  try {
    return (await run('mariadb', args(adminUser()))).stdout
  } catch (err) {
    // An instance created before the socket-only administrator: its root has no password yet.
    if (adminUser() === 'root') throw err
    return (await run('mariadb', args('root'))).stdout
  }
}

const quote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`

/**
 * Grants as they must be, applied at every start (so an older instance is fixed in place, data
 * untouched): the service user holds its own database only, without GRANT OPTION; the
 * administrator logs in over the socket only; root and anonymous accounts reachable over TCP are
 * dropped, so `root@127.0.0.1` is refused.
 */
async function secureGrants (dir: string, info: InstanceInfo): Promise<void> {
  const admin = adminUser()
  const user = `${quote(info.user)}@'127.0.0.1'`
  await rootSql(dir, `CREATE DATABASE IF NOT EXISTS \`${info.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    ${admin === 'root' ? '' : `CREATE USER IF NOT EXISTS ${quote(admin)}@'localhost' IDENTIFIED VIA unix_socket;`}
    GRANT ALL PRIVILEGES ON *.* TO ${quote(admin)}@'localhost' WITH GRANT OPTION;
    ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket;
    CREATE USER IF NOT EXISTS ${user} IDENTIFIED BY ${quote(info.password)};
    ALTER USER ${user} IDENTIFIED BY ${quote(info.password)};
    REVOKE ALL PRIVILEGES, GRANT OPTION FROM ${user};
    GRANT ALL PRIVILEGES ON \`${info.database}\`.* TO ${user};`)
  const stray = await rootSql(dir, "SELECT CONCAT(QUOTE(User), '@', QUOTE(Host)) FROM mysql.global_priv WHERE User " +
    "IN ('root', '') AND Host <> 'localhost' OR User = ''", ['-N', '-B'])
  const accounts = stray.split('\n').filter((line) => line.trim() !== '')
  if (accounts.length > 0) await rootSql(dir, `DROP USER ${accounts.join(', ')}`)
}

/** Starts the instance (creating it on first use) and returns how to reach it. Idempotent. */
export async function startInstance (
  home: string,
  port: number,
  log: (line: string) => void = () => {}
): Promise<InstanceInfo> {
  await ensureMariadbInstalled(log)
  const dir = instanceDir(home)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const running = await readPid(dir)
  const existing = await readInstanceInfo(home)
  if (running !== undefined && existing !== undefined && (await ping(dir))) {
    await secureGrants(dir, existing)
    return existing
  }
  if (!existsSync(join(dir, 'data', 'mysql'))) {
    log(`creating a private MariaDB in ${dir} …`)
    await rm(join(dir, 'data'), { recursive: true, force: true })
    await run(
      'mariadb-install-db',
      [
        '--no-defaults',
        '--user=root',
        `--datadir=${join(dir, 'data')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db'
      ],
      { maxBuffer: 64 << 20 }
    )
  }
  const logFd = openSync(join(dir, 'err.log'), 'a')
  const args = [
    '--no-defaults',
    '--user=root',
    `--datadir=${join(dir, 'data')}`,
    `--socket=${sockFile(dir)}`,
    `--pid-file=${pidFile(dir)}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    '--skip-name-resolve',
    `--log-error=${join(dir, 'err.log')}`,
    '--innodb-buffer-pool-size=256M',
    '--innodb-flush-log-at-trx-commit=2',
    '--max-connections=500',
    '--max-prepared-stmt-count=1048576',
    // A pool of threads (one group per core) instead of a thread per connection: the server's
    // pools keep dozens of connections open, each waking its own thread for a sub-millisecond
    // statement on 2 shared cores. Lab A/B, 16 clients of sync invoices: MariaDB CPU per
    // request 0.35-0.42 -> 0.31-0.34 ms. A statement that runs long (a slow data-source query
    // on the demo's data) lets another thread into its group after 20 ms, not the default 500.
    '--thread-handling=pool-of-threads',
    '--thread-pool-stall-limit=20',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_bin'
  ]
  // SCHED_BATCH (chrt execs mariadbd: same pid): a woken MariaDB thread no longer preempts the
  // thread that woke it. On 2 cores shared with svc, the MariaDB thread a statement woke took
  // the core from svc's HTTP thread ~530 times a second under load (perf sched), and the render
  // threads then slept waiting for it to hand them the next render; now MariaDB runs when a core
  // is free or at the next tick. A/B, 16 clients of sync invoices, 6 runs each, alternated: 600 -> 670 req/s
  // (medians), idle CPU 8-9% -> 6-7%. Needs no privilege; util-linux (chrt) is always on Debian.
  const batch = await which('chrt')
  const child = spawn(batch ? 'chrt' : 'mariadbd', batch ? ['--batch', '0', 'mariadbd', ...args] : args,
    { detached: true, stdio: ['ignore', logFd, logFd] })
  child.unref()
  closeSync(logFd)
  const deadline = Date.now() + 30_000
  while (!(await ping(dir))) {
    if (Date.now() > deadline) throw new Error(`MariaDB did not start within 30 s; see ${join(dir, 'err.log')}`)
    if (child.exitCode !== null) {
      throw new Error(
        `MariaDB exited with ${child.exitCode}; see ${join(dir, 'err.log')} (is port ${port} taken? set SVC_DB_PORT)`
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  const info: InstanceInfo =
    existing?.port === port
      ? existing
      : {
          port,
          user: 'svc',
          password: existing?.password ?? randomBytes(18).toString('base64url'),
          database: 'svc',
          url: '',
          socket: sockFile(dir)
        }
  info.url = `mysql://${info.user}:${encodeURIComponent(info.password)}@127.0.0.1:${port}/${info.database}`
  await secureGrants(dir, info)
  await writeFile(infoFile(dir), JSON.stringify(info, null, 2) + '\n', { mode: 0o600 })
  return info
}

export async function stopInstance (home: string): Promise<boolean> {
  const dir = instanceDir(home)
  const pid = await readPid(dir)
  if (pid === undefined) return false
  process.kill(pid, 'SIGTERM')
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    try { process.kill(pid, 0) } catch { return true }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  process.kill(pid, 'SIGKILL')
  return true
}
