/**
 * Helpers for the app's browser tests (on top of harness.ts): a context whose person is already
 * named, tree locators, and a bounded wait for Node-side state.
 */

import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { waitFor } from '@yfs/core/testing'
import type { Browser, BrowserContext, Page } from 'playwright-core'

/** A browser context whose person is already named (localStorage), like a returning user. */
export async function personContext(browser: Browser, name: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  await context.addInitScript((person) => {
    if (!localStorage.getItem('yfs.user')) localStorage.setItem('yfs.user', JSON.stringify({ name: person }))
  }, name)
  return context
}

/** The tree row named `name`. */
export const treeItem = (page: Page, name: string) => page.getByRole('treeitem', { name, exact: true })

/** The status bar's connection phase: `online`, `offline` or `syncing`. */
export const connectionPhase = (page: Page) => page.locator('[data-phase]').getAttribute('data-phase')

/** Poll until `check` holds (Node-side state), failing after `timeoutMs`. */
/** Poll until `check` holds (the shared bounded wait, with the browser tests' longer default). */
export const until = (check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000) =>
  waitFor(check, what, { timeoutMs, intervalMs: 50 })

/** Create a file at the selected folder through the toolbar, and wait for its row. */
export async function createFile(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'New file' }).click()
  await page.getByLabel('New file in').fill(name)
  await page.getByLabel('New file in').press('Enter')
  await treeItem(page, name).waitFor()
}

/** Number of stored updates in the page's yfs IndexedDB databases (y-indexeddb's `updates` stores). */
function countStoredUpdates(page: Page): Promise<number> {
  return page.evaluate(async () => {
    let total = 0
    for (const info of await indexedDB.databases()) {
      if (!info.name?.startsWith('yfs:')) continue
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(info.name!)
        open.onsuccess = () => resolve(open.result)
        open.onerror = () => reject(open.error)
      })
      if (db.objectStoreNames.contains('updates')) {
        total += await new Promise<number>((resolve, reject) => {
          const count = db.transaction('updates').objectStore('updates').count()
          count.onsuccess = () => resolve(count.result)
          count.onerror = () => reject(count.error)
        })
      }
      db.close()
    }
    return total
  })
}

/** Wait until the page's IndexedDB writes have settled (the same count of stored updates twice in a row). */
export async function idbSettled(page: Page, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = -1
  for (;;) {
    const now = await countStoredUpdates(page)
    if (now === last && now > 0) return
    if (Date.now() > deadline) throw new Error('IndexedDB writes did not settle')
    last = now
    await page.waitForTimeout(250)
  }
}

/** Run axe-core on the page; returns the serious and critical violations. */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (no inline <script>).
  await page.evaluate(source)
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: unknown[] }> } })
      .axe
    const result = await axe.run(document)
    return result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[]
  })
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }))
}
