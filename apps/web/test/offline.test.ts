/**
 * Offline in Chromium: one context goes offline (Playwright `setOffline`: the app closes its socket on
 * the browser's `offline` event), both contexts change the tree, and after reconnecting both changes
 * are everywhere, the Node client included; the status bar says offline and counts the documents not
 * yet acknowledged. Then the server itself goes down: a reload still opens the app (service worker)
 * and the workspace (IndexedDB) with the edits made meanwhile, which reach the server once it is back.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectWorkspace } from '@yfs/client'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { connectionPhase, createFile, idbSettled, personContext, treeItem, until } from './app-helpers.js'
import {
  describeBrowser,
  launchBrowser,
  openPage,
  screenshot,
  startServer,
  type TestServer,
} from './harness.js'

const item = treeItem
const phase = connectionPhase

// The browser logs refused WebSocket connections and failed loads while the server is down.
const SERVER_DOWN = [/WebSocket connection to .* failed/, /ERR_CONNECTION_REFUSED/, /Failed to load resource/]

describeBrowser('offline', () => {
  let browser: Browser
  const servers: TestServer[] = []

  beforeAll(async () => {
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    for (const s of servers) await s.stop()
  })

  it('offline edits in one context and online edits in another merge on reconnect', async () => {
    const server = await startServer()
    servers.push(server)
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.writeFile('/README.md', '# Shared\n')
    await node.fs.writeFile('/plan.txt', 'first line\nlast line\n')
    await node.flush()
    const a = await personContext(browser, 'Ana')
    const b = await personContext(browser, 'Bo')
    const { page: pa } = await openPage(a, ws.appUrl())
    const { page: pb } = await openPage(b, ws.appUrl())
    await item(pa, 'README.md').waitFor()
    await item(pb, 'README.md').waitFor()
    await expect.poll(() => phase(pa)).toBe('online')
    // The service worker holds the whole app (lazy editor chunks included) before the network goes.
    await pa.waitForFunction(() => navigator.serviceWorker.controller !== null)

    // Both open the same file in the code editor.
    await item(pa, 'plan.txt').click()
    await item(pb, 'plan.txt').click()
    await pa.locator('.cm-content').waitFor()
    await pb.locator('.cm-content').waitFor()

    await a.setOffline(true)
    await expect.poll(() => phase(pa)).toBe('offline')
    // Both edit plan.txt: A (offline) at the end of the first line, B (online) at the end of the last.
    await pa.locator('.cm-line').nth(0).click()
    await pa.keyboard.press('End')
    await pa.keyboard.type(' +A offline')
    await pb.locator('.cm-line').nth(1).click()
    await pb.keyboard.press('End')
    await pb.keyboard.type(' +B online')
    await until(async () => (await node.fs.readFile('/plan.txt')).includes('+B online'), 'Node has B’s edit')
    await createFile(pa, 'from-a.txt')
    await item(pa, 'README.md').click()
    await pa.keyboard.press('F2')
    await pa.getByLabel('New name for README.md').fill('README-renamed-offline.md')
    await pa.keyboard.press('Enter')
    await item(pa, 'README-renamed-offline.md').waitFor()
    await createFile(pb, 'from-b.txt')
    await expect
      .poll(() => pa.getByRole('status').first().textContent())
      .toMatch(/Offline: \d+ documents? saved on this device/)
    await item(pa, 'plan.txt').click()
    await pa.getByText('first line +A offline').waitFor()
    await screenshot(pa, 'offline')
    // Really offline: neither the other browser nor the Node client has A's changes yet.
    await until(() => node.fs.exists('/from-b.txt'), 'Node has B’s file')
    expect(await node.fs.exists('/from-a.txt')).toBe(false)
    expect(await node.fs.readFile('/plan.txt')).not.toContain('+A offline')
    expect(await item(pb, 'from-a.txt').count()).toBe(0)

    await a.setOffline(false)
    await item(pa, 'from-b.txt').waitFor()
    await item(pb, 'from-a.txt').waitFor()
    await item(pb, 'README-renamed-offline.md').waitFor()
    await until(
      async () =>
        (await node.fs.exists('/from-a.txt')) && (await node.fs.exists('/README-renamed-offline.md')),
      'Node has A’s offline changes',
    )
    expect(await node.fs.readFile('/README-renamed-offline.md')).toBe('# Shared\n')
    const merged = 'first line +A offline\nlast line +B online\n'
    // Creating and renaming opened other files: back to plan.txt in both.
    await item(pa, 'plan.txt').click()
    await item(pb, 'plan.txt').click()
    await until(async () => (await node.fs.readFile('/plan.txt')) === merged, 'Node has both edits')
    const lines = (page: typeof pa) =>
      page
        .locator('.cm-content')
        .evaluate((el) => Array.from(el.querySelectorAll('.cm-line'), (l) => l.textContent).join('\n'))
    await expect.poll(() => lines(pa)).toBe(merged)
    await expect.poll(() => lines(pb)).toBe(merged)
    await expect.poll(() => phase(pa)).toBe('online')
    await a.close()
    await b.close()
  })

  it('offline, a file this device never opened says so instead of opening empty, and opens once back', async () => {
    const server = await startServer()
    servers.push(server)
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.writeFile('/opened.txt', 'opened here\n')
    await node.flush()
    const a = await personContext(browser, 'Ana')
    const { page } = await openPage(a, ws.appUrl())
    await item(page, 'opened.txt').waitFor()
    await expect.poll(() => phase(page)).toBe('online')
    // Written elsewhere while the page is open: the row arrives, the content stays on the server.
    await node.fs.writeFile('/elsewhere.txt', 'written on another device\n')
    await node.flush()
    await item(page, 'elsewhere.txt').waitFor()

    await a.setOffline(true)
    await expect.poll(() => phase(page)).toBe('offline')
    await item(page, 'elsewhere.txt').click()
    await page
      .getByRole('alert')
      .filter({ hasText: 'Could not open /elsewhere.txt: this file is not on this device yet' })
      .waitFor()
    expect(await page.locator('.cm-content').count()).toBe(0)
    await screenshot(page, 'offline-not-on-device')

    await a.setOffline(false)
    await page.locator('.cm-content').getByText('written on another device').waitFor()
    await page.locator('.cm-line').first().click()
    await page.keyboard.press('End')
    await page.keyboard.type(' +Ana')
    await until(
      async () => (await node.fs.readFile('/elsewhere.txt')) === 'written on another device +Ana\n',
      'Node has the edit, made on the server’s text',
    )
    await a.close()
  })

  it('with the server down, a reload opens the app and the workspace from this device', async () => {
    const data = await mkdtemp(join(tmpdir(), 'yfs-web-offline-'))
    try {
      const first = await startServer({ args: ['--data', data] })
      const ws = await first.createWorkspace()
      const node = await ws.connect()
      await node.fs.mkdir('/notes')
      await node.fs.writeFile('/notes/a.md', '# A\n')
      await node.flush()
      const context = await personContext(browser, 'Ana')
      const { page } = await openPage(context, ws.appUrl(), { allow: SERVER_DOWN })
      await item(page, 'notes').waitFor()
      // The service worker has the app, y-indexeddb the workspace.
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null)

      await first.stop()
      await expect.poll(() => phase(page)).toBe('offline')
      await createFile(page, 'written-while-down.txt')
      await page.locator('.cm-content').click()
      await page.keyboard.type('typed while the server was down')
      await page.getByText('typed while the server was down').waitFor()
      await idbSettled(page)
      await page.reload()
      await item(page, 'written-while-down.txt').click()
      await page.getByText('typed while the server was down').waitFor()
      await item(page, 'notes').click()
      await item(page, 'a.md').waitFor()
      expect(await phase(page)).toBe('offline')
      await screenshot(page, 'offline-reload')

      const second = await startServer({ args: ['--data', data, '--port', String(first.port)] })
      servers.push(second)
      await expect.poll(() => phase(page), { timeout: 30_000 }).toBe('online')
      const check = await connectWorkspace({ url: second.ws, workspace: ws.name, token: ws.writeToken })
      try {
        await until(() => check.fs.exists('/written-while-down.txt'), 'the server has the offline file')
        await until(
          async () =>
            (await check.fs.readFile('/written-while-down.txt')) === 'typed while the server was down',
          'the server has the offline text',
        )
      } finally {
        await check.close(0)
      }
      await context.close()
    } finally {
      await rm(data, { recursive: true, force: true })
    }
  })

  it('signing out removes this device’s copy, but keeps it while it holds changes the server lacks', async () => {
    const server = await startServer()
    servers.push(server)
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.writeFile('/plan.txt', 'one\n')
    await node.flush()
    const copies = (page: import('playwright-core').Page) =>
      page.evaluate(async (name) => {
        const all = await indexedDB.databases()
        return all.filter((d) => d.name?.startsWith(`yfs:${location.host}:${name}`)).length
      }, ws.name)

    const context = await personContext(browser, 'Ana')
    const { page } = await openPage(context, ws.appUrl(), { allow: [/ERR_INTERNET_DISCONNECTED/] })
    await item(page, 'plan.txt').click()
    await page.locator('.cm-content').waitFor()
    await idbSettled(page)
    expect(await copies(page)).toBeGreaterThanOrEqual(2) // the main doc and plan.txt's content doc

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('status').filter({ hasText: 'copy of' }).waitFor()
    expect(await page.getByRole('status').textContent()).toContain(
      `This device's copy of “${ws.name}” was removed.`,
    )
    expect(await copies(page)).toBe(0)

    // Offline edits are not thrown away: signing out with changes the server lacks keeps the copy.
    // (The link changes only the fragment: the running app signs in from it and hides the token.)
    await page.goto(ws.appUrl())
    await item(page, 'plan.txt').waitFor()
    expect(page.url()).not.toContain('token=')
    await expect.poll(() => phase(page)).toBe('online')
    await context.setOffline(true)
    await expect.poll(() => phase(page)).toBe('offline')
    await createFile(page, 'offline-note.txt')
    await item(page, 'offline-note.txt').click()
    await page.locator('.cm-content').click()
    await page.keyboard.type('typed offline, then signed out')
    await page.getByText('typed offline, then signed out').waitFor()
    await idbSettled(page)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('status').filter({ hasText: 'stay on this device' }).waitFor()
    expect(await copies(page)).toBeGreaterThanOrEqual(1)

    // Back online, opening the workspace again sends the kept edits to the server: the new file and
    // its text, although nobody opens the file (the client re-opens content docs it left unacknowledged).
    await context.setOffline(false)
    await page.goto(ws.appUrl())
    await item(page, 'offline-note.txt').waitFor()
    expect(await page.locator('.cm-content').count()).toBe(0)
    await until(() => node.fs.exists('/offline-note.txt'), 'the server has the file created offline')
    await until(
      async () => (await node.fs.readFile('/offline-note.txt')) === 'typed offline, then signed out',
      'the server has the text typed offline',
    )
    await expect.poll(() => phase(page)).toBe('online')
    await expect
      .poll(() => page.locator('[data-unacknowledged]').getAttribute('data-unacknowledged'))
      .toBe('0')
    await context.close()
  })
})
