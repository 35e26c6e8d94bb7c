// `svc bench`: load generator against a running service's render API (see docs/bench.md).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Option } from 'commander'
import type { Command } from 'commander'
import { emit, ExitCode } from '../io.js'
import type { CliRuntime } from '../runtime.js'
import { formatProgress, formatSummary } from '../bench/format.js'
import type { BenchDefaults, BenchFlags } from './bench-options.js'
import { apiKeyFromEnv, noApiKey } from '../api-key.js'

export function benchCommand (program: Command, rt: CliRuntime): void {
  program.command('bench').description('load-test POST /api/v1/render (closed loop, or open loop with --rate)')
    .requiredOption('--template <code>', 'template code to render')
    .option('--url <base>', 'service base URL (default https://127.0.0.1:<SVC_PORT>, trusting the local dev ' +
      'certificate)')
    .option('--key <key>', 'API key with scope render (default: SVC_API_KEY, or its alias SVC_KEY)')
    .option('--parameters <json>', 'parameters object, or a JSON array of them cycled through')
    .option('--parameters-file <file>', 'file with a JSON array of parameter objects cycled through')
    .option('--environment <env>', 'environment key (default: the key\'s own)')
    .addOption(new Option('--format <format>', 'expected output').choices(['pdf', 'zpl']))
    .option('--async', 'submit async renders and poll each job until succeeded or failed')
    .option('-c, --connections <n>', 'closed loop: concurrent clients (32); open loop: pool size (rate/10, ' +
      'at least 32)')
    .option('-d, --duration <duration>', 'measured window after the warm-up', '30s')
    .option('--rate <r>', 'open loop at r requests/s; latency counts from each intended send time')
    .option('--warmup <duration>', 'sent but not counted, before the window', '5s')
    .option('--timeout <duration>', 'per request: waiting for headers, then for the body', '30s')
    .option('--job-timeout <duration>', 'async: give up on a job after this long', '60s')
    .option('--ca <file>', 'PEM certificate to trust (e.g. SVC_HOME/tls/cert.pem)')
    .option('--insecure', 'do not verify the server certificate')
    .option('--max-error-rate <fraction>', 'exit 1 when errors/total is above this', '0.01')
    .option('--abort-after <n>', 'stop at once when the first n answers all fail with the same errorCode (0: ' +
      'never)', '20')
    .option('--no-probe', 'skip the single request sent (through svc/client) before the warm-up')
    .action(async (flags: BenchFlags) => {
      const { benchOptions } = await import('./bench-options.js')
      const options = benchOptions(flags, defaults(rt, flags))
      if (options.key === undefined) throw noApiKey()
      const io = rt.io()
      // One request first: a bench that can only fail stops here with the problem and what to do.
      if (flags.probe !== false) await (await import('../bench/probe.js')).probe(options)
      const tty = process.stderr.isTTY
      const controller = new AbortController()
      const onSigint = (): void => { controller.abort() }
      process.once('SIGINT', onSigint)
      let result
      try {
        const { runBench } = await import('../bench/runner.js')
        result = await runBench(options, {
          signal: controller.signal,
          onProgress: tty ? (p) => { process.stderr.write(`\r\x1b[K${formatProgress(p)}`) } : undefined
        })
      } finally {
        process.removeListener('SIGINT', onSigint)
        if (tty) process.stderr.write('\r\x1b[K')
      }
      emit(io, result, formatSummary)
      // main() has no way for a successful action to return 1, and throwing would print a second
      // document after the JSON result: leave with 1 here. stdout/stderr writes are synchronous
      // on Linux (files, pipes, TTYs), so the summary is already out.
      if (!result.passed) throw new ExitCode(1)
    })
}

/** Config and environment are read here, in the action, never inside the bench library. */
function defaults (rt: CliRuntime, flags: BenchFlags): BenchDefaults {
  const key = apiKeyFromEnv()
  if (flags.url !== undefined) return { url: flags.url, key }
  const config = rt.config()
  const certFile = config.tlsCert ?? join(config.home, 'tls', 'cert.pem')
  return { url: `https://127.0.0.1:${config.port}`, key, ca: existsSync(certFile) ? readFileSync(certFile) : undefined }
}
