/**
 * A 5,000-file folder in Chromium: the tree is virtualised (a few dozen treeitems in the DOM whatever
 * the folder size, each with its level, position and set size for assistive technology), End and
 * Home reach the last and first rows with keyboard focus, scrolling shows the rows in between, and
 * a change by another client in the middle of the folder appears live.
 *
 * The 5,000 rows are written straight into the files table in one transaction (empty files: the tree
 * reads rows, never content), which is what an agent's bulk import leaves behind, in a fraction of
 * the time 5,000 separate writes would take.
 */
import { createFileId } from '@yfs/core'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { personContext, treeItem, until } from './app-helpers.js'
import {
  describeBrowser,
  launchBrowser,
  openPage,
  screenshot,
  startServer,
  type TestServer,
} from './harness.js'

const FILES = 5_000
const name = (i: number) => `file-${String(i).padStart(4, '0')}.txt`

describeBrowser('a 5,000-file folder', () => {
  let server: TestServer
  let browser: Browser

  beforeAll(async () => {
    server = await startServer()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('renders only the rows on screen and stays live and keyboard-navigable', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.mkdir('/big')
    const big = node.fs.index.lookup('/big')!
    const now = Date.now()
    node.fs.table.batch(() => {
      for (let i = 0; i < FILES; i++) {
        const id = createFileId()
        node.fs.table.set({
          id,
          name: name(i),
          parentId: big,
          type: 'file',
          size: 0,
          createdAt: now,
          updatedAt: now,
          trashedAt: null,
        })
      }
    })
    await node.flush()
    expect(node.fs.index.childNames(big)).toHaveLength(FILES)

    const context = await personContext(browser, 'Ana')
    const { page } = await openPage(context, ws.appUrl())
    await treeItem(page, 'big').click()
    await treeItem(page, name(0)).waitFor()
    const rendered = await page.getByRole('treeitem').count()
    expect(rendered).toBeLessThan(100)
    expect(await treeItem(page, name(0)).getAttribute('aria-setsize')).toBe(String(FILES))
    await screenshot(page, 'big-folder')

    await treeItem(page, name(0)).focus()
    await page.keyboard.press('End')
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe(name(FILES - 1))
    expect(await treeItem(page, name(FILES - 1)).getAttribute('aria-posinset')).toBe(String(FILES))
    expect(await treeItem(page, name(FILES - 1)).isVisible()).toBe(true)
    expect(await page.getByRole('treeitem').count()).toBeLessThan(100)

    // Scroll to the middle: the rows there are rendered; a rename by another client shows up live.
    await page.locator('.scroller').evaluate((el) => {
      el.scrollTop = el.scrollHeight / 2
    })
    await treeItem(page, name(FILES / 2)).waitFor()
    await node.fs.mv(`/big/${name(FILES / 2)}`, '/big/file-2500-renamed.txt')
    await treeItem(page, 'file-2500-renamed.txt').waitFor()
    await until(async () => (await treeItem(page, name(FILES / 2)).count()) === 0, 'old row gone')

    await page.keyboard.press('Home')
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('big')
    await context.close()
  })
})
