// A real `svc serve` in a child process (for crash and multi-process tests): it can be killed
// with SIGKILL mid-work, exactly like a crashed server.
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { projectRoot } from '../../server/util/paths.js'
import { testDataSourceAllow } from './db.js'

export interface ChildServer {
  url: string
  /** The admin listener's base URL (GET /metrics). */
  adminUrl: string
  process: ChildProcess
  kill (signal?: NodeJS.Signals): Promise<number | null>
}

/** `startMs`: how long the process may take to listen (several starting at once on busy cores take longer). */
export async function startChildServer (env: Record<string, string>, startMs = 20_000): Promise<ChildServer> {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'svc'), 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      SVC_PORT: '0',
      SVC_HOST: '127.0.0.1',
      SVC_LOG_LEVEL: 'warn',
      SVC_ADMIN_PORT: '0',
      SVC_DATASOURCE_ALLOW: testDataSourceAllow(),
      ...env
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  const [url, adminUrl] = await new Promise<[string, string]>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`svc serve did not start within ${startMs} ms: ${output}`)) }, startMs)
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = /listening on (https:\/\/\S+)\/api\/v1.*metrics: (http:\/\/\S+)\/metrics/.exec(output)
      if (match !== null) { clearTimeout(timer); resolve([match[1]!, match[2]!]) }
    }
    // Null for other stdio settings; kept as a guard.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    child.stdout?.on('data', onData)
    // Null for other stdio settings; kept as a guard.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`svc serve exited with ${code}: ${output}`)) })
  })
  return {
    url,
    adminUrl,
    process: child,
    async kill (signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      child.kill(signal)
      return await exited
    }
  }
}
