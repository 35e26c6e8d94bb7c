// `svc demo`: a demo workspace with three environments, each on its own sample database with a
// read-only user, the example templates published, and a live and a test key with curl commands.
import type { Command } from 'commander'
import { emit, UsageError } from '../io.js'
import type { CliRuntime } from '../runtime.js'

export function demoCommand (program: Command, rt: CliRuntime): void {
  program.command('demo')
    .description('create (or refresh) the demo workspace: environments with sample MariaDB databases, example templates, API keys and curl commands')
    .option('--db-prefix <prefix>', 'prefix of the demo databases and read-only users', 'demo')
    .action(async (opts: { dbPrefix: string }) => {
      if (!/^[a-z][a-z0-9_]{0,40}$/.test(opts.dbPrefix)) throw new UsageError('--db-prefix: lowercase letters, digits and _ (at most 41), starting with a letter')
      const config = rt.config()
      const [{ runDemo }, { demoDocument, demoText }] = await Promise.all([import('../../server/demo/setup.js'), import('../../server/demo/output.js')])
      const result = await rt.withContext((ctx) => runDemo(ctx, { prefix: opts.dbPrefix, home: config.home }))
      const doc = demoDocument(result, config)
      emit(rt.io(), doc, demoText)
    })
}
