// A hostile "MySQL server" for tests: speaks just enough of the protocol for mysql2 (handshake,
// OK to any login and any COM_QUERY, a prepared statement of no parameters) and answers every
// COM_STMT_EXECUTE with a one-column result whose only row holds a value of `valueBytes` bytes,
// sent as 16 MiB packets with backpressure, generated as it goes (the test never holds it);
// or (`greeting`) sends such a value as its greeting, before any login.
// `written()` is what the socket took before the client went away. Like a hostile server, it
// goes on sending after the client's FIN: only a closed (reset) connection stops it.
import { createServer } from 'node:net'
import type { Socket } from 'node:net'

const MAX = 0xffffff
const CAPS = 0x1 | 0x4 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x80000 // LONG_PASSWORD … PLUGIN_AUTH, no DEPRECATE_EOF

export interface FakeMysql {
  port: number
  /** Bytes of value handed to the socket by the last execute, and whether the client hung up. */
  written (): { bytes: number, hungUp: boolean }
  close (): Promise<void>
}

function packet (seq: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(4)
  h.writeUIntLE(payload.length, 0, 3)
  h[3] = seq & 0xff
  return Buffer.concat([h, payload])
}

const lenenc = (s: string): Buffer => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)])
const ok = (seq: number): Buffer => packet(seq, Buffer.from([0, 0, 0, 2, 0, 0, 0]))
const eof = (seq: number): Buffer => packet(seq, Buffer.from([0xfe, 0, 0, 2, 0]))

function handshake (): Buffer {
  const caps = Buffer.alloc(4)
  caps.writeUInt32LE(CAPS)
  return packet(0, Buffer.concat([
    Buffer.from([10]), Buffer.from('5.7.0-fake\0'), Buffer.from([1, 0, 0, 0]),
    Buffer.from('abcdefgh'), Buffer.from([0]), caps.subarray(0, 2), Buffer.from([45, 2, 0]), caps.subarray(2, 4),
    Buffer.from([21]), Buffer.alloc(10), Buffer.from('ijklmnopqrst\0'), Buffer.from('mysql_native_password\0')
  ]))
}

function columnDefinition (seq: number, name: string): Buffer {
  const fixed = Buffer.alloc(13)
  fixed[0] = 0x0c
  fixed.writeUInt16LE(45, 1) // utf8mb4
  fixed.writeUInt32LE(0xffffffff, 3) // column length
  fixed[7] = 0xfc // BLOB/TEXT
  return packet(seq, Buffer.concat([lenenc('def'), lenenc(''), lenenc(''), lenenc(''), lenenc(name), lenenc(''), fixed]))
}

/** Writes the result: column count, definition, EOF, then one row of `valueBytes` as packets, then EOF. */
function sendHuge (socket: Socket, valueBytes: number, state: { bytes: number, hungUp: boolean }): void {
  socket.write(Buffer.concat([packet(1, Buffer.from([1])), columnDefinition(2, 'big'), eof(3)]))
  const head = Buffer.alloc(11)
  head[0] = 0 // binary row
  head[1] = 0 // NULL bitmap: nothing NULL
  head[2] = 0xfe
  head.writeBigUInt64LE(BigInt(valueBytes), 3)
  pump(socket, 4, head, valueBytes, state)
}

/** One logical packet from `seq`: `head`, then `valueBytes` of 'x', in packets of at most MAX; then EOF. */
function pump (socket: Socket, first: number, head: Buffer, valueBytes: number, state: { bytes: number }): void {
  const total = head.length + valueBytes
  const piece = Buffer.alloc(1 << 20, 'x')
  let seq = first
  let sent = 0 // payload bytes sent
  let inPacket = 0 // payload bytes left in the current packet
  let last = MAX // the previous packet's length: one shorter than MAX ends the row
  const next = (): void => {
    while (!socket.destroyed) {
      let chunk: Buffer
      if (inPacket === 0) {
        if (sent === total && last < MAX) { socket.write(eof(seq)); return }
        inPacket = last = Math.min(MAX, total - sent)
        const h = Buffer.alloc(4)
        h.writeUIntLE(inPacket, 0, 3)
        h[3] = seq++ & 0xff
        chunk = sent === 0 ? Buffer.concat([h, head]) : h
        const fromHead = sent === 0 ? head.length : 0
        sent += fromHead
        inPacket -= fromHead
      } else {
        const n = Math.min(piece.length, inPacket)
        chunk = piece.subarray(0, n)
        sent += n
        inPacket -= n
        state.bytes += n
      }
      if (!socket.write(chunk)) { socket.once('drain', next); return }
    }
  }
  next()
}

/** `where`: the huge value comes in a result row, or as the server's greeting (before any login). */
export async function fakeMysql (valueBytes: number, where: 'row' | 'greeting' = 'row'): Promise<FakeMysql> {
  const sockets = new Set<Socket>()
  let state = { bytes: 0, hungUp: false }
  // Hostile: a client's FIN (a half-close) does not stop the sending, only a closed socket does.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => { sockets.delete(socket); state.hungUp = true })
    let buffered = Buffer.alloc(0)
    let authed = false
    if (where === 'greeting') {
      state = { bytes: 0, hungUp: false }
      const mine = state
      socket.removeAllListeners('close')
      socket.on('close', () => { sockets.delete(socket); mine.hungUp = true })
      pump(socket, 0, Buffer.from([10]), valueBytes, mine)
      return
    }
    socket.write(handshake())
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data])
      while (buffered.length >= 4) {
        const len = buffered.readUIntLE(0, 3)
        if (buffered.length < 4 + len) return
        const payload = buffered.subarray(4, 4 + len)
        buffered = buffered.subarray(4 + len)
        if (!authed) { authed = true; socket.write(ok(2)); continue }
        const command = payload[0]
        if (command === 0x01) { socket.end(); return } // COM_QUIT
        if (command === 0x19) continue // COM_STMT_CLOSE: no answer
        if (command === 0x16) { // COM_STMT_PREPARE: id 1, no columns, no parameters
          socket.write(packet(1, Buffer.from([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])))
          continue
        }
        if (command === 0x17) { // COM_STMT_EXECUTE
          state = { bytes: 0, hungUp: false }
          socket.removeAllListeners('close')
          const mine = state
          socket.on('close', () => { sockets.delete(socket); mine.hungUp = true })
          sendHuge(socket, valueBytes, mine)
          continue
        }
        socket.write(ok(1))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    port,
    written: () => ({ ...state }),
    async close () {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
