// Each test file gets its own database on the suite's private MariaDB (started by
// scripts/test.sh), migrated from scratch and dropped at the end.
import { randomBytes } from 'node:crypto'
import { createDb } from '../../server/store/db.js'
import type { Db } from '../../server/store/db.js'
import { migrate } from '../../server/store/migrate.js'

export function serverUrl (): string {
  const url = process.env.SVC_TEST_DATABASE_URL
  if (url === undefined || url === '') throw new Error('SVC_TEST_DATABASE_URL is not set: run the suite with `make test` (scripts/test.sh starts MariaDB)')
  return url.replace(/\/$/, '')
}

/**
 * The suite's data sources live on its own loopback instance, which the default data-source
 * policy refuses: tests opt in explicitly (scripts/test.sh exports it and says so).
 */
export function testDataSourceAllow (): string {
  return process.env.SVC_DATASOURCE_ALLOW ?? '127.0.0.1'
}

export interface TestDatabase { name: string, url: string, db: Db, drop (): Promise<void> }

export async function createTestDatabase (prefix = 't'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  await admin.end()
  const url = `${serverUrl()}/${name}`
  const db = createDb(url, { connectionLimit: 20 })
  await migrate(db)
  return {
    name,
    url,
    db,
    async drop () {
      await db.end().catch(() => {})
      const a = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
      await a.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await a.end()
    }
  }
}
