import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { createDocumentLinks } from '../../../server/documents/links.js'
import { createKeyring } from '../../../server/secrets/keyring.js'

const key = createKeyring([randomBytes(32)])

test('a link lives at least its TTL, never past its document, and is refused once expired', () => {
  const links = createDocumentLinks(key, 1000)
  const id = randomUUID()
  const now = 1_795_000_000_999 // one millisecond before a second boundary
  const { token, expiresAt } = links.mint(id, new Date(now + 3_600_000), now)
  assert.ok(expiresAt.getTime() >= now + 1000, 'not shorter than the TTL')
  assert.equal(links.verify(token, now + 999), id)
  assert.equal(links.verify(token, expiresAt.getTime()), undefined)
  const capped = links.mint(id, new Date(now + 500), now)
  assert.ok(capped.expiresAt.getTime() <= now + 500, 'never outlives the document')
})

test('tampered, foreign-key and malformed tokens are refused', () => {
  const links = createDocumentLinks(key, 60_000)
  const id = randomUUID()
  const { token } = links.mint(id, new Date(Date.now() + 3_600_000))
  assert.equal(links.verify(token), id)
  const [doc, exp, sig] = token.split('.')
  assert.equal(links.verify(`${doc}.${(parseInt(exp!, 36) + 1000).toString(36)}.${sig}`), undefined, 'a longer expiry breaks the signature')
  assert.equal(links.verify(`${'0'.repeat(32)}.${exp}.${sig}`), undefined, 'another document id breaks the signature')
  assert.equal(createDocumentLinks(createKeyring([randomBytes(32)]), 60_000).verify(token), undefined, 'another master key')
  for (const bad of ['', 'x', `${doc}.${exp}`, `${doc}.${exp}.${sig}x`]) assert.equal(links.verify(bad), undefined, bad)
})

test('across a key rotation: links are signed with the sealing key and accepted under every configured key', () => {
  const [oldKey, newKey] = [randomBytes(32), randomBytes(32)]
  const id = randomUUID()
  const before = createDocumentLinks(createKeyring([oldKey]), 60_000).mint(id, new Date(Date.now() + 3_600_000)).token
  const rotated = createDocumentLinks(createKeyring([newKey, oldKey]), 60_000)
  assert.equal(rotated.verify(before), id, 'a link minted before the rotation still opens')
  const after = rotated.mint(id, new Date(Date.now() + 3_600_000)).token
  assert.equal(createDocumentLinks(createKeyring([newKey]), 60_000).verify(after), id, 'minted under the new key')
  assert.equal(createDocumentLinks(createKeyring([newKey]), 60_000).verify(before), undefined, 'the old key removed: its links end')
})
