// A bench server in a child process of its own (the HTTP floor, the stack's floor), so its CPU
// is read from /proc apart from the load generator's: started with `node [flags] script ...args`,
// it prints its URL as its first line of output.
import { spawn } from 'node:child_process'
import { once } from 'node:events'

export interface ChildServer {
  url: string
  pid: number
  /** Stopped (SIGSTOP) while it is not measured, so it takes nothing from what is. */
  pause: () => void
  resume: () => void
  close: () => void
}

export async function startChildServer (script: string, args: string[],
  options: { flags: string[], env?: Record<string, string> }): Promise<ChildServer> {
  const child = spawn(process.execPath, [...options.flags, script, ...args],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...options.env } })
  // SIGCONT first: a stopped process keeps a SIGTERM pending until it runs again.
  const close = (): void => { child.kill('SIGCONT'); child.kill() }
  process.once('exit', close) // a bench that dies leaves no server behind
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${script} exited (${String(code)}) before it served`)
  })
  const [line] = await Promise.race([once(child.stdout, 'data'), exited]) as [Buffer]
  exited.catch(() => {}) // after it started, its exit is close()'s doing
  return {
    url: line.toString().trim(),
    pid: child.pid ?? 0,
    pause: () => { child.kill('SIGSTOP') },
    resume: () => { child.kill('SIGCONT') },
    close
  }
}
