// HTTPS only. With no SVC_TLS_CERT/SVC_TLS_KEY, a self-signed certificate for localhost and
// 127.0.0.1 is generated once into SVC_HOME/tls (by Debian's openssl) and reused.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Config } from '../config.js'

const run = promisify(execFile)

export interface TlsMaterial { cert: Buffer, key: Buffer, certFile: string, selfSigned: boolean }

export async function loadTls (config: Config): Promise<TlsMaterial> {
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
    await mkdir(dir, { recursive: true, mode: 0o700 })
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-days', '825', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      '-keyout', keyFile, '-out', certFile])
  }
  return { cert: await readFile(certFile), key: await readFile(keyFile), certFile, selfSigned: true }
}
