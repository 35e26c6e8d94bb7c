// `svc studio` as the user runs it: bin/svc in a child process, its printed URL, and plain
// node:http requests to it (so a test can send any Host and Origin, or none).
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { join } from 'node:path'
import { once } from 'node:events'
import { childEnv } from '../../cli/foundation-helpers.js'
import { projectRoot } from '../../../server/util/paths.js'

export interface StudioProcess {
  /** http://127.0.0.1:PORT/TOKEN/ */
  url: string
  /** 127.0.0.1:PORT */
  host: string
  port: number
  /** The address it listens on (127.0.0.1 or ::1). */
  address: string
  token: string
  /** The page's own origin. */
  origin: string
  child: ChildProcess
  stderr: () => string
  close: () => Promise<void>
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  // Parsed JSON under test: the assertions check its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: () => any
  text: () => string
}

/** Starts `svc studio ARGS`; resolves with its URL once printed, rejects when it exits first. */
export async function startStudio (args: string[], env: Record<string, string> = {}): Promise<StudioProcess> {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'svc'), 'studio', ...args], {
    env: childEnv({ SVC_LOG_LEVEL: 'silent', SVC_RENDER_THREADS: '2', ...env }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  child.stderr.on('data', (c: Buffer) => { err += c.toString() })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`svc studio printed no URL in 60 s: ${err}`)) }, 60_000)
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /^studio: (\S+)\n/m.exec(out)
      if (m !== null) { clearTimeout(timer); resolve(m[1] as string) }
    })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`svc studio exited ${String(code)}: ${err}`)) })
  })
  const u = new URL(url)
  return {
    url,
    host: u.host,
    port: Number(u.port),
    address: u.hostname.replace(/^\[|\]$/g, ''),
    token: u.pathname.split('/')[1] as string,
    origin: u.origin,
    child,
    stderr: () => err,
    close: async () => {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    }
  }
}

/** One request to the studio: `path` after http://host:port; `host` defaults to the studio's own. */
export async function call (s: StudioProcess, method: string, path: string, options: {
  headers?: Record<string, string>
  body?: unknown
  signal?: AbortSignal
} = {}): Promise<Answer> {
  const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body))
  const headers: Record<string, string> = {
    host: s.host,
    ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(body.length) }),
    ...options.headers
  }
  return await new Promise((resolve, reject) => {
    const req = request({ host: s.address, port: s.port, method, path, headers, signal: options.signal }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const buf = Buffer.concat(chunks)
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: buf,
          json: () => JSON.parse(buf.toString('utf8')),
          text: () => buf.toString('utf8')
        })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A write as the page sends it: POST with the page's own Origin. */
export async function post (s: StudioProcess, api: string, body: unknown, signal?: AbortSignal): Promise<Answer> {
  return await call(s, 'POST', `/${s.token}/api/${api}`, { body, headers: { origin: s.origin }, signal })
}
