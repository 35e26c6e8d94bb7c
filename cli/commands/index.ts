// Commands added by later layers (templates, runs, demo, webhooks, bench) register here.
import type { Command } from 'commander'
import type { CliRuntime } from '../runtime.js'
import { runCommands } from './runs.js'
import { templateCommands } from './templates.js'
import { benchCommand } from './bench.js'
import { webhookCommands } from './webhooks.js'
import { demoCommand } from './demo.js'
import { completionCommand } from './completion.js'
import { secretsCommands } from './secrets.js'
import { openapiCommand } from './openapi.js'
import { studioCommand } from './studio.js'

export function registerMore (program: Command, rt: CliRuntime): void {
  runCommands(program, rt)
  templateCommands(program, rt)
  benchCommand(program, rt)
  webhookCommands(program, rt)
  demoCommand(program, rt)
  completionCommand(program, rt)
  secretsCommands(program, rt)
  openapiCommand(program, rt)
  studioCommand(program, rt)
}
