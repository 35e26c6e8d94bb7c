// Long-lived parts of a server process beyond the HTTP app (render pool, job loop, webhook
// dispatcher, sweepers). Later layers register here; `start` begins background loops once the
// server listens and knows its public URL, `close` drains them.
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { Context } from '../context.js'
import type { ApiDeps } from '../http/routes/index.js'

export interface Runtime {
  api: Omit<ApiDeps, 'context'>
  start (baseUrl: string): void
  close (): Promise<void>
}

export async function createServices (_config: Config, _context: Context, _logger: Logger): Promise<Runtime> {
  return {
    api: {},
    start () {},
    async close () {}
  }
}
