// `svc studio`'s life: the render pool (as the server builds it, from the same settings), the
// workspace's context when one is named, the server, and the orderly end on SIGINT/SIGTERM.
import { createRenderPool } from '../../pool/render-pool.js'
import type { Config } from '../../server/config.js'
import type { Context } from '../../server/context.js'
import type { PreviewHelpers } from './render.js'
import { startStudio, type StudioListenOptions } from './studio-server.js'

export interface RunStudioDeps {
  config: Config
  /** The CLI runtime's context (server/context.ts), opened only with --workspace. */
  openContext: () => Promise<Context>
  helpers: PreviewHelpers
  /** Prints the one line `studio: URL`. */
  print: (line: string) => void
  onError: (err: unknown) => void
}

/** Serves until SIGINT or SIGTERM, then closes the server, the pool and the context. */
export async function runStudio (options: StudioListenOptions, deps: RunStudioDeps): Promise<void> {
  const render = deps.config.render
  // Two threads at most: the page renders one preview at a time, and a second thread lets the
  // next one start while a stale one is being stopped.
  const pool = createRenderPool({
    threads: Math.min(render.threads, 2),
    maxQueue: render.maxQueue,
    timeoutMs: render.timeoutMs
  })
  let context: Context | null = null
  try {
    if (options.workspace !== undefined) context = await deps.openContext()
    const studio = await startStudio(options,
      { config: deps.config, pool, context, helpers: deps.helpers, onError: deps.onError })
    deps.print(`studio: ${studio.url}`)
    await new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { resolve() })
    })
    await studio.close()
  } finally {
    await pool.close()
    await context?.close()
  }
}
