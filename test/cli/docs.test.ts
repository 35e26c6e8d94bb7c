// docs/cli.md is generated from the commander definitions: it fails here when stale, and every
// command must say what it prints with --json. The completion script knows every command.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { buildProgram } from '../../cli/main.js'
import { leafCommands, renderCliDocs } from '../../cli/docs.js'
import { JSON_OUTPUTS } from '../../cli/json-outputs.js'
import { bashScript } from '../../cli/commands/completion.js'
import { projectRoot } from '../../server/util/paths.js'

const run = promisify(execFile)

test('docs/cli.md is what cli/docs.ts generates (regenerate: make docs-cli)', async () => {
  const page = await readFile(join(projectRoot, 'docs', 'cli.md'), 'utf8')
  assert.equal(page, renderCliDocs(buildProgram()), 'docs/cli.md is stale: run `make docs-cli`')
})

test('every command documents its --json output, and no entry names a command that does not exist', () => {
  const paths = leafCommands(buildProgram()).map((c) => c.path)
  // A command may have no entry: that is what this checks.

  assert.deepEqual(paths.filter((p) => JSON_OUTPUTS[p] === undefined), [], 'commands without a JSON_OUTPUTS entry')
  assert.deepEqual(Object.keys(JSON_OUTPUTS).filter((p) => !paths.includes(p)), [], 'entries without a command')
  assert.ok(paths.includes('completion') && paths.includes('webhooks listen'))
})

test('bash completion (in a real bash) offers commands, subcommands and options by prefix', async () => {
  const script = bashScript(buildProgram())
  const probe = (words: string[]): string =>
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _svc_complete; echo "\${COMPREPLY[*]}"`
  const cases: Array<[string[], string]> = [
    [['svc', 'web'], 'webhooks'],
    [['svc', 'webhooks', 'rot'], 'rotate-secret'],
    [['svc', '--json', 'keys', 'cr'], 'create'],
    [['svc', 'keys', 'create', '--workspace', 'W', '--mo'], '--mode'],
    [['svc', 'bench', '--abort'], '--abort-after'],
    [['svc', 'comp'], 'completion']
  ]
  const { stdout } = await run('bash', ['-c', [script, ...cases.map(([w]) => probe(w))].join('\n')])
  assert.deepEqual(stdout.trim().split('\n'), cases.map(([, expected]) => expected))
})
