import type { Command } from 'commander'
import type { CliRuntime } from '../runtime.js'

export function serveCommand (program: Command, rt: CliRuntime): void {
  program.command('serve').description('serve the HTTPS API (migrates the database first)')
    .option('--host <host>', 'address to listen on (SVC_HOST)')
    .option('--port <port>', 'port to listen on, 0 for any (SVC_PORT)')
    .action(async (opts: { host?: string, port?: string }) => {
      const config = rt.config({ SVC_HOST: opts.host, SVC_PORT: opts.port })
      const { serve } = await import('../../bin/serve.js')
      await serve(config)
    })
}
