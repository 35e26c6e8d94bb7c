// What every command needs: the validated Config (env + global flags) and, for commands that
// touch the database, a Context that is closed afterwards.
import { availableParallelism } from 'node:os'
import type { Command } from 'commander'
import { loadConfig } from '../server/config.js'
import type { Config } from '../server/config.js'
import type { Context } from '../server/context.js'
import { createDefaultIo } from './io.js'
import type { Io } from './io.js'

export interface CliRuntime {
  io (): Io
  config (overrides?: Record<string, string | undefined>): Config
  withContext<T> (fn: (ctx: Context) => Promise<T>): Promise<T>
}

export function createCliRuntime (program: Command): CliRuntime {
  const globals = (): { json?: boolean, home?: string, databaseUrl?: string } => program.opts()
  const config = (overrides: Record<string, string | undefined> = {}): Config => {
    const g = globals()
    const flags: Record<string, string | undefined> = {}
    if (g.home !== undefined) flags.SVC_HOME = g.home
    if (g.databaseUrl !== undefined) flags.SVC_DATABASE_URL = g.databaseUrl
    for (const [k, v] of Object.entries(overrides)) if (v !== undefined) flags[k] = v
    return loadConfig(process.env, flags, availableParallelism())
  }
  return {
    io: () => createDefaultIo(globals().json === true),
    config,
    async withContext (fn) {
      // Loaded on use: the context (mysql2, services) would slow every command's start.
      const { createContext } = await import('../server/context.js')
      const ctx = await createContext(config(), { poolSize: 4 })
      try { return await fn(ctx) } finally { await ctx.close() }
    }
  }
}
