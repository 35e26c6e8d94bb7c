// Long-lived parts of a server process beyond the HTTP app: the render pool, the render
// service, the job loop and sweepers. `start` begins background loops once the server listens
// and knows its public URL; `close` drains them.
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { Context } from '../context.js'
import type { ApiDeps } from '../http/routes/index.js'
import { createRenderPool } from '../../workers/pool.js'
import { jobsRepo } from '../store/repos/jobs.js'
import { documentsRepo } from '../store/repos/documents.js'
import { runsRepo } from '../store/repos/runs.js'
import { runRecorder } from '../render/run-recorder.js'
import { documentLinks } from '../documents/links.js'
import { renderService } from '../render/service.js'
import { jobLoop } from '../jobs/loop.js'
import { webhookDispatcher } from '../webhooks/dispatcher.js'

export interface Runtime {
  api: Omit<ApiDeps, 'context'>
  start (baseUrl: string): void
  /** Stops taking background work (job claims); call before the HTTP server drains. */
  quiesce (): void
  /** Drains: running jobs finish (leases renewed), then webhooks, buffered runs and last the render pool. */
  close (): Promise<void>
}

export async function createServices (config: Config, context: Context, logger: Logger): Promise<Runtime> {
  let baseUrl = config.publicUrl ?? `https://${config.host}:${config.port}`
  const pool = createRenderPool({ threads: config.render.threads, maxQueue: config.render.maxQueue, timeoutMs: config.render.timeoutMs })
  const jobs = jobsRepo(context.db)
  const documents = documentsRepo(context.db)
  const runs = runsRepo(context.db)
  const recorder = runRecorder(runs, context.db, { onError: (err) => logger.error({ err }, 'could not write run history') })
  const links = documentLinks(context.box, config.documents.linkTtlMs)
  const render = renderService({
    config,
    db: context.db,
    pool,
    templates: context.services.templates,
    environments: context.repos.environments,
    dataSources: context.dataSources,
    jobs,
    documents,
    runs,
    recorder,
    outbox: context.services.outbox,
    links,
    baseUrl: () => baseUrl,
    jobQueued: () => { loop.wake() }
  })
  const webhooks = config.webhooks.enabled ? webhookDispatcher(config, { db: context.db, box: context.box, logger: logger.child({ component: 'webhooks' }) }) : undefined
  const loop = jobLoop(config, { jobs, documents, render, log: logger.child({ component: 'jobs' }) })
  return {
    api: { render: { service: render, jobs, documents, links } },
    start (url: string) {
      if (config.publicUrl === undefined) baseUrl = url
      if (config.jobs.enabled) loop.start()
      webhooks?.start()
    },
    quiesce () { loop.quiesce() },
    async close () {
      // The pool closes last: a job still rendering in it would otherwise fail as RENDER_FAILED.
      await loop.close()
      await webhooks?.close()
      await recorder.close()
      await pool.close()
    }
  }
}
