// Runs the real `node bin/svc` in a child process with a clean SVC_* environment.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { projectRoot } from '../../server/util/paths.js'

export const svcBin = join(projectRoot, 'bin', 'svc')

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
export interface CliResult { code: number, stdout: string, stderr: string, json (): any }

/** Environment for a child: the parent's, minus every SVC_* variable, plus `env`. */
export function childEnv (env: Record<string, string>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SVC_')) clean[k] = v
  return { ...clean, ...env }
}

export function svc (args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [svcBin, ...args], { env: childEnv(env), timeout: timeoutMs, cwd: fileURLToPath(new URL('.', import.meta.url)) }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? (err as unknown as { code: number }).code : -1
      resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) })
    })
  })
}
