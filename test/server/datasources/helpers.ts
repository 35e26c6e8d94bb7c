// Data databases for data-source tests: a database with sample tables on the suite's MariaDB and
// a read-only user for it, plus a port nobody listens on.
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { createDb, parseMysqlUrl } from '../../../server/store/db.js'
import type { Db } from '../../../server/store/db.js'
import { serverUrl } from '../../helpers/db.js'

export interface DataDatabase {
  name: string
  user: string
  /** mysql:// URL with the read-only user. */
  url: string
  drop (): Promise<void>
}

/** A MariaDB server for data databases: where data sources reach it, and an administrator pool. */
export interface DataServer { host: string, port: number, admin (): Db }

/** The suite's instance, administered through the suite's test administrator. */
export function suiteServer (): DataServer {
  const { host, port } = parseMysqlUrl(`${serverUrl()}/x`)
  return { host, port, admin: () => createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 }) }
}

/** Creates a database, runs `setup` statements in it as admin, and a SELECT-only user (plus `grants`). */
export async function createDataDatabase (setup: string[], server: DataServer = suiteServer(), grants = 'SELECT'): Promise<DataDatabase> {
  const name = `ds_${randomBytes(5).toString('hex')}`
  const user = `ro_${randomBytes(5).toString('hex')}`
  const password = randomBytes(12).toString('hex')
  const admin = server.admin()
  try {
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
    await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`)
    await admin.query(`GRANT ${grants} ON \`${name}\`.* TO '${user}'@'%'`)
    await admin.query(`USE \`${name}\``)
    for (const sql of setup) await admin.query(sql)
  } finally {
    await admin.end()
  }
  const { host, port } = server
  return {
    name,
    user,
    url: `mysql://${user}:${password}@${host}:${port}/${name}`,
    async drop () {
      const a = server.admin()
      await a.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await a.query(`DROP USER IF EXISTS '${user}'@'%'`)
      await a.end()
    }
  }
}

/** A TCP port on 127.0.0.1 that refuses connections (bound, then released). */
export async function refusedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
