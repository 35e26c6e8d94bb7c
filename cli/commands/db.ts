import type { Command } from 'commander'
import { startInstance, stopInstance, instanceStatus } from '../../server/store/instance.js'
import { createDb } from '../../server/store/db.js'
import { migrate } from '../../server/store/migrate.js'
import { resolveDatabaseUrl } from '../../server/context.js'
import { emit } from '../io.js'
import type { CliRuntime } from '../runtime.js'

export function dbCommands (program: Command, rt: CliRuntime): void {
  const db = program.command('db').description('the service database (a private MariaDB in SVC_HOME unless SVC_DATABASE_URL is set)')

  db.command('start').description('start the private MariaDB on 127.0.0.1 (installs mariadb-server when missing and root)')
    .action(async () => {
      const config = rt.config()
      const io = rt.io()
      const info = await startInstance(config.home, config.dbPort, (line) => io.err(line))
      emit(io, { running: true, port: info.port, database: info.database, user: info.user, home: config.home },
        (v) => `MariaDB running on 127.0.0.1:${v.port} (database ${v.database}, state in ${v.home}/db)`)
    })

  db.command('stop').description('stop the private MariaDB')
    .action(async () => {
      const stopped = await stopInstance(rt.config().home)
      emit(rt.io(), { stopped }, (v) => v.stopped ? 'MariaDB stopped' : 'MariaDB was not running')
    })

  db.command('status').description('is the private MariaDB running, and where')
    .action(async () => {
      const config = rt.config()
      const status = await instanceStatus(config.home)
      const value = { running: status.running, pid: status.pid ?? null, port: status.info?.port ?? null, dir: status.dir, external: config.databaseUrl !== undefined }
      emit(rt.io(), value, (v) => v.external
        ? 'SVC_DATABASE_URL is set: the private MariaDB is not used'
        : v.running ? `running (pid ${v.pid}) on 127.0.0.1:${v.port}, state in ${v.dir}` : `not running (state in ${v.dir})`)
    })

  db.command('migrate').description('apply pending migrations (safe to run twice, and from two processes at once)')
    .action(async () => {
      const pool = createDb(await resolveDatabaseUrl(rt.config()), { connectionLimit: 2 })
      try {
        const result = await migrate(pool)
        emit(rt.io(), result, (v) => v.applied.length === 0 ? `up to date (${v.current.length} migrations)` : v.applied.map((f) => `applied ${f}`))
      } finally { await pool.end() }
    })
}
