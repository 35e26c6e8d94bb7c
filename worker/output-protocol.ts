// What the render pool (main thread, pool/output-hub.ts) and a render worker
// (worker/chunk-sender.ts) agree on for streamed output: constants, the shared state's slots and
// the messages. Data only, so both sides import it and neither imports the other.
/** Size of each piece but the last. */
export const CHUNK_BYTES = 64 * 1024
/** Pieces the worker may produce ahead of the consumer's last resolved onChunk. */
export const CREDIT = 4
/** The member that marks a worker's output message (and carries its render's token). */
export const OUTPUT_TAG = 'svcOutput'

// Int32 slots of the shared state.
export const CREDIT_SLOT = 0 // pieces the worker may still post
export const CANCEL = 1 // 1: the consumer is gone or the render is over; the worker stops
export const PRODUCED = 2 // pieces posted so far
export const WAITING = 3 // 1 while the worker is blocked for credit
export const SLOTS = 4

/** Travels with the task (structured clone: the SharedArrayBuffer is shared, not copied). */
export interface OutputChannel {
  /** Names this render's messages for the hub. */
  token: number
  state: SharedArrayBuffer
  /** The worker gives up waiting for credit after this long since the task started. */
  timeoutMs: number
  /** Output up to this many bytes is held and returned with the result instead of streamed. */
  holdBytes: number
}

export type OutputMessage =
  | { [OUTPUT_TAG]: number, pages: number }
  | { [OUTPUT_TAG]: number, chunk: ArrayBuffer, length: number }
