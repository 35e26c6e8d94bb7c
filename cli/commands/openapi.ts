// `svc openapi`: prints the OpenAPI document the server serves at /api/v1/openapi.json, built
// offline from the route schemas (no database, no network), for linters and client generators.
import { writeFile } from 'node:fs/promises'
import type { Command } from 'commander'
import type { CliRuntime } from '../runtime.js'

export function openapiCommand (program: Command, rt: CliRuntime): void {
  program.command('openapi')
    .description('print the OpenAPI 3.1 document of the API (as GET /api/v1/openapi.json serves it), offline')
    .option('--server <url>', 'the servers entry (default: SVC_PUBLIC_URL, else https://SVC_HOST:SVC_PORT)')
    .option('-o, --output <file>', 'write it to a file instead of stdout')
    .action(async (options: { server?: string, output?: string }) => {
      // Loaded on use: fastify and the route modules would slow every other command's start.
      const { openapiDocument } = await import('../../server/openapi/generate.js')
      const { serviceUrl } = await import('../../server/openapi/service-url.js')
      const url = options.server ?? serviceUrl(rt.config(), undefined)
      const text = JSON.stringify(await openapiDocument(url.replace(/\/+$/, '')), null, 2) + '\n'
      if (options.output === undefined) process.stdout.write(text)
      else await writeFile(options.output, text)
    })
}
