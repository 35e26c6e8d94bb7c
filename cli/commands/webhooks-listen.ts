// `svc webhooks listen`: a local HTTPS receiver that verifies every delivery like a client
// should (raw body, constant time, 5-minute tolerance, several secrets during a rotation),
// answers 400 to a bad signature and prints the events — like `stripe listen`.
import { createServer } from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { verifyWebhook } from '../../server/webhooks/verify.js'
import { UsageError } from '../io.js'
import type { CliRuntime } from '../runtime.js'

const MAX_BODY = 1024 * 1024

export function listenCommand (wh: Command, rt: CliRuntime): void {
  wh.command('listen')
    .description('run a local HTTPS receiver that verifies and prints deliveries (until Ctrl-C)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port, 0 for any', '0')
    .option(
      '--secret <whsec>',
      'accepted signing secret (repeat during a rotation)',
      (v: string, all: string[]) => [...all, v],
      [] as string[]
    )
    .option('--cert <file>', 'certificate (PEM); default: the self-signed one in SVC_HOME/tls')
    .option('--key <file>', 'private key (PEM) of --cert')
    .option('--tolerance <seconds>', 'clock tolerance', '300')
    .action(
      async (opts: {
        host: string
        port: string
        secret: string[]
        cert?: string
        key?: string
        tolerance: string
      }) => {
        const io = rt.io()
        if (opts.secret.length === 0) throw new UsageError('--secret: at least one whsec_… secret is required')
        if (!/^\d+$/.test(opts.port) || !/^\d+$/.test(opts.tolerance)) { throw new UsageError('--port and --tolerance take whole numbers') }
        if ((opts.cert === undefined) !== (opts.key === undefined)) throw new UsageError('--cert and --key go together')
        const tls =
          opts.cert !== undefined && opts.key !== undefined
            ? { cert: await readFile(opts.cert), key: await readFile(opts.key), certFile: opts.cert }
            : await (await import('../../server/process/tls.js')).loadTls(rt.config())
        const toleranceSeconds = Number(opts.tolerance)

        const handle = (req: IncomingMessage, res: ServerResponse, raw: Buffer): void => {
          const answer = (status: number, body: unknown): void => {
            res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
          }
          if (req.method !== 'POST') {
            answer(405, { error: 'POST only' })
            return
          }
          const header = req.headers['svc-signature']
          const result = verifyWebhook({
            rawBody: raw,
            signatureHeader: Array.isArray(header) ? header[0] : header,
            secrets: opts.secret,
            toleranceSeconds
          })
          const meta = {
            event: req.headers['svc-event'],
            eventId: req.headers['svc-event-id'],
            delivery: req.headers['svc-delivery']
          }
          if (!result.ok) {
            answer(400, { error: 'signature', reason: result.reason })
            if (io.json) io.out(JSON.stringify({ verified: false, reason: result.reason, ...meta }))
            else {
              io.err(
                `${new Date().toISOString()}  REJECTED ${result.reason}  ${String(meta.event)} ${String(meta.eventId)}`
              )
            }
            return
          }
          answer(200, { received: true })
          let event: unknown
          try {
            event = JSON.parse(raw.toString('utf8'))
          } catch {
            event = raw.toString('utf8')
          }
          if (io.json) io.out(JSON.stringify({ verified: true, ...meta, body: event }))
          else {
            io.out(
              `${new Date().toISOString()}  ${String(meta.event)}  ${String(meta.eventId)}  delivery ${String(meta.delivery)}\n${JSON.stringify(event, null, 2)}`
            )
          }
        }

        const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
          const chunks: Buffer[] = []
          let size = 0
          req.on('data', (c: Buffer) => {
            size += c.length
            if (size > MAX_BODY) {
              res.writeHead(413).end()
              req.destroy()
              return
            }
            chunks.push(c)
          })
          req.on('end', () => {
            if (size <= MAX_BODY) handle(req, res, Buffer.concat(chunks))
          })
        })
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject)
          server.listen(Number(opts.port), opts.host, resolve)
        })
        const address = server.address()
        const port = typeof address === 'object' && address !== null ? address.port : Number(opts.port)
        const url = `https://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}/`
        if (io.json) io.out(JSON.stringify({ listening: url, certFile: tls.certFile }))
        else {
          io.out(`listening on ${url} — register it with: svc webhooks create --url ${url} …`)
          io.out(
            `certificate: ${tls.certFile} (for a local server: ` +
              `SVC_WEBHOOK_CA_FILE=${tls.certFile} SVC_WEBHOOKS_ALLOW_PRIVATE=true)`
          )
        }
        await new Promise<void>((resolve) => {
          const stop = (): void => {
            server.close(() => {
              resolve()
            })
            server.closeAllConnections()
          }
          process.once('SIGINT', stop)
          process.once('SIGTERM', stop)
        })
      }
    )
}
