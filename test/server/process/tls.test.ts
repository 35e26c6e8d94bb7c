// The self-signed pair in SVC_HOME/tls: several nodes starting at once on one SVC_HOME
// (make bench, make cluster) must all serve the pair that ends up on disk.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../../server/config.js'
import { loadTls } from '../../../server/process/tls.js'

test('nodes generating the certificate at once all get the one pair left on disk', async () => {
  const home = await mkdtemp(join(tmpdir(), 'svc-tls-'))
  try {
    const config = loadConfig({ SVC_HOME: home })
    const pairs = await Promise.all([1, 2, 3, 4].map(async () => await loadTls(config)))
    const onDisk = await readFile(join(home, 'tls', 'cert.pem'))
    const keyOnDisk = await readFile(join(home, 'tls', 'key.pem'))
    for (const p of pairs) {
      assert.ok(p.cert.equals(onDisk), 'every node serves the certificate clients will trust')
      assert.ok(p.key.equals(keyOnDisk), 'with its key')
    }
    assert.deepEqual((await readdir(home)).sort(), ['tls'], 'no temporary folder left behind')
    const again = await loadTls(config)
    assert.ok(again.cert.equals(onDisk), 'a later start reuses the pair')
  } finally {
    await rm(home, { recursive: true, force: true })
  }
})
