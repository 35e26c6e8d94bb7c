// `svc secrets …`: the master keys and the values sealed under them (docs/security.md has the
// rotation procedure). status and rotate work on the database; add-key and remove-key edit the
// keyring file SVC_HOME/master-keys, or say what to set when keys come from the environment.
import { randomBytes } from 'node:crypto'
import type { Command } from 'commander'
import { keyIdOf } from '../../server/secrets/keyring.js'
import { loadKeys, writeKeyringFile } from '../../server/secrets/load.js'
import { emit, table, UsageError } from '../io.js'
import type { CliRuntime } from '../runtime.js'

const fromEnvironment = (c: { masterKey?: string, masterKeys?: string[] }): boolean =>
  c.masterKey !== undefined || c.masterKeys !== undefined
const STATUS_COLUMNS = ['table', 'column', 'keyId', 'values', 'configured'] as const

export function secretsCommands (program: Command, rt: CliRuntime): void {
  const secrets = program.command('secrets')
    .description('master keys: status, rotation of sealed values, the keyring file')

  secrets.command('status').description('sealed values per master key id (legacy: sealed before key ids)')
    .action(async () => {
      const status = await rt.withContext((ctx) => ctx.services.secrets.status())
      emit(rt.io(), status, (v) => [
        `sealing key ${v.activeKeyId}; configured ${v.configuredKeyIds.join(', ')}`,
        ...table(v.counts.map((c) => ({ ...c, configured: c.configured ? 'yes' : 'NO' })), [...STATUS_COLUMNS])
      ])
    })

  secrets.command('rotate')
    .description('re-seal every value under the sealing key (batched, resumable, safe while servers run)')
    .option('--batch-size <n>', 'rows read per batch', '200')
    .action(async (opts: { batchSize: string }) => {
      const batchSize = Number(opts.batchSize)
      if (!/^\d+$/.test(opts.batchSize) || batchSize < 1) {
        throw new UsageError('--batch-size: expected a whole number ≥ 1')
      }
      const result = await rt.withContext((ctx) => ctx.services.secrets.rotate({ batchSize }))
      emit(rt.io(), result, (v) => [
        `${v.resealed} values re-sealed under ${v.activeKeyId}; ${v.skipped} changed meanwhile (left as written); ` +
          `${v.unreadable.length} unreadable`,
        ...v.unreadable.map((u) => `  ${u.reason}`)
      ])
      if (result.unreadable.length > 0) process.exitCode = 1
    })

  secrets.command('add-key').description('generate a master key and make it the sealing key (older keys still open)')
    .action(async () => {
      const config = rt.config()
      const key = randomBytes(32)
      const keys = [key, ...await loadKeys(config)]
      const id = keyIdOf(key).toString('hex')
      if (fromEnvironment(config)) {
        emit(rt.io(), { keyId: id, SVC_MASTER_KEYS: keys.map((k) => k.toString('hex')).join(',') }, (v) => [
          'keys come from the environment: set on every server, then restart it and run "svc secrets rotate"',
          `SVC_MASTER_KEYS=${v.SVC_MASTER_KEYS}`
        ])
        return
      }
      const file = await writeKeyringFile(config.home, keys)
      emit(rt.io(), { keyId: id, file }, (v) =>
        `new sealing key ${v.keyId} written to ${v.file}; running servers read it when they first meet a value ` +
        'sealed under it, on SIGHUP, or within 30 s; then run "svc secrets rotate"')
    })

  secrets.command('remove-key').description('drop a master key from the keyring file once no value is sealed under it')
    .argument('<keyId>', 'key id (8 hex characters, as in "svc secrets status")')
    .action(async (keyId: string) => {
      const config = rt.config()
      if (fromEnvironment(config)) {
        throw new UsageError('keys come from SVC_MASTER_KEYS/SVC_MASTER_KEY: remove the key there')
      }
      const id = keyId.toLowerCase()
      const keys = await loadKeys(config)
      const kept = keys.filter((k) => keyIdOf(k).toString('hex') !== id)
      if (kept.length === keys.length) throw new UsageError(`no configured key ${keyId}`)
      if (kept.length === 0 || (keys[0] !== undefined && keyIdOf(keys[0]).toString('hex') === id)) {
        throw new UsageError(`${keyId} is the sealing key: add a new key first`)
      }
      const status = await rt.withContext((ctx) => ctx.services.secrets.status())
      const left = status.counts.filter((c) => c.keyId === id || c.keyId === 'legacy').reduce((n, c) => n + c.values, 0)
      if (left > 0) {
        throw new UsageError(`${left} values may still be sealed under ${keyId}: run "svc secrets rotate" first`)
      }
      const file = await writeKeyringFile(config.home, kept)
      emit(rt.io(), { keyId, file }, (v) => `${v.keyId} removed from ${v.file}; running servers drop it on SIGHUP or ` +
        'within 30 s')
    })
}
