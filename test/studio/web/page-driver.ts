// Drives the studio page as a user does: keystrokes into CodeMirror (its own search panel picks
// the text to replace), the preview read back from pdf.js's text layer.
import type { Page } from 'playwright-core'

/** Selects the next match of `find` with CodeMirror's search (Mod-F, Enter, Escape), then types `text` over it. */
export async function replaceInEditor (page: Page, find: string, text: string): Promise<void> {
  await page.locator('[data-testid=editor] .cm-content').click()
  await page.keyboard.press('ControlOrMeta+f')
  const field = page.locator('.cm-search input[name=search]')
  // CodeMirror commits the query on keyup, which fill() does not send: type it key by key.
  await field.fill('')
  await field.pressSequentially(find)
  await field.press('Enter')
  await field.press('Escape')
  await page.keyboard.type(text)
  // Closes a completion list the typing may have opened, so the next keystroke is not taken by it.
  await page.keyboard.press('Escape')
}

/** The text of every page of the preview, from the text layers over the canvases. */
export async function previewText (page: Page): Promise<string> {
  return await page.$$eval('[data-testid=preview-text]', (els) => els.map((e) => e.textContent).join('\n'))
}

/** Waits until the preview's text includes `needle` (upper bound on a hang, not a speed check). */
export async function waitForPreviewText (page: Page, needle: string, timeout = 30_000): Promise<void> {
  await page.locator('[data-testid=preview-text]', { hasText: needle }).first().waitFor({ state: 'attached', timeout })
}
