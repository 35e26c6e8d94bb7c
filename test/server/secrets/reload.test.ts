// The reloading keyring on its own (secrets/reload.ts): a value under an unknown key makes it
// read the keyring file again, at most once per interval; SIGHUP's reload() reads a changed file
// at once; a file that cannot be used keeps the keys in use; keys from the environment are fixed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyring, keyIdOf, SealedValueError } from '../../../server/secrets/keyring.js'
import { KEYRING_FILE, writeKeyringFile } from '../../../server/secrets/load.js'
import { followFile } from '../../../server/secrets/reload.js'

const row = { table: 'environments', column: 'ds_password_enc', id: 'r1' }

test('an unknown key id reads the file again, at most once per interval; reload() reads a changed file at once', async () => {
  const home = await mkdtemp(join(tmpdir(), 'svc-reload-'))
  try {
    const [k1, k2, k3] = [randomBytes(32), randomBytes(32), randomBytes(32)]
    await writeKeyringFile(home, [k1])
    const file = join(home, KEYRING_FILE)
    const reloaded: string[][] = []
    const ring = followFile([k1], file, { minIntervalMs: 60_000, onReload: (ids) => reloaded.push(ids) })
    // Added by another process, then met in a value: read on first need.
    await writeKeyringFile(home, [k2, k1])
    assert.equal(ring.open(createKeyring([k2, k1]).seal('two', row), row), 'two')
    assert.deepEqual(reloaded, [[keyIdOf(k2).toString('hex'), keyIdOf(k1).toString('hex')]])
    assert.equal(ring.activeId, keyIdOf(k2).toString('hex'), 'the new first key seals')
    // Within the interval, another unknown key does not make it read again…
    await writeKeyringFile(home, [k3, k2, k1])
    const sealed3 = createKeyring([k3]).seal('three', row)
    assert.throws(() => ring.open(sealed3, row), (err: unknown) => err instanceof SealedValueError && err.keyId === keyIdOf(k3).toString('hex'))
    assert.equal(reloaded.length, 1)
    // …SIGHUP's reload() does, once; an unchanged file is not read again.
    assert.equal(ring.reload(), true)
    assert.equal(ring.open(sealed3, row), 'three')
    assert.equal(ring.reload(), false)
    assert.equal(reloaded.length, 2)
    // Document links follow the keys: derive() gives the new sealing key's secret first.
    assert.deepEqual(ring.derive('p')[0], createKeyring([k3]).derive('p')[0])
  } finally {
    await rm(home, { recursive: true, force: true })
  }
})

test('a keyring file that cannot be used keeps the keys in use; keys from the environment never reload', async () => {
  const home = await mkdtemp(join(tmpdir(), 'svc-reload-'))
  try {
    const [k1, k2] = [randomBytes(32), randomBytes(32)]
    await writeKeyringFile(home, [k1])
    const file = join(home, KEYRING_FILE)
    const errors: unknown[] = []
    const ring = followFile([k1], file, { onError: (err) => errors.push(err) })
    await writeKeyringFile(home, [k2, k1])
    await chmod(file, 0o644)
    assert.equal(ring.reload(), false)
    assert.match(String(errors[0]), /readable by others/)
    assert.deepEqual(ring.ids, [keyIdOf(k1).toString('hex')])
    await chmod(file, 0o600)
    const fixed = followFile([k1], undefined)
    assert.equal(fixed.reload(), false)
    assert.equal(fixed.refresh(), false)
    assert.deepEqual(fixed.ids, [keyIdOf(k1).toString('hex')])
  } finally {
    await rm(home, { recursive: true, force: true })
  }
})
