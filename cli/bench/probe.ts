// One request through svc/client before the warm-up: a bench that can only fail (unknown
// template, bad key, no server, rate-limited key, untrusted certificate) stops at once with the
// problem and what to do, instead of running the whole window to report 100% errors. A 503
// (busy, data source down) is what a bench may be there to measure: it does not stop the run.
import { NetworkError, ProblemError, SvcClient } from '../../client/index.js'
import { Problem } from '../../server/errors.js'
import type { BenchOptions } from './types.js'

const HINTS: Partial<Record<string, (o: BenchOptions) => string>> = {
  TEMPLATE_NOT_FOUND: (o) => `"${o.template}": no such template in the key's workspace (template codes are ` +
    'case-sensitive; ' +
    'list them with `svc templates list --workspace ID`)',
  TEMPLATE_NOT_PUBLISHED: (o) => `"${o.template}" has no published version: \`svc templates publish FILE --workspace ` +
    'ID`',
  API_KEY_INVALID: () => 'the key is malformed or unknown: check SVC_API_KEY (or --key) against `svc keys list ' +
    '--workspace ID`',
  API_KEY_REVOKED: () => 'the key was revoked: create another with `svc keys create`',
  API_KEY_EXPIRED: () => 'the key expired: create another with `svc keys create`',
  SCOPE_MISSING: () => 'the key lacks the render scope: create one with `--scopes render`',
  RATE_LIMITED: () => 'the key is rate-limited: wait, or start the server with a higher SVC_RATE_LIMIT for load tests'
}

export async function probe (options: BenchOptions): Promise<void> {
  const client = new SvcClient({
    baseUrl: options.url,
    apiKey: options.key ?? '',
    tls: { ca: options.ca, rejectUnauthorized: !options.insecure },
    connections: 1,
    timeoutMs: options.timeoutMs,
    retry: { maxAttempts: 1 },
    userAgent: 'svc-bench'
  })
  const request = {
    template: options.template,
    environment: options.environment,
    parameters: options.parameters[0],
    format: options.format
  }
  try {
    if (options.async) await client.renderAsync(request)
    else await client.render(request)
  } catch (err) {
    if (err instanceof ProblemError && err.status === 503) return
    throw probeProblem(err, options)
  } finally {
    await client.close()
  }
}

function probeProblem (err: unknown, options: BenchOptions): unknown {
  const before = 'the first request, before the warm-up, failed'
  if (err instanceof ProblemError) {
    const hint = HINTS[err.errorCode]?.(options) ?? err.message.replace(/^[A-Z_]+: /, '')
    const code = err.errorCode === 'UNEXPECTED_RESPONSE' ? 'INTERNAL_ERROR' : err.errorCode
    return new Problem(code, `${hint} (${before}; HTTP ${err.status}, correlation id ${err.correlationId})`, { errors: err.errors })
  }
  if (err instanceof NetworkError) {
    return new Problem('SERVICE_UNAVAILABLE', `nothing answers at ${options.url} (${err.code}): start the server with ` +
      '`svc serve` (or `make run`), or pass --url')
  }
  const code = (err as { code?: unknown } | null | undefined)?.code
  if (typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code)) {
    return new Error(`the server's certificate is not trusted (${code}): pass --ca FILE (e.g. ` +
      'SVC_HOME/tls/cert.pem) or --insecure')
  }
  return err
}
