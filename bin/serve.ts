// The process around the app: the only place that listens, handles signals and exits.
import type { Config } from '../server/config.js'
import { createServer } from '../server/main.js'
import { buildAdminApp } from '../server/metrics/admin.js'

export async function serve (config: Config, print: (line: string) => void = console.log): Promise<void> {
  const server = await createServer(config, { migrate: true })
  const { logger, tls } = server
  const base = await server.listen()
  // The operator's listener (plain HTTP, loopback by default): the metrics the server collects.
  const admin = buildAdminApp(server.metrics)
  const adminUrl = await admin.listen({ host: config.admin.host, port: config.admin.port })
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
      await server.close()
      await admin.close()
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a replaced destination has no flush
      logger.flush?.()
      process.exit(0)
    } catch (err) {
      logger.error({ err }, 'error during shutdown')
      process.exit(1)
    }
  }
  // The operator's "read the keyring file again" (svc secrets add-key/remove-key): at once.
  process.on('SIGHUP', () => {
    const changed = server.context.box.reload()
    logger.info({ keyIds: server.context.box.ids, changed }, 'SIGHUP: master keys checked')
  })
  process.once('SIGINT', () => { void shutdown('SIGINT') })
  process.once('SIGTERM', () => { void shutdown('SIGTERM') })
}
