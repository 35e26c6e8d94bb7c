// The process around the app: the only place that listens, handles signals and exits.
import { buildApp } from '../server/app.js'
import type { Config } from '../server/config.js'
import { createContext } from '../server/context.js'
import { createLogger } from '../server/logger.js'
import { loadTls } from '../server/http/tls.js'
import { migrate } from '../server/store/migrate.js'
import { createServices } from '../server/services/runtime.js'
import { createMetrics } from '../server/metrics/metrics.js'
import { buildAdminApp } from '../server/metrics/admin.js'

export async function serve (config: Config, print: (line: string) => void = console.log): Promise<void> {
  const logger = createLogger(config)
  const metrics = createMetrics()
  const context = await createContext(config, { logger, onDataSourceQuery: metrics.observeDataSourceQuery })
  await migrate(context.db)
  const tls = await loadTls(config)
  const runtime = await createServices(config, context, logger, metrics)
  const app = await buildApp({ config, context, logger, https: { cert: tls.cert, key: tls.key }, api: runtime.api, metrics, saturated: runtime.saturated })
  await app.listen({ host: config.host, port: config.port })
  const admin = buildAdminApp(metrics)
  const adminUrl = await admin.listen({ host: config.admin.host, port: config.admin.port })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const base = config.publicUrl ?? `https://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
  runtime.start(base)
  print(`svc listening on ${base}/api/v1 (health: ${base}/healthz, metrics: ${adminUrl}/metrics)`)
  if (tls.selfSigned) print(`self-signed certificate: ${tls.certFile} (curl --cacert ${tls.certFile} …)`)

  let closing = false
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return
    closing = true
    logger.info({ signal }, 'shutting down')
    // Stop taking work, let in-flight requests and jobs finish, flush buffered writes, then exit.
    const timer = setTimeout(() => { logger.error('shutdown took too long; exiting'); process.exit(1) }, 30_000)
    timer.unref()
    try {
      // Claims stop first, so no job starts while requests drain; running jobs finish in close().
      runtime.quiesce()
      await app.close()
      await admin.close()
      await runtime.close()
      await context.close()
      logger.flush?.()
      process.exit(0)
    } catch (err) {
      logger.error({ err }, 'error during shutdown')
      process.exit(1)
    }
  }
  process.once('SIGINT', () => { void shutdown('SIGINT') })
  process.once('SIGTERM', () => { void shutdown('SIGTERM') })
}
