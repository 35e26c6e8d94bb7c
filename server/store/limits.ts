// At start: the limits of the configuration must fit what the service database accepts. One
// statement carries at most one document chunk, one request body (a job row's parameters and
// context) or one 4 MiB batch of job rows; max_allowed_packet must hold the largest of them
// with room for the other columns. A configuration that cannot work is refused, naming both
// values, rather than failing on the first large document.
import type { RowDataPacket } from 'mysql2/promise'
import type { Config } from '../config.js'
import { onlyRow, type Db } from './db.js'
import { DOCUMENT_CHUNK_BYTES } from './repos/documents.js'

const HEADROOM = 1024 * 1024
const JOB_BATCH_BYTES = 4 * 1024 * 1024

export class StorageLimitError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'StorageLimitError'
  }
}

/** The statement size the configuration needs, and what sets it (for the message). */
export function packetNeeded (config: Config): { bytes: number, because: string } {
  const candidates: Array<[number, string]> = [
    [DOCUMENT_CHUNK_BYTES, `a document chunk (${DOCUMENT_CHUNK_BYTES} bytes)`],
    [JOB_BATCH_BYTES, `a batch of job rows (${JOB_BATCH_BYTES} bytes)`],
    [config.bodyLimitBytes, `SVC_BODY_LIMIT (${config.bodyLimitBytes} bytes)`]
  ]
  const [bytes, because] = candidates.reduce((a, b) => (b[0] > a[0] ? b : a))
  return { bytes: bytes + HEADROOM, because }
}

export async function checkStorageLimits (db: Db, config: Config): Promise<void> {
  const [rows] = await db.query<RowDataPacket[]>('SELECT @@max_allowed_packet AS packet')
  const packet = Number(onlyRow(rows).packet)
  const needed = packetNeeded(config)
  if (packet < needed.bytes) {
    throw new StorageLimitError('the service database\'s max_allowed_packet ' +
      `is ${packet} bytes; ${needed.because} needs at least ` +
      `${needed.bytes} bytes with headroom: raise max_allowed_packet or lower the limit`)
  }
}
