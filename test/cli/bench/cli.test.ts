import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { after, before, test } from 'node:test'
import { KEY, startFake } from './fake-server.js'
import type { FakeServer } from './fake-server.js'
import { benchOptions } from '../../../cli/commands/bench-options.js'
import type { BenchFlags } from '../../../cli/commands/bench-options.js'

// dist/test/cli/bench → repository root
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')
const svc = join(root, 'bin', 'svc')

interface Run { code: number, stdout: string, stderr: string }
// Asynchronous on purpose: the fake server answers from this very process.
function run (args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'SVC_API_KEY')) as Record<string, string>
  return new Promise((resolve) => {
    execFile(process.execPath, [svc, ...args], { env: { ...base, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr })
    })
  })
}

let ok: FakeServer
let busy: FakeServer
before(async () => { ok = await startFake({ delayMs: 3 }); busy = await startFake({ delayMs: 3, busyEvery: 2 }) })
after(async () => { await ok.close(); await busy.close() })

test('svc --json bench prints one JSON result and exits 0; the key can come from SVC_API_KEY', async () => {
  const r = await run(['--json', 'bench', '--url', ok.url, '--ca', ok.caFile, '--template', 'INVOICE', '-d', '700ms', '--warmup', '0', '-c', '2',
    '--parameters', '[{"id":1},{"id":2}]'], { SVC_API_KEY: KEY })
  assert.equal(r.code, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.total + 1, ok.renders, 'the probe, then the measured renders')
  assert.deepEqual(result.statuses, { 200: result.total })
  assert.equal(result.passed, true)
  assert.equal(result.connections, 2)
  assert.ok(result.latency.p50 >= 3)
  assert.deepEqual(ok.bodies.slice(0, 3).map((b) => b.parameters), [{ id: 1 }, { id: 1 }, { id: 2 }])
  assert.equal(r.stderr, '', 'no progress line when stderr is not a TTY')
})

test('above --max-error-rate: exit 1, and the JSON result is still the only document', async () => {
  // No probe: it would take one render and so shift which of the measured ones are busy.
  const r = await run(['--json', 'bench', '--no-probe', '--url', busy.url, '--ca', busy.caFile, '--key', KEY, '--template', 'INVOICE', '-d', '500ms', '--warmup', '0', '-c', '2', '--max-error-rate', '0.2'])
  assert.equal(r.code, 1, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.passed, false)
  assert.ok(result.errorRate > 0.4 && result.errorRate <= 0.5)
  assert.equal(result.errorCodes.RENDER_BUSY, result.statuses['503'])
  // The same server with errors allowed: exit 0 (a short run may catch only busy answers).
  const lenient = await run(['--json', 'bench', '--url', busy.url, '--ca', busy.caFile, '--key', KEY, '--template', 'INVOICE', '-d', '300ms', '--warmup', '0', '-c', '1', '--max-error-rate', '1'])
  assert.equal(lenient.code, 0, lenient.stderr)
  assert.ok(JSON.parse(lenient.stdout).errors > 0)
})

test('text output is a readable summary; open loop with --rate', async () => {
  const r = await run(['bench', '--url', ok.url, '--ca', ok.caFile, '--key', KEY, '--template', 'INVOICE', '-d', '1s', '--warmup', '0', '--rate', '50'])
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /open loop at 50\/s over 32 connections/)
  assert.match(r.stdout, /latency \(ms\)\s+p50\s+p90\s+p99\s+p99\.9\s+max\s+mean/)
  assert.match(r.stdout, /^render\s+\d+\.\d\d/m)
  assert.match(r.stdout, /^statuses\s+200: \d+$/m)
  assert.match(r.stdout, /^PASS$/m)
})

test('usage errors exit 2 with one line', async () => {
  const bad = await run(['bench', '--url', ok.url, '--template', 'X', '-d', 'soon'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^error: --duration: expected a duration/)
  assert.equal(bad.stderr.trim().split('\n').length, 1)
  const missing = await run(['bench', '--url', ok.url])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /--template/)
})

test('no key: exit 2 naming SVC_API_KEY and its alias; SVC_KEY is read as the alias', async () => {
  const none = await run(['bench', '--url', ok.url, '--ca', ok.caFile, '--template', 'INVOICE', '-d', '300ms', '--warmup', '0', '-c', '1'])
  assert.equal(none.code, 2)
  assert.match(none.stderr, /^error: no API key: set SVC_API_KEY \(alias SVC_KEY\) or pass --key/)
  const alias = await run(['--json', 'bench', '--url', ok.url, '--ca', ok.caFile, '--template', 'INVOICE', '-d', '300ms', '--warmup', '0', '-c', '1'], { SVC_KEY: KEY })
  assert.equal(alias.code, 0, alias.stderr)
  assert.equal(JSON.parse(alias.stdout).passed, true)
})

