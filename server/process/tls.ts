// HTTPS only. With no SVC_TLS_CERT/SVC_TLS_KEY, a self-signed certificate for localhost and
// 127.0.0.1 is generated once into SVC_HOME/tls (by Debian's openssl) and reused. Several nodes
// may start at once on one SVC_HOME (make bench, make cluster): the pair is made in a folder of
// its own and renamed into place in one step, so every node serves the one pair on disk (the
// losers of the race drop theirs).
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Config } from '../config.js'

const run = promisify(execFile)

export interface TlsMaterial { cert: Buffer, key: Buffer, certFile: string, selfSigned: boolean }

export async function loadTls (config: Pick<Config, 'home' | 'tlsCert' | 'tlsKey'>): Promise<TlsMaterial> {
  if (config.tlsCert !== undefined && config.tlsKey !== undefined) {
    return {
      cert: await readFile(config.tlsCert),
      key: await readFile(config.tlsKey),
      certFile: config.tlsCert,
      selfSigned: false
    }
  }
  const dir = join(config.home, 'tls')
  const certFile = join(dir, 'cert.pem')
  const keyFile = join(dir, 'key.pem')
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    await mkdir(config.home, { recursive: true })
    const fresh = await mkdtemp(join(config.home, 'tls-new-')) // mode 0700
    try {
      await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-days', '825', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
        '-keyout', join(fresh, 'key.pem'), '-out', join(fresh, 'cert.pem')])
      // Replaces a missing or empty folder; fails when another process's pair is already there.
      await rename(fresh, dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err
      })
    } finally {
      await rm(fresh, { recursive: true, force: true })
    }
  }
  return { cert: await readFile(certFile), key: await readFile(keyFile), certFile, selfSigned: true }
}
