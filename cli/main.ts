// `svc`: the admin and performance-engineer CLI. Commands reuse server/ services, never routes.
import { Command, CommanderError } from 'commander'
import { createCliRuntime } from './runtime.js'
import { fail, createDefaultIo, usageProblem } from './io.js'
import { dbCommands } from './commands/db.js'
import { serveCommand } from './commands/serve.js'
import { workspaceCommands } from './commands/workspaces.js'
import { envCommands } from './commands/envs.js'
import { keyCommands } from './commands/keys.js'
import { registerMore } from './commands/index.js'
import { JSON_OUTPUTS } from './json-outputs.js'

export function buildProgram (): Command {
  const program = new Command('svc')
    .description('svc: render published templates into PDF and ZPL')
    .option('--json', 'machine-readable output: one JSON document')
    .option('--home <dir>', 'state folder (SVC_HOME, default ./.svc)')
    .option('--database-url <url>', 'service database (SVC_DATABASE_URL)')
    .showHelpAfterError('(run svc --help for usage)')
    .exitOverride()
  const rt = createCliRuntime(program)
  dbCommands(program, rt)
  serveCommand(program, rt)
  workspaceCommands(program, rt)
  envCommands(program, rt)
  keyCommands(program, rt)
  registerMore(program, rt)
  // Subcommands inherit exitOverride and the single-line usage errors; each --help tells its --json output.
  const walk = (cmd: Command, path: string[]): void => {
    cmd.exitOverride()
    cmd.showHelpAfterError(false)
    const out = JSON_OUTPUTS[path.join(' ')]
    if (out !== undefined) cmd.addHelpText('after', `\n--json: ${out.json}${out.exit1 === undefined ? '' : `\nExit 1 also when ${out.exit1}.`}`)
    cmd.commands.forEach((sub) => { walk(sub, [...path, sub.name()]) })
  }
  program.commands.forEach((cmd) => { walk(cmd, [cmd.name()]) })
  return program
}

/** `state.keepAlive` tells bin/svc that the command that ran (serve) keeps the process running. */
export async function main (argv: string[], state: { keepAlive?: boolean } = {}): Promise<number> {
  const program = buildProgram()
  program.hook('preAction', (_program, action) => { state.keepAlive = action.name() === 'serve' })
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (err) {
    // --json may follow the command (`svc keys list --json`); a usage error can stop parsing before it is read.
    const json = program.opts().json === true || argv.includes('--json')
    if (err instanceof CommanderError) {
      // help and version are successes; commander has already printed the usage error line
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0
      if (json) createDefaultIo(true).out(JSON.stringify(usageProblem(err.message), null, 2))
      return 2
    }
    return fail(createDefaultIo(json), err)
  }
}
