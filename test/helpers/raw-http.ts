// Raw HTTP/1.1 over a real TLS socket: for requests no client library would send (oversized or
// malformed headers, bodies trickled slowly, several requests on one kept-alive socket).
import { connect } from 'node:tls'
import type { TLSSocket } from 'node:tls'

export interface RawResponse { status: number, headers: Record<string, string>, body: string }

export interface RawConnection {
  socket: TLSSocket
  write: (data: string | Buffer) => void
  /** The next complete response (by Content-Length) on this socket. */
  next: () => Promise<RawResponse>
  /** The next response's status and headers once they arrived; its body is not waited for. */
  head: () => Promise<Omit<RawResponse, 'body'>>
  /** The bytes received and not yet taken by next(): a head() and what came of its body. */
  received: () => Buffer
  /** Resolves how the socket ended: 'end' (FIN, graceful) or the error code (ECONNRESET …). */
  ended: Promise<string>
  close: () => void
}

export async function rawConnect (url: string, ca: Buffer): Promise<RawConnection> {
  const { hostname, port } = new URL(url)
  const socket = connect({ host: hostname, port: Number(port), ca, servername: 'localhost' })
  await new Promise<void>((resolve, reject) => { socket.once('secureConnect', resolve); socket.once('error', reject) })
  let buffer = Buffer.alloc(0)
  let wake: (() => void) | undefined
  let done = false
  const ended = new Promise<string>((resolve) => {
    socket.on('end', () => { done = true; wake?.(); resolve('end') })
    socket.on('error', (err: NodeJS.ErrnoException) => { done = true; wake?.(); resolve(err.code ?? 'error') })
    socket.on('close', () => { done = true; wake?.(); resolve('close') })
  })
  socket.on('data', (chunk: Buffer) => { buffer = Buffer.concat([buffer, chunk]); wake?.() })

  function parseHead (): (Omit<RawResponse, 'body'> & { headEnd: number }) | undefined {
    const headEnd = buffer.indexOf('\r\n\r\n')
    if (headEnd < 0) return undefined
    const lines = buffer.subarray(0, headEnd).toString('latin1').split('\r\n')
    const status = Number(lines[0]!.split(' ')[1])
    const headers: Record<string, string> = {}
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':')
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
    }
    return { status, headers, headEnd }
  }

  function parse (): RawResponse | undefined {
    const head = parseHead()
    if (head === undefined) return undefined
    const { status, headers, headEnd } = head
    const length = Number(headers['content-length'] ?? 0)
    if (buffer.length < headEnd + 4 + length) return undefined
    const body = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8')
    buffer = buffer.subarray(headEnd + 4 + length)
    return { status, headers, body }
  }

  async function until<T> (probe: () => T | undefined): Promise<T> {
    for (;;) {
      const r = probe()
      if (r !== undefined) return r
      if (done) throw new Error(`socket ended before a full response (${buffer.length} bytes buffered)`)
      await new Promise<void>((resolve) => { wake = resolve })
    }
  }

  return {
    socket,
    write: (data) => { socket.write(data) },
    next: async () => await until(parse),
    head: async () => {
      const { status, headers } = await until(parseHead)
      return { status, headers }
    },
    received: () => buffer,
    ended,
    close: () => { socket.destroy() }
  }
}
