// Placeholder compilation: the same placeholders as the publish-time check, positional markers,
// list expansion, and no caller value ever inside the SQL text.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { compileQuery, bindQuery } from '../../../server/datasources/sql.js'
import { queryPlaceholders } from '../../../engine/template/validate.js'
import { Problem } from '../../../server/errors.js'

const TRICKY = `SELECT a.id, '10:30' AS t, "x :no" AS d, \`:col\` , a.v::int
  FROM a -- :comment
  # :hash
  /* :block
     :more */
  WHERE a.id = :id AND a.c = :context.company AND a.id IN (:ids) AND a.s = 'it''s :no' AND a.e = :id`

test('placeholders agree with queryPlaceholders() on the examples and on tricky SQL', async () => {
  const dir = join(process.cwd(), 'examples', 'templates')
  const queries = [TRICKY]
  for (const f of await readdir(dir)) {
    const def = JSON.parse(await readFile(join(dir, f), 'utf8')) as { datasets?: Array<{ query: string }> }
    for (const d of def.datasets ?? []) queries.push(d.query)
  }
  assert.ok(queries.length >= 5)
  for (const sql of queries) assert.deepEqual(compileQuery(sql, 'd').names, queryPlaceholders(sql))
  assert.deepEqual(compileQuery(TRICKY, 'd').names, ['id', 'context.company', 'ids', 'id'])
})

test('binding yields positional markers and ordered values; lists expand', () => {
  const q = compileQuery('SELECT 1 FROM t WHERE a = :a AND b IN (:list) AND c = :a', 'd')
  const scalar = bindQuery(q, (n) => ({ a: 7, list: 'x' } as Record<string, unknown>)[n])
  assert.equal(scalar.sql, 'SELECT 1 FROM t WHERE a = ? AND b IN (?) AND c = ?')
  assert.equal(scalar.sql, q.sql, 'no list: the precompiled text is reused')
  assert.deepEqual(scalar.values, [7, 'x', 7])
  const three = bindQuery(q, (n) => ({ a: "'; DROP TABLE t; --", list: [1, 2, 3] } as Record<string, unknown>)[n])
  assert.equal(three.sql, 'SELECT 1 FROM t WHERE a = ? AND b IN (?, ?, ?) AND c = ?')
  assert.deepEqual(three.values, ["'; DROP TABLE t; --", 1, 2, 3, "'; DROP TABLE t; --"])
  const empty = bindQuery(q, (n) => ({ a: 1, list: [] } as Record<string, unknown>)[n])
  assert.equal(empty.sql, 'SELECT 1 FROM t WHERE a = ? AND b IN (NULL) AND c = ?')
  const missing = bindQuery(q, () => undefined)
  assert.deepEqual(missing.values, [null, null, null])
})

test('a bare ? and non-scalar values are refused', () => {
  assert.throws(() => compileQuery('SELECT * FROM t WHERE a = ?', 'd'), (e: unknown) => e instanceof Problem && e.code === 'DATASET_FAILED' && !e.message.includes('SELECT'))
  assert.doesNotThrow(() => compileQuery("SELECT '?' AS q, `a?` FROM t -- ?", 'd'))
  const q = compileQuery('SELECT :a', 'd')
  assert.throws(() => bindQuery(q, () => ({ x: 1 })), (e: unknown) => e instanceof Problem && e.code === 'PARAMETER_INVALID')
  assert.throws(() => bindQuery(q, () => [{ x: 1 }]), (e: unknown) => e instanceof Problem && e.code === 'PARAMETER_INVALID')
})
