// What `svc demo` prints: the keys (once) and ready-to-paste curl commands for each API call.
import { join } from 'node:path'
import type { Config } from '../config.js'
import type { DemoResult } from './setup.js'

export interface DemoCommands {
  renderInvoicePdf: string
  renderAsync: string
  pollJob: string
  downloadDocument: string
  renderLabels: string
  listTemplates: string
  executeDataset: string
}

export interface DemoDocument extends Omit<DemoResult, 'keys'> {
  baseUrl: string
  caCert: string
  keys: {
    live: { key: string, prefix: string, defaultEnvironment: string }
    test: { key: string, prefix: string, defaultEnvironment: string }
  }
  commands: DemoCommands
  notes: string[]
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`

export function demoBaseUrl (config: Pick<Config, 'publicUrl' | 'port'>): string {
  return config.publicUrl ?? `https://127.0.0.1:${config.port}`
}

/** The commands use $SVC_URL and $SVC_API_KEY / $SVC_TEST_KEY, exported by the lines printed before them
 *  (SVC_API_KEY: the one name the CLI and the client docs use; `svc bench` also reads SVC_KEY). */
export function demoCommands (caCert: string): DemoCommands {
  const get = `curl -sS --fail-with-body --cacert ${shellQuote(caCert)}`
  const curl = (key: string): string => `${get} -H "Authorization: Bearer $${key}"`
  const post = (key: string, body: unknown): string => `${curl(key)} -H 'Content-Type: ` +
    `application/json' -d ${shellQuote(JSON.stringify(body))}`
  return {
    renderInvoicePdf: `${post('SVC_API_KEY', { template: 'invoice', parameters: { invoiceId: 1 } })} -o invoice.pdf ` +
      '"$SVC_URL/api/v1/render"',
    renderAsync: `JOB=$(${post('SVC_API_KEY', { template: 'sales-report', parameters: { from: '2025-01-01', to: '2025-03-31' }, async: true })} "$SVC_URL/api/v1/render" | sed -E 's/.*"jobId":"([^"]+)".*/\\1/') && echo "job $JOB"`,
    // Every second until the job is final (Part 4 advises 1–2 s at first), then print it.
    pollJob: `while JOB_JSON=$(${curl('SVC_API_KEY')} "$SVC_URL/api/v1/jobs/$JOB") && ` +
      '! printf \'%s\' "$JOB_JSON" | grep -Eq \'"status":"(succeeded|failed)"\'; do sleep 1; done; echo "$JOB_JSON"',
    // The signed documentUrl needs no API key.
    downloadDocument: `${get} -o sales-report.pdf "$(printf '%s' "$JOB_JSON" | sed -E ` +
      '\'s/.*"documentUrl":"([^"]+)".*/\\1/\')"',
    renderLabels: `${post('SVC_TEST_KEY', { template: 'shipping-label', parameters: { batchId: 1 } })} -o labels.zpl ` +
      '"$SVC_URL/api/v1/render"',
    listTemplates: `${curl('SVC_API_KEY')} "$SVC_URL/api/v1/templates"`,
    executeDataset: `${post('SVC_TEST_KEY', { parameters: { invoiceId: 2 }, maxRows: 5 })} "$SVC_URL/api/v1/datasets/invoice/lines/execute"`
  }
}

export function demoDocument (result: DemoResult, config: Pick<Config, 'publicUrl' | 'port' | 'home' | 'tlsCert'>): DemoDocument {
  const caCert = config.tlsCert ?? join(config.home, 'tls', 'cert.pem')
  const notes = [
    'The keys are shown only now; store them (only their digests are kept).',
    'The live key defaults to the production environment, the test key to development (test keys may not use ' +
      'production).'
  ]
  if (result.rerun) {
    notes.unshift('The demo existed already: nothing was duplicated, but keys cannot be shown twice, ' +
    'so a new live and test key were created (the earlier ones still work; revoke them with svc keys revoke ID ' +
      '--workspace ID).')
  }
  return {
    workspace: result.workspace,
    environments: result.environments,
    templates: result.templates,
    rerun: result.rerun,
    baseUrl: demoBaseUrl(config),
    caCert,
    keys: {
      live: { key: result.keys.live.key, prefix: result.keys.live.prefix, defaultEnvironment: 'production' },
      test: { key: result.keys.test.key, prefix: result.keys.test.prefix, defaultEnvironment: 'development' }
    },
    commands: demoCommands(caCert),
    notes
  }
}

export function demoText (doc: DemoDocument): string[] {
  const c = doc.commands
  return [
    `Demo workspace "${doc.workspace.name}" (${doc.workspace.id})${doc.workspace.created ? ' created' : ' found'}.`,
    ...doc.environments.map((e) => `  environment ${e.key.padEnd(11)} database ${e.database} (read-only user ${e.user})${e.seeded ? ', sample data loaded' : ''}: ` +
      Object.entries(e.rows).map(([t, n]) => `${n} ${t}`).join(', ')),
    ...doc.templates.map((t) => `  template ${t.code} v${t.version}${t.published ? ' published' : ' (unchanged)'}`),
    '',
    ...doc.notes.map((n) => `Note: ${n}`),
    '',
    'Start the server (make run, or svc serve), then in another shell:',
    '',
    `export SVC_URL=${doc.baseUrl}`,
    `export SVC_API_KEY=${doc.keys.live.key}    # live key (${doc.keys.live.prefix}), default environment production`,
    `export SVC_TEST_KEY=${doc.keys.test.key}   # test key (${doc.keys.test.prefix}), default environment development`,
    '',
    '# Invoice PDF, synchronous',
    c.renderInvoicePdf,
    '# Sales report as an asynchronous job, polled until it is final, then its documentUrl downloaded (no key needed)',
    c.renderAsync,
    c.pollJob,
    c.downloadDocument,
    '# Shipping labels (ZPL) with the test key, from development',
    c.renderLabels,
    '# Published templates',
    c.listTemplates,
    '# One dataset as JSON rows',
    c.executeDataset
  ]
}
