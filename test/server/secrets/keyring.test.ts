import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createCipheriv, randomBytes } from 'node:crypto'
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyring, keyIdOf, SealedValueError } from '../../../server/secrets/keyring.js'
import { loadKeys, readKeyringFile, writeKeyringFile } from '../../../server/secrets/load.js'

const row = { table: 'environments', column: 'ds_password_enc', id: 'a1b2' }

/** A value as sealed before envelopes existed: iv | tag | ciphertext, no associated data. */
function legacySeal (key: Buffer, plain: string): Buffer {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body])
}

test('an envelope names its key, opens only at its row and column, and hides the plain text', () => {
  const [k1, k2] = [randomBytes(32), randomBytes(32)]
  const ring = createKeyring([k1, k2])
  assert.equal(ring.activeId, keyIdOf(k1).toString('hex'))
  const a = ring.seal('pässwörd', row)
  assert.notDeepEqual(a, ring.seal('pässwörd', row), 'a fresh IV each time')
  assert.ok(!a.includes(Buffer.from('pässwörd')))
  assert.equal(ring.keyIdOf(a), ring.activeId)
  assert.equal(ring.open(a, row), 'pässwörd')
  for (const elsewhere of [{ ...row, id: 'other' }, { ...row, column: 'secret_enc' }, { ...row, table: 'webhook_endpoints' }]) {
    assert.throws(() => ring.open(a, elsewhere), (err: unknown) => err instanceof SealedValueError &&
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
      err.code === 'SECRET_UNREADABLE' && /does not belong to this row/.test(err.message) && !err.message.includes('pässwörd'))
  }
  const tampered = Buffer.from(a)
  tampered[tampered.length - 1]! ^= 1
  assert.throws(() => ring.open(tampered, row), SealedValueError)
})

test('older keys open, only the first seals; a value of a key no longer configured names that key', () => {
  const [oldKey, newKey] = [randomBytes(32), randomBytes(32)]
  const sealedOld = createKeyring([oldKey]).seal('s3cret', row)
  const rotated = createKeyring([newKey, oldKey])
  assert.equal(rotated.open(sealedOld, row), 's3cret')
  assert.equal(rotated.keyIdOf(rotated.seal('x', row)), keyIdOf(newKey).toString('hex'))
  const oldId = keyIdOf(oldKey).toString('hex')
  assert.throws(() => createKeyring([newKey]).open(sealedOld, row), (err: unknown) => err instanceof SealedValueError &&
    err.keyId === oldId && err.message.includes(`master key ${oldId}, which is not configured`))
})

test('values sealed before envelopes open with any configured key and report as legacy', () => {
  const [oldKey, newKey] = [randomBytes(32), randomBytes(32)]
  const legacy = legacySeal(oldKey, 'from 2025')
  const ring = createKeyring([newKey, oldKey])
  assert.equal(ring.keyIdOf(legacy), 'legacy')
  assert.equal(ring.open(legacy, row), 'from 2025')
  assert.throws(() => createKeyring([newKey]).open(legacy, row), SealedValueError)
})

test('keyring: duplicate or short keys are refused', () => {
  const k = randomBytes(32)
  assert.throws(() => createKeyring([k, Buffer.from(k)]), /twice/)
  assert.throws(() => createKeyring([randomBytes(16)]), /32 bytes/)
  assert.throws(() => createKeyring([]), /at least one/)
})

test('loadKeys: SVC_MASTER_KEYS first, SVC_MASTER_KEY added to open; else the 0600 keyring file; else master.key', async () => {
  const home = await mkdtemp(join(tmpdir(), 'svc-keys-'))
  try {
    const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)]
    const hex = (k: Buffer): string => k.toString('hex')
    assert.deepEqual(await loadKeys({ home, masterKey: hex(c), masterKeys: [hex(a), hex(b)] }), [a, b, c])
    assert.deepEqual(await loadKeys({ home, masterKey: hex(a), masterKeys: [hex(a), hex(b)] }), [a, b], 'listed once')
    assert.deepEqual(await loadKeys({ home, masterKey: hex(c), masterKeys: undefined }), [c])
    const file = await writeKeyringFile(home, [b, a])
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.deepEqual(await loadKeys({ home, masterKey: undefined, masterKeys: undefined }), [b, a])
    await chmod(file, 0o644)
    await assert.rejects(readKeyringFile(home), /readable by others/)
    await writeFile(file, '# nothing\n', { mode: 0o600 })
    await chmod(file, 0o600)
    await assert.rejects(readKeyringFile(home), /holds no key/)
    await rm(file)
    const single = await loadKeys({ home, masterKey: undefined, masterKeys: undefined })
    assert.equal(single.length, 1, 'master.key, created on first use')
    assert.equal((await stat(join(home, 'master.key'))).mode & 0o777, 0o600)
  } finally { await rm(home, { recursive: true, force: true }) }
})
