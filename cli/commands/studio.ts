// `svc studio [FILE] [--template CODE --workspace ID]`: the template studio (docs/studio.md). Thin:
// parses, hands the preview helpers of `svc templates preview` to studio/server and prints its URL.
import type { Command } from 'commander'
import { fail, UsageError } from '../io.js'
import type { CliRuntime } from '../runtime.js'

interface StudioFlags {
  template?: string
  workspace?: string
  port: string
  host: string
  data?: string
  allowRemote?: boolean
}

export function studioCommand (program: Command, rt: CliRuntime): void {
  program.command('studio').description('edit a template in the browser with live preview, real data, ' +
    'validate, save and publish (a local page on 127.0.0.1, with a per-run token)')
    .argument('[file]', 'template file (JSON)')
    .option('--template <code>', 'a published template of the workspace (with --workspace)')
    .option('--workspace <id>', 'workspace id: datasets of its environments, publish')
    .option('--port <n>', 'port (0: any free one)', '0')
    .option('--host <address>', 'address to listen on: 127.0.0.1 or ::1 (others need --allow-remote)', '127.0.0.1')
    .option('--allow-remote', 'allow a --host other than loopback (anyone who has the URL can publish)')
    .option('--data <file>', 'rows by dataset code: { "<dataset code>": rows }')
    .action(async (file: string | undefined, opts: StudioFlags) => {
      const io = rt.io()
      const port = Number(opts.port)
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port: an integer 0-65535')
      // Loaded on use, like preview: the engine and the pool would slow every other command's start.
      const [{ runStudio }, preview, pages] = await Promise.all([
        import('../../studio/server/run.js'),
        import('./templates-preview.js'),
        import('./templates-preview-pages.js')
      ])
      const config = rt.config()
      const { createContext } = await import('../../server/context.js')
      await runStudio({
        ...(file === undefined ? {} : { file }),
        ...(opts.template === undefined ? {} : { template: opts.template }),
        ...(opts.workspace === undefined ? {} : { workspace: opts.workspace }),
        ...(opts.data === undefined ? {} : { data: opts.data }),
        host: opts.host,
        port,
        allowRemote: opts.allowRemote === true
      }, {
        config,
        openContext: async () => await createContext(config, { poolSize: 4 }),
        helpers: { datasetsFromFile: preview.datasetsFromFile, labelPngs: pages.labelPngs },
        print: (line) => { process.stdout.write(line + '\n') },
        onError: (err) => { fail(io, err) }
      })
    })
}
