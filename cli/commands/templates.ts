// `svc templates …`: validate and preview template files locally, publish them as new versions,
// list and disable/enable the templates of a workspace.
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import type { CheckedTemplate } from '../../server/services/template-file.js'
import { Problem } from '../../server/errors.js'
import { emit, fail, table, UsageError } from '../io.js'
import type { CliRuntime } from '../runtime.js'
import type { PreviewOptions } from './templates-preview.js'

async function readTemplate (file: string): Promise<string> {
  try { return await readFile(file, 'utf8') } catch (err) { throw new UsageError(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`) }
}

/** The template checker (Ajv, the expression compiler), loaded on use so that every other command starts fast. */
async function checkFile (file: string): Promise<CheckedTemplate> {
  const text = await readTemplate(file)
  const { checkTemplateFile } = await import('../../server/services/template-file.js')
  return checkTemplateFile(text)
}

export function templateCommands (program: Command, rt: CliRuntime): void {
  const templates = program.command('templates').description('template files: validate, preview locally, ' +
    'publish versions, list, disable/enable')

  templates.command('validate').description('check a template file; lists every error by JSON path ' +
    '(exit 1 when invalid)')
    .argument('<file>', 'template file (JSON)')
    .action(async (file: string) => {
      const io = rt.io()
      let checked: CheckedTemplate
      try {
        checked = await checkFile(file)
      } catch (err) {
        // Text mode: every error on its own line before the one-line failure (JSON mode has them in `errors`).
        if (err instanceof Problem && !io.json) for (const [path, messages] of Object.entries(err.errors ?? {})) for (const m of messages) io.err(`${path}: ${m}`)
        throw err
      }
      const d = checked.definition
      // Warnings (a check that was skipped) go to stderr in text mode, into `warnings` in JSON mode.
      if (!io.json) for (const w of checked.warnings) io.err(`warning: ${w.path}: ${w.message}`)
      const warnings = checked.warnings.length > 0 ? { warnings: checked.warnings } : {}
      emit(
        io,
        {
          valid: true,
          code: d.code,
          format: d.format,
          parameters: (d.parameters ?? []).length,
          datasets: (d.datasets ?? []).length,
          ...warnings
        },
        (v) => `${file}: valid ${v.format} template ${v.code} (${v.parameters} parameters, ${v.datasets} datasets)`
      )
    })

  templates.command('preview').description('render a template file locally with rows from a file (no server, ' +
    'no database)')
    .argument('<file>', 'template file (JSON)')
    .option('--data <file>', 'rows by dataset code: { "<dataset code>": rows }')
    .option('--parameters <json>', 'parameter values as a JSON object')
    .option('--context <json>', 'caller context as a JSON object (company, user, language …)')
    .requiredOption('-o, --output <file>', 'output: .pdf (documents; labels: one page per label), .zpl ' +
      '(labels) or .png (first page or label; out-%d.png: one file each)')
    .option('--dpi <dpi>', 'labels: render at this printer resolution (152, 203, 300, 600); pictures are drawn at it too')
    .option('--watch', 'render again on every save of the template or data file, until Ctrl-C')
    .option('--xml <file>', 'also write the e-invoice XML (document.einvoice) embedded in the PDF to this file')
    .action(async (file: string, opts: PreviewOptions & { watch?: boolean }) => {
      // Loaded on use: the engine (pdfkit, fonts) would otherwise slow every svc command's start.
      const { preview } = await import('./templates-preview.js')
      const render = async (): Promise<void> => {
        const { text, definition } = await checkFile(file)
        const result = await preview(definition, text, opts, rt.config().render)
        const written = result.files.length > 1 ? ` in ${result.files.length} files (${result.files[0]} …)` : ''
        emit(rt.io(), result, (v) => `${v.output}: ${v.bytes} bytes${written}${v.pageCount > 0 ? `, ${v.pageCount} page(s)` : ''}${v.labelCount > 0 ? `, ${v.labelCount} label(s)` : ''}${v.warnings.map((w) => `\nwarning: ${w}`).join('')}`)
      }
      if (opts.watch !== true) { await render(); return }
      const { watchAndRender } = await import('./templates-watch.js')
      const io = rt.io()
      const stop = new AbortController()
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { stop.abort() })
      io.err(`watching ${[file, opts.data].filter((f) => f !== undefined).join(' and ')} (Ctrl-C to stop)`)
      // A failed render is printed as any command failure is, and watching goes on.
      await watchAndRender(
        [file, ...(opts.data === undefined ? [] : [opts.data])],
        render,
        (err) => {
          fail(io, err)
        },
        stop.signal
      )
    })

  templates.command('publish').description('publish a template file as the next version of its code ' +
    '(emits template.published)')
    .argument('<file>', 'template file (JSON)')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--note <text>', 'release note (in the event and the version history)')
    .option('--by <name>', 'who publishes (publishedBy)')
    .action(async (file: string, opts: { workspace: string, note?: string, by?: string }) => {
      const text = await readTemplate(file)
      const result = await rt.withContext((ctx) =>
        ctx.services.templates.publish(opts.workspace, text, { note: opts.note, publishedBy: opts.by })
      )
      emit(rt.io(), result, (v) => `${v.code} version ${v.version} published (previous: ${v.previousVersion ?? 'none'})`)
    })

  templates.command('list').description('every template of a workspace, disabled ones included')
    .requiredOption('--workspace <id>', 'workspace id')
    .action(async (opts: { workspace: string }) => {
      const list = await rt.withContext(async (ctx) => {
        await ctx.services.workspaces.get(opts.workspace)
        return await ctx.services.templates.listAll(opts.workspace)
      })
      emit(rt.io(), list, (v) => table(v.map((t) => ({ ...t, updated: t.updatedAt })), ['code', 'format', 'version', 'disabled', 'updated']))
    })

  for (const [name, disabled] of [['disable', true], ['enable', false]] as const) {
    templates.command(name).description(disabled
      ? 'disable a template: renders answer 409 TEMPLATE_DISABLED and the read API stops listing it'
      : 'enable a disabled template again')
      .argument('<code>', 'template code')
      .requiredOption('--workspace <id>', 'workspace id')
      .action(async (code: string, opts: { workspace: string }) => {
        const result = await rt.withContext((ctx) => ctx.services.templates.setDisabled(opts.workspace, code, disabled))
        emit(rt.io(), result, (v) => `${v.code} ${v.disabled ? 'disabled' : 'enabled'}`)
      })
  }
}
