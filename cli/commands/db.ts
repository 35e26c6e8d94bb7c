import type { Command } from 'commander'
import { emit, ExitCode } from '../io.js'
import type { CliRuntime } from '../runtime.js'

/** undefined when the database at `url` answers a query, else why not. */
async function answers (url: string): Promise<string | undefined> {
  const { createDb } = await import('../../server/store/db.js')
  const pool = createDb(url, { connectionLimit: 1 })
  try { await pool.query('SELECT 1'); return undefined } catch (err) {
    return (err as { code?: string }).code ?? (err as Error).message
  } finally { await pool.end() }
}

export function dbCommands (program: Command, rt: CliRuntime): void {
  const db = program.command('db').description('the service database (a private MariaDB in SVC_HOME unless ' +
    'SVC_DATABASE_URL is set)')

  db.command('start').description('start the private MariaDB on 127.0.0.1 (installs mariadb-server when missing and ' +
    'root)')
    .action(async () => {
      const config = rt.config()
      const io = rt.io()
      const { startInstance } = await import('../../server/store/instance.js')
      const info = await startInstance(config.home, config.dbPort, (line) => io.err(line))
      emit(io, { running: true, port: info.port, database: info.database, user: info.user, home: config.home },
        (v) => `MariaDB running on 127.0.0.1:${v.port} (database ${v.database}, state in ${v.home}/db)`)
    })

  db.command('stop').description('stop the private MariaDB')
    .action(async () => {
      const { stopInstance } = await import('../../server/store/instance.js')
      const stopped = await stopInstance(rt.config().home)
      emit(rt.io(), { stopped }, (v) => v.stopped ? 'MariaDB stopped' : 'MariaDB was not running')
    })

  db.command('status').description('is the database running (exit 1 when not): the private MariaDB, ' +
    'or the SVC_DATABASE_URL one')
    .action(async () => {
      const config = rt.config()
      const { instanceStatus } = await import('../../server/store/instance.js')
      const status = await instanceStatus(config.home)
      const external = config.databaseUrl !== undefined
      // An external database is running when it answers; the private one when its process is alive.
      const reachable = external ? await answers(config.databaseUrl as string) : undefined
      const value = {
        running: external ? reachable === undefined : status.running,
        pid: status.pid ?? null,
        port: status.info?.port ?? null,
        dir: status.dir,
        external,
        error: reachable ?? null
      }
      emit(rt.io(), value, (v) => v.external
        ? v.running
          ? 'SVC_DATABASE_URL is set and answers (the private MariaDB is not used)'
          : 'SVC_DATABASE_URL is ' +
          `set but does not answer: ${v.error}`
        : v.running ? `running (pid ${v.pid}) on 127.0.0.1:${v.port}, state in ${v.dir}` : `not running (state in ${v.dir}): start it with \`svc db start\` or \`make db-start\``)
      if (!value.running) throw new ExitCode(1)
    })

  db.command('migrate').description('apply pending migrations (safe to run twice, and from two processes at once)')
    .action(async () => {
      const [{ createDb }, { migrate }, { resolveDatabaseUrl }] = await Promise.all([
        import('../../server/store/db.js'), import('../../server/store/migrate.js'), import('../../server/context.js')
      ])
      const pool = createDb(await resolveDatabaseUrl(rt.config()), { connectionLimit: 2 })
      try {
        const result = await migrate(pool)
        emit(rt.io(), result, (v) => v.applied.length === 0 ? `up to date (${v.current.length} migrations)` : v.applied.map((f) => `applied ${f}`))
      } finally { await pool.end() }
    })
}
