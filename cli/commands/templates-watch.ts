// `svc templates preview --watch`: renders, then renders again on every save of the watched files
// until SIGINT/SIGTERM. The directories are watched, not the files: editors often save by writing
// a new file and renaming it over the old one, which ends a watch on the old file.
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'

/** A burst of events from one save (truncate, write, rename) becomes one render. */
const SETTLE_MS = 60

/**
 * Calls `render` once, then after every change of one of `files`; renders never overlap (a change
 * during a render queues exactly one more). `report` gets what a render throws; watching goes on.
 * Resolves when `signal` aborts.
 */
export async function watchAndRender (
  files: string[],
  render: () => Promise<void>,
  report: (err: unknown) => void,
  signal: AbortSignal
): Promise<void> {
  let running = false
  let again = false
  let timer: NodeJS.Timeout | undefined
  const once = async (): Promise<void> => {
    if (running) {
      again = true
      return
    }
    running = true
    try {
      do {
        again = false
        try {
          await render()
        } catch (err) {
          report(err)
        }
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- another task aborts the signal
      } while (again && !signal.aborted)
    } finally {
      running = false
    }
  }
  const byDir = new Map<string, Set<string>>()
  for (const f of files) {
    const full = resolve(f)
    const names = byDir.get(dirname(full)) ?? new Set<string>()
    names.add(basename(full))
    byDir.set(dirname(full), names)
  }
  const watchers: FSWatcher[] = []
  for (const [dir, names] of byDir) {
    watchers.push(
      watch(dir, { persistent: true }, (_event, name) => {
        // Some platforms give no file name: then any change in the directory counts.
        if (name !== null && !names.has(name.toString())) return
        clearTimeout(timer)
        timer = setTimeout(() => {
          void once()
        }, SETTLE_MS)
      })
    )
  }
  try {
    await once()
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve()
      else {
        signal.addEventListener(
          'abort',
          () => {
            resolve()
          },
          { once: true }
        )
      }
    })
  } finally {
    clearTimeout(timer)
    for (const w of watchers) w.close()
  }
}