test('the probe stops a bench that can only fail at once, with the problem (--json: the problem document)', async () => {
  const before = ok.renders
  const r = await run(['bench', '--url', ok.url, '--ca', ok.caFile, '--key', 'svc_test_wrong_key', '--template', 'INVOICE', '-d', '30s'])
  assert.equal(r.code, 1)
  assert.match(r.stderr, /^error: API_KEY_INVALID: the key is malformed or unknown: check SVC_API_KEY/)
  assert.equal(ok.renders, before, 'nothing rendered: the window never started')
  const json = await run(['--json', 'bench', '--url', ok.url, '--ca', ok.caFile, '--key', 'svc_test_wrong_key', '--template', 'INVOICE', '-d', '30s'])
  assert.equal(json.code, 1)
  assert.equal(JSON.parse(json.stdout).errorCode, 'API_KEY_INVALID')
})

test('without the probe, the first --abort-after answers all failing alike stop the run early', async () => {
  const r = await run(['--json', 'bench', '--no-probe', '--abort-after', '5', '--url', ok.url, '--ca', ok.caFile, '--key', 'svc_test_wrong_key',
    '--template', 'INVOICE', '-d', '30s', '--warmup', '0', '-c', '1'])
  assert.equal(r.code, 1, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.deepEqual(result.abortedEarly, { errorCode: 'API_KEY_INVALID', answers: 5 })
  assert.equal(result.passed, false)
  assert.equal(result.total, 5, 'one client: the fifth answer stopped it')
  assert.ok(result.durationMs < 30_000)
})

const flags = (f: Partial<BenchFlags>): BenchFlags => ({ template: 'T', duration: '30s', warmup: '5s', timeout: '30s', jobTimeout: '60s', maxErrorRate: '0.01', abortAfter: '20', ...f })

test('flag parsing: defaults, connections for --rate, and each bad value named', () => {
  const ca = Buffer.from('dev-cert')
  const o = benchOptions(flags({}), { url: 'https://127.0.0.1:8443', key: 'k', ca })
  assert.deepEqual({ ...o, ca: o.ca?.toString() }, {
    url: 'https://127.0.0.1:8443',
    key: 'k',
    template: 'T',
    parameters: [],
    environment: undefined,
    format: undefined,
    async: false,
    connections: 32,
    rate: undefined,
    durationMs: 30_000,
    warmupMs: 5000,
    timeoutMs: 30_000,
    jobTimeoutMs: 60_000,
    ca: 'dev-cert',
    insecure: false,
    maxErrorRate: 0.01,
    abortAfter: 20
  })
  // The dev certificate is only trusted for the default (local) URL.
  assert.equal(benchOptions(flags({ url: 'https://example.test' }), { url: 'https://example.test', ca }).ca, undefined)
  assert.equal(benchOptions(flags({ key: 'flag' }), { url: 'https://h', key: 'env' }).key, 'flag')
  assert.equal(benchOptions(flags({ rate: '5000' }), { url: 'https://h' }).connections, 500)
  assert.equal(benchOptions(flags({ rate: '50' }), { url: 'https://h' }).connections, 32)
  assert.equal(benchOptions(flags({ rate: '50', connections: '4' }), { url: 'https://h' }).connections, 4)
  assert.deepEqual(benchOptions(flags({ parameters: '{"a":1}' }), { url: 'https://h' }).parameters, [{ a: 1 }])
  const bad: Array<[Partial<BenchFlags>, RegExp]> = [
    [{ duration: '0s' }, /--duration/],
    [{ warmup: 'x' }, /--warmup/],
    [{ connections: '0' }, /--connections/],
    [{ connections: '1.5' }, /--connections/],
    [{ rate: '-1' }, /--rate/],
    [{ maxErrorRate: '2' }, /--max-error-rate/],
    [{ abortAfter: '-1' }, /--abort-after/],
    [{ parameters: '[1]' }, /--parameters: expected/],
    [{ parameters: '{' }, /--parameters: not JSON/],
    [{ parameters: '{}', parametersFile: 'f' }, /exclude/],
    [{ parametersFile: '/nonexistent/p.json' }, /--parameters-file: cannot read/],
    [{ url: 'ftp://h' }, /--url/],
    [{ ca: 'x', insecure: true }, /exclude/]
  ]
  for (const [f, message] of bad) assert.throws(() => benchOptions(flags(f), { url: 'https://h' }), message, JSON.stringify(f))
})
