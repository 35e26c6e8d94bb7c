// Commands added by later layers (templates, runs, demo, webhooks, bench) register here.
import type { Command } from 'commander'
import type { CliRuntime } from '../runtime.js'

export function registerMore (_program: Command, _rt: CliRuntime): void {}
