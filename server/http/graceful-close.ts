// Closing a connection without losing its last answer (RFC 9112 §9.6). A server that closes a
// socket while the client is still sending (a body answered 413 or 401 before it was read, a
// request timed out) leaves unread bytes in its receive buffer; the kernel then answers with a
// reset, and the client's kernel drops the answer it had not read yet: the client sees EPIPE or
// ECONNRESET instead of the problem document, and retries a body that can never be accepted.
// So the close is staged: the answer is written, the write side ends (FIN), and what the peer
// still sends is read and dropped until it closes its side, up to SVC_LINGER_BYTES or
// SVC_LINGER_TIMEOUT; only then is the socket destroyed.
import type { Server } from 'node:net'
import type { Socket } from 'node:net'
import { Server as TlsServer } from 'node:tls'

/** How much a closing connection may still cost: bytes read and dropped, and time. */
export interface LingerBound { bytes: number, ms: number }

const LINGERING = Symbol('svc.lingering')
interface LingeringSocket extends Socket { [LINGERING]?: true }

/** True once the socket's close has begun (its answer written or under way). */
export function isLingering (socket: Socket): boolean {
  return (socket as LingeringSocket)[LINGERING] === true
}

/**
 * Ends the socket's write side after what is queued, then reads and drops what the peer sends
 * until it closes its side or `bound` is spent, and destroys the socket. Once per socket.
 */
export function closeGracefully (socket: Socket, bound: LingerBound): void {
  const s = socket as LingeringSocket
  if (socket.destroyed || s[LINGERING] === true) return
  s[LINGERING] = true
  const startedAt = socket.bytesRead
  const destroy = (): void => { clearTimeout(timer); socket.destroy() }
  // A peer that neither reads nor closes (or keeps sending) must not keep the connection's slot.
  const timer = setTimeout(destroy, bound.ms)
  timer.unref()
  socket.once('close', () => { clearTimeout(timer) })
  // The peer's FIN: it has read what it wanted; the socket goes once our own bytes are out.
  socket.once('end', () => {
    if (socket.writableFinished) destroy()
    else socket.once('finish', destroy)
  })
  socket.on('data', () => { if (socket.bytesRead - startedAt > bound.bytes) destroy() })
  socket.end()
  // The HTTP parser may have paused the socket (a request body nobody reads): keep reading.
  socket.resume()
}

const noop = (): void => {}

/**
 * Makes every close of `server`'s connections after their last answer graceful. Node's HTTP
 * server ends such a connection with `socket.destroySoon()` (end, then destroy as soon as the
 * answer is flushed, whatever the peer still sends): each socket gets the staged close instead.
 */
export function lingerOnClose (server: Server, bound: LingerBound): void {
  const connected = server instanceof TlsServer ? 'secureConnection' : 'connection'
  server.on(connected, (socket: Socket & { destroySoon?: () => void }) => {
    // Node's HTTP parser otherwise reads a TLS socket in C++ ("consumed"), where a socket it
    // stopped (a body nobody reads) cannot be started again from here: with a 'data' listener
    // the bytes come through the socket's stream, which closeGracefully resumes and counts.
    socket.on('data', noop)
    socket.destroySoon = () => { closeGracefully(socket, bound) }
  })
}
