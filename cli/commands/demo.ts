// `svc demo`: a demo workspace with three environments, each on its own sample database with a
// read-only user, the example templates published, and a live and a test key with curl commands.
import type { Command } from 'commander'
import { emit, UsageError } from '../io.js'
import type { CliRuntime } from '../runtime.js'

export function demoCommand (program: Command, rt: CliRuntime): void {
  program.command('demo')
    .description('create (or refresh) the demo workspace: environments with sample MariaDB databases, ' +
      'example templates, API keys and curl commands')
    .option('--db-prefix <prefix>', 'prefix of the demo databases and read-only users', 'demo')
    .action(async (opts: { dbPrefix: string }) => {
      if (!/^[a-z][a-z0-9_]{0,40}$/.test(opts.dbPrefix)) {
        throw new UsageError('--db-prefix: lowercase letters, digits and _ (at most 41), starting with a letter')
      }
      const config = rt.config()
      const [{ runDemo }, { demoDocument, demoText }, { createDb }, { adminConnection }] = await Promise.all([
        import('../../server/demo/setup.js'), import('../../server/demo/output.js'),
        import('../../server/store/db.js'), import('../../server/store/instance.js')
      ])
      const result = await rt.withContext(async (ctx) => {
        // On the private instance the demo's databases and users are made by its administrator
        // over the socket; with SVC_DATABASE_URL by that account (the operator's choice).
        const admin = config.databaseUrl === undefined ? createDb('mysql://localhost/mysql', { ...adminConnection(config.home), connectionLimit: 1 }) : ctx.db
        try {
          return await runDemo(ctx, { prefix: opts.dbPrefix, home: config.home, admin })
        } finally {
          if (admin !== ctx.db) await admin.end()
        }
      })
      const allowed = config.datasources.policy.allow.map((r) => r.text)
      if (allowed.length > 0) {
        rt.io().err(`data sources: SVC_DATASOURCE_ALLOW=${allowed.join(',')} lets environments ` +
        'reach these addresses (the demo\'s own loopback database)')
      }
      const doc = demoDocument(result, config)
      emit(rt.io(), doc, demoText)
    })
}
