// Bytes are a resource like rows (issue 30): every statement of one render, or of one dataset
// execution, draws from one ByteBudget, counted on the connection's socket while the bytes
// arrive. Counting rows is not enough: mysql2 buffers a whole row packet (and joins 16 MiB
// packets into one) before it emits the row, and a data source may be a hostile server, so one
// 200 MB value would be held whole before any row-level check saw it. The meter therefore reads
// each packet's 3-byte length header as it arrives and cuts at once when the packet announces
// more than the budget has left, or more than a row of values within the cell limit can take.
// Assumes the uncompressed protocol (4-byte headers), which is the only one the pools speak.
// A connection is metered from its first byte too (meteredConnection): the server's greeting
// and authentication come before any statement, and could be as large.
import { connect } from 'node:net'
import type { Socket } from 'node:net'

/** Bytes that the statements of one render or one dataset execution may receive together. */
export interface ByteBudget {
  /** Most bytes in all: what the data source sends, plus `cellCost` per cell (row objects, JSON keys). */
  limit: number
  used: number
  /** Most bytes in one value (one cell). */
  cellLimit: number
}

/** A read passed its byte budget or a value passed the cell limit: cut before it was held. */
export class ByteLimitExceeded extends Error {
  constructor (readonly kind: 'total' | 'cell', readonly limit: number) {
    super(kind === 'total' ? `more than ${limit} bytes in all` : `a value of more than ${limit} bytes`)
    this.name = 'ByteLimitExceeded'
  }
}

/**
 * Charged per cell on top of its bytes and its column name: a NULL costs one bit on the wire
 * but a slot in a row object, and every cell repeats its column name in a JSON answer. Without
 * it a result of thousands of NULL columns would hold gigabytes while sending megabytes.
 */
export const CELL_COST = 4

/** What a row of these columns costs beyond its values' bytes. */
export function rowCost (fields: Array<{ name: string }>): number {
  let cost = 0
  for (const f of fields) cost += CELL_COST + f.name.length
  return cost
}

/** Bytes of the largest value of a row (strings by their UTF-8 length, buffers by theirs). */
export function largestCell (row: Record<string, unknown>, cellLimit: number): number {
  let largest = 0
  for (const key in row) {
    const v = row[key]
    let n = 0
    if (typeof v === 'string') {
      // A UTF-16 unit is 1 to 3 UTF-8 bytes: only a string that could pass the limit is measured.
      n = v.length * 3 > cellLimit ? Buffer.byteLength(v, 'utf8') : v.length
    } else if (Buffer.isBuffer(v)) n = v.length
    if (n > largest) largest = n
  }
  return largest
}

/** The largest packet payload; a longer logical packet continues in the next one. */
const MAX_PACKET = 0xffffff

/**
 * The longest row packet `columns` values of at most `cellLimit` bytes make in the binary
 * protocol (a 0x00 byte, the NULL bitmap, each value with a length prefix of up to 9 bytes).
 * Before the columns are known the packets are statement and column headers, OK and error
 * packets: none carries a value, so a cell's worth is already generous.
 */
export function packetBound (columns: number, cellLimit: number): number {
  if (columns === 0) return cellLimit + 1024
  return columns * (cellLimit + 9) + 1 + Math.ceil((columns + 9) / 8)
}

/** The part of a socket the meter needs (net.Socket, tls.TLSSocket). */
export interface DataStream {
  on (event: 'data', listener: (chunk: Buffer) => void): unknown
  removeListener (event: 'data', listener: (chunk: Buffer) => void): unknown
}

export interface WireMeter {
  /** Stops counting (the statement ended; the connection may serve another read). */
  stop (): void
}

/**
 * Counts every byte `stream` receives into `budget` and follows the packet headers from a
 * packet boundary (an idle connection's next byte). `columns()` is the current result's column
 * count (0 before its column definitions). The listener runs after mysql2's own, so at most one
 * socket read past a packet's header is parsed before the cut; `exceeded` is called once.
 */
export function meterWire (
  stream: DataStream,
  budget: ByteBudget,
  columns: () => number,
  exceeded: (err: ByteLimitExceeded) => void
): WireMeter {
  let payloadLeft = 0 // bytes of the current packet's payload still to come
  let headerGot = 0 // bytes of the current 4-byte header seen
  let length = 0 // the payload length read so far from the header
  let joined = 0 // the logical packet's length (packets of MAX_PACKET continue in the next)
  let continued = false
  let stopped = false
  const cut = (kind: 'total' | 'cell'): void => {
    stop()
    exceeded(new ByteLimitExceeded(kind, kind === 'total' ? budget.limit : budget.cellLimit))
  }
  const onData = (chunk: Buffer): void => {
    if (stopped) return
    const before = budget.used
    budget.used += chunk.length
    let i = 0
    while (i < chunk.length) {
      if (payloadLeft > 0) {
        const take = Math.min(payloadLeft, chunk.length - i)
        payloadLeft -= take
        i += take
        continue
      }
      // Header: 3 bytes of length (little-endian), 1 of sequence id.
      if (headerGot < 3) length += chunk[i]! * 2 ** (8 * headerGot)
      headerGot++
      i++
      if (headerGot < 4) continue
      joined = continued ? joined + length : length
      continued = length === MAX_PACKET
      payloadLeft = length
      const end = before + i + length
      headerGot = 0
      length = 0
      // Announced, not yet received: cut now rather than buffer what cannot be kept.
      if (joined > packetBound(columns(), budget.cellLimit)) { cut('cell'); return }
      if (end > budget.limit) { cut('total'); return }
    }
    if (budget.used > budget.limit) cut('total')
  }
  function stop (): void {
    if (stopped) return
    stopped = true
    stream.removeListener('data', onData)
  }
  stream.on('data', onData)
  return { stop }
}

/**
 * Bytes a data-source connection may receive before its session is ready (the server's
 * greeting, authentication, the session's SET statements): a few hundred in practice.
 */
export const SETUP_LIMIT = 1024 * 1024

/**
 * A TCP connection to a data source for mysql2's `stream` option, metered from its first byte
 * against SETUP_LIMIT (a packet over 64 KiB is cut at its header): past it the socket is
 * destroyed and the connection fails like an unreachable one. `meter.stop()` once the session
 * is ready; from then on each statement meters its own bytes. The socket is set up as mysql2
 * sets up its own (no Nagle delay, keep-alive).
 */
export function meteredConnection (host: string, port: number): { socket: Socket, meter: WireMeter } {
  const socket = connect(port, host)
  socket.setNoDelay(true)
  socket.once('connect', () => socket.setKeepAlive(true))
  const budget: ByteBudget = { limit: SETUP_LIMIT, used: 0, cellLimit: 64 * 1024 }
  const meter = meterWire(socket, budget, () => 0, () => {
    socket.destroy(Object.assign(new Error('The data source sent too much before its session was ' +
      'ready'), { code: 'ER_NET_PACKET_TOO_LARGE' }))
  })
  return { socket, meter }
}
