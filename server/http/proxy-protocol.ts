// The PROXY protocol (HAProxy's, v1 text and v2 binary) on connections from the balancer's own
// addresses (SVC_PROXY_PROTOCOL_FROM). A balancer in TCP mode passes TLS through, so without it
// every request seemed to come from the balancer: one address for the failed-authentication
// throttle and the logs. The header is read before TLS; the TLS socket then reports the
// client's address as its remoteAddress (what request.ip, the throttle and the logs read).
// A connection from a listed address without a valid header in time is closed; one from any
// other address is served as before, its header (if it sent one) a TLS error.
import { isIP } from 'node:net'
import type { Server, Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'

const V1_PREFIX = Buffer.from('PROXY ')
const V2_SIGNATURE = Buffer.from('0d0a0d0a000d0a515549540a', 'hex')
/** v1 headers are at most 107 bytes; v2 ones 16 + addresses (≤ 216) + TLVs, kept under this. */
const MAX_HEADER = 512

/** A complete header: its length and the client's address (none: LOCAL or UNKNOWN, a health check). */
export interface ProxyHeader { length: number, address: string | undefined }

export class ProxyHeaderError extends Error {}

const startsLike = (buf: Buffer, prefix: Buffer): boolean =>
  buf.subarray(0, prefix.length).equals(prefix.subarray(0, Math.min(prefix.length, buf.length)))

/** The header at the start of `buf`; undefined while more bytes are needed. */
export function parseProxyHeader (buf: Buffer): ProxyHeader | undefined {
  if (startsLike(buf, V2_SIGNATURE)) return buf.length < 16 ? undefined : parseV2(buf)
  if (startsLike(buf, V1_PREFIX)) return parseV1(buf)
  throw new ProxyHeaderError('no PROXY protocol header')
}

function parseV1 (buf: Buffer): ProxyHeader | undefined {
  const end = buf.indexOf('\r\n')
  if (end < 0) {
    if (buf.length >= 107) throw new ProxyHeaderError('PROXY v1 line too long')
    return undefined
  }
  const parts = buf.toString('latin1', 0, end).split(' ')
  const [, protocol, address] = parts
  if (protocol === 'UNKNOWN') return { length: end + 2, address: undefined }
  const family = protocol === 'TCP4' ? 4 : protocol === 'TCP6' ? 6 : 0
  if (parts.length !== 6 || family === 0 || address === undefined || isIP(address) !== family) {
    throw new ProxyHeaderError('malformed PROXY v1 line')
  }
  return { length: end + 2, address }
}

function parseV2 (buf: Buffer): ProxyHeader | undefined {
  const versionCommand = buf.readUInt8(12)
  if (versionCommand >> 4 !== 2) throw new ProxyHeaderError('PROXY v2: unknown version')
  const length = 16 + buf.readUInt16BE(14)
  if (length > MAX_HEADER) throw new ProxyHeaderError('PROXY v2 header too long')
  if (buf.length < length) return undefined
  const command = versionCommand & 0x0f
  if (command === 0) return { length, address: undefined } // LOCAL: the balancer's own check
  if (command !== 1) throw new ProxyHeaderError('PROXY v2: unknown command')
  const family = buf.readUInt8(13) >> 4
  if (family === 1 && length >= 16 + 12) return { length, address: [...buf.subarray(16, 20)].join('.') }
  if (family === 2 && length >= 16 + 36) {
    const groups: string[] = []
    for (let i = 16; i < 32; i += 2) groups.push(buf.readUInt16BE(i).toString(16))
    return { length, address: groups.join(':') }
  }
  return { length, address: undefined } // UNSPEC or a UNIX socket: no address to report
}

/** `::ffff:10.0.0.1` (a v4 peer on a dual-stack socket) as `10.0.0.1`. */
const plain = (address: string | undefined): string => (address ?? '').replace(/^::ffff:(?=\d+\.)/, '')

/**
 * Reads the header of every connection from `from` before the server's own connection handling
 * (TLS) sees it. No-op when `from` is empty.
 */
export function acceptProxyProtocol (server: Server, from: ReadonlySet<string>, timeoutMs: number): void {
  if (from.size === 0) return
  // Balancer-side "address port" of a connection → the client's address, until it closes.
  const clients = new Map<string, string>()
  const handlers = server.listeners('connection') as Array<(socket: Socket) => void>
  server.removeAllListeners('connection')
  const serve = (socket: Socket): void => { for (const handler of handlers) handler.call(server, socket) }

  server.on('connection', (socket: Socket) => {
    if (!from.has(plain(socket.remoteAddress))) {
      serve(socket)
      return
    }
    let buf = Buffer.alloc(0)
    const drop = (): void => { clearTimeout(timer); socket.destroy() }
    const timer = setTimeout(drop, timeoutMs)
    timer.unref()
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk])
      let header: ProxyHeader | undefined
      try {
        header = parseProxyHeader(buf)
      } catch {
        drop()
        return
      }
      if (header === undefined) return
      clearTimeout(timer)
      socket.off('data', onData)
      socket.off('error', drop)
      socket.pause()
      if (buf.length > header.length) socket.unshift(buf.subarray(header.length))
      if (header.address !== undefined) {
        const key = `${socket.remoteAddress ?? ''} ${socket.remotePort ?? ''}`
        clients.set(key, header.address)
        socket.once('close', () => clients.delete(key))
      }
      serve(socket)
    }
    socket.on('data', onData)
    socket.on('error', drop)
  })
  server.on('secureConnection', (tls: TLSSocket) => {
    const key = `${tls.remoteAddress ?? ''} ${tls.remotePort ?? ''}`
    const address = clients.get(key)
    if (address === undefined) return
    clients.delete(key)
    Object.defineProperty(tls, 'remoteAddress', { value: address })
  })
}
