import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, stat, readFile, writeFile, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { execFile } from 'node:child_process'
import { randomText, randomId, sha256, safeEqual, loadMasterKey, hmacSha256 } from '../../../server/util/crypto.js'

test('randomText uses only its alphabet, never "_", and differs between calls', () => {
  const a = randomText(400)
  assert.match(a, /^[A-Za-z0-9]{400}$/)
  assert.notEqual(randomText(40), randomText(40))
  assert.match(randomId(500), /^[a-z0-9]{500}$/)
  // all 62 characters show up in a long enough sample (no truncated alphabet)
  assert.equal(new Set(randomText(5000)).size, 62)
})

test('safeEqual: equal digests, different digests, different lengths', () => {
  assert.equal(safeEqual(sha256('a'), sha256('a')), true)
  assert.equal(safeEqual(sha256('a'), sha256('b')), false)
  assert.equal(safeEqual(sha256('a'), sha256('a').subarray(0, 31)), false)
  assert.equal(hmacSha256('k', 'x').length, 32)
  assert.notDeepEqual(hmacSha256('k1', 'x'), hmacSha256('k2', 'x'))
})

test('loadMasterKey: SVC_MASTER_KEY wins; otherwise a 0600 file is created once and reused', async () => {
  const home = await mkdtemp(join(tmpdir(), 'svc-mk-'))
  try {
    const configured = randomBytes(32).toString('hex')
    assert.equal((await loadMasterKey(join(home, 'unused'), configured)).toString('hex'), configured)
    const dir = join(home, 'state')
    const first = await loadMasterKey(dir, undefined)
    assert.equal(first.length, 32)
    const file = join(dir, 'master.key')
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.equal((await readFile(file, 'utf8')).trim(), first.toString('hex'))
    assert.deepEqual(await loadMasterKey(dir, undefined), first, 'reused, not regenerated')
    assert.deepEqual((await readdir(dir)).sort(), ['master.key'], 'no temporary file left behind')
    const bad = join(home, 'bad')
    await loadMasterKey(bad, undefined)
    await writeFile(join(bad, 'master.key'), 'not hex\n')
    await assert.rejects(loadMasterKey(bad, undefined), /64-hex-character/)
  } finally {
    await rm(home, { recursive: true, force: true })
  }
})

test('loadMasterKey: processes starting at once all read the same, complete key', async () => {
  // Separate processes: a reader must never see the file between its creation and its write.
  const home = await mkdtemp(join(tmpdir(), 'svc-mk-race-'))
  const script = `import { loadMasterKey } from ${JSON.stringify(new URL('../../../server/util/crypto.js', import.meta.url).href)}
    loadMasterKey(process.argv[1], undefined).then((k) => process.stdout.write(k.toString('hex')), (e) => process.stdout.write('ERR ' + e.message))`
  try {
    for (let round = 0; round < 8; round++) {
      const dir = join(home, `r${round}`)
      const outs = await Promise.all([1, 2, 3, 4, 5, 6].map(() => run(process.execPath, ['--input-type=module', '-e', script, dir])))
      assert.equal(new Set(outs).size, 1, outs.join('\n'))
      assert.match(outs[0]!, /^[0-9a-f]{64}$/)
    }
  } finally {
    await rm(home, { recursive: true, force: true })
  }
})

function run (cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, (err, stdout) => {
      if (err !== null) reject(new Error(err.message, { cause: err }))
      else resolve(stdout)
    })
  })
}
