/**
 * The file tree in Chromium against a real `yfs serve`: sign-in through the link (token then gone
 * from the address bar), the tree from the files table with system folders hidden and display-name
 * suffixes as the filesystem shows them, tree operations in one browser context showing up in a
 * second context and in a Node @yfs/client, an agent running bash through @yfs/agent while the page
 * is open, readable errors next to their cause, the Trash view, and read-only tokens.
 */
import { createToolRegistry } from '@yfs/agent'
import type { WorkspaceConnection } from '@yfs/client'
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
  type TestWorkspace,
} from './harness.js'

const item = treeItem

describeBrowser('file tree', () => {
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

  async function seeded(): Promise<{ ws: TestWorkspace; node: WorkspaceConnection }> {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.mkdir('/src')
    await node.fs.writeFile('/src/main.ts', 'export const main = 1\n')
    await node.fs.writeFile('/README.md', '# Demo\n')
    await node.fs.mkdir('/notes')
    await node.fs.writeFile('/notes/todo.md', '- [ ] first\n')
    await node.flush()
    return { ws, node }
  }

  it('signs in from the link, hides the token and system folders, and shows the tree', async () => {
    const { ws } = await seeded()
    const context = await personContext(browser, 'Ana')
    const { page } = await openPage(context, ws.appUrl())
    await item(page, 'src').waitFor()
    expect(page.url()).not.toContain('token')
    expect(await page.evaluate(() => sessionStorage.getItem('yfs.signIn'))).toContain(ws.name)
    const names = await page
      .getByRole('treeitem')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))
    // Folders first, then files; /bin, /usr, /dev, /proc (local to each instance) are not shown.
    expect(names).toEqual(['notes', 'src', 'README.md'])
    await expect.poll(() => item(page, 'src').getAttribute('aria-expanded')).toBe('false')
    await item(page, 'src').click()
    await item(page, 'main.ts').waitFor()
    expect(await item(page, 'src').getAttribute('aria-expanded')).toBe('true')
    expect(await item(page, 'main.ts').getAttribute('aria-level')).toBe('2')
    await item(page, 'main.ts').click()
    expect(await item(page, 'main.ts').getAttribute('aria-selected')).toBe('true')
    await page.getByRole('main', { name: 'Editor: /src/main.ts' }).waitFor()
    await screenshot(page, 'tree')
    await context.close()
  })

  it('asks a new person for a name once and keeps it', async () => {
    const { ws } = await seeded()
    const context = await browser.newContext()
    const { page } = await openPage(context, ws.appUrl())
    await page.getByLabel('Your name').fill('Bo')
    await screenshot(page, 'sign-in')
    await page.getByRole('button', { name: 'Open workspace' }).click()
    await item(page, 'src').waitFor()
    await page.reload()
    await item(page, 'src').waitFor()
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('yfs.user') ?? '{}').name)).toBe('Bo')
    await context.close()
  })

  it('says why a wrong token does not open the workspace', async () => {
    const { ws } = await seeded()
    const context = await personContext(browser, 'Ana')
    const { page } = await openPage(context, `${server.http}/#workspace=${ws.name}&token=wrong`, {
      allow: [/WebSocket/],
    })
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This token is not valid')
    await screenshot(page, 'sign-in-error')
    await context.close()
  })

  it('create, rename, move, delete and restore in one context show up in another and in Node', async () => {
    const { ws, node } = await seeded()
    const a = await personContext(browser, 'Ana')
    const b = await personContext(browser, 'Bo')
    const { page: pa } = await openPage(a, ws.appUrl())
    const { page: pb } = await openPage(b, ws.appUrl())
    await item(pa, 'src').waitFor()
    await item(pb, 'src').waitFor()

    // Create a file at the top level.
    await pa.getByRole('button', { name: 'New file' }).click()
    await pa.getByLabel('New file in').fill('plan.md')
    await pa.getByRole('button', { name: 'Create' }).click()
    await item(pb, 'plan.md').waitFor()
    await until(() => node.fs.exists('/plan.md'), 'Node sees /plan.md')

    // Rename it inline (F2 on the selected row).
    await item(pa, 'plan.md').click()
    await item(pa, 'plan.md').press('F2')
    const input = pa.getByLabel('New name for plan.md')
    await input.fill('roadmap.md')
    await input.press('Enter')
    await item(pb, 'roadmap.md').waitFor()
    await until(
      async () => (await node.fs.exists('/roadmap.md')) && !(await node.fs.exists('/plan.md')),
      'Node rename',
    )

    // Drag it into /notes.
    await item(pa, 'roadmap.md').dragTo(item(pa, 'notes'))
    await until(() => node.fs.exists('/notes/roadmap.md'), 'Node sees the move')
    await item(pb, 'notes').click()
    await item(pb, 'roadmap.md').waitFor()
    expect(await item(pb, 'roadmap.md').getAttribute('aria-level')).toBe('2')

    // Delete to the trash with the Delete key, restore from the Trash view.
    await item(pa, 'roadmap.md').click()
    await item(pa, 'roadmap.md').press('Delete')
    await item(pb, 'roadmap.md').waitFor({ state: 'detached' })
    await until(async () => !(await node.fs.exists('/notes/roadmap.md')), 'Node sees the delete')
    expect(node.fs.trash.list().map((e) => e.name)).toContain('roadmap.md')
    await pa.getByRole('button', { name: 'Trash', exact: true }).click()
    await screenshot(pa, 'trash')
    await pa.getByRole('button', { name: 'Restore roadmap.md' }).click()
    await until(() => node.fs.exists('/notes/roadmap.md'), 'Node sees the restore')
    await item(pb, 'roadmap.md').waitFor()

    // Empty the trash (after confirming): gone for good, for Node too; B's open Trash view follows.
    await node.fs.rm('/README.md')
    await pb.getByRole('button', { name: 'Trash', exact: true }).click()
    await pb.getByRole('button', { name: 'Restore README.md' }).waitFor()
    await pa.getByRole('button', { name: 'Empty trash' }).click()
    await pa.getByRole('alertdialog').getByRole('button', { name: 'Delete for good' }).click()
    await until(() => node.fs.trash.list().length === 0, 'Node sees the trash emptied')
    await pb.getByText('The trash is empty.').waitFor()
    expect(await node.fs.exists('/README.md')).toBe(false)
    await a.close()
    await b.close()
  })

  it('shows readable errors next to their cause: a taken name on rename and on create', async () => {
    const { ws } = await seeded()
    const context = await personContext(browser, 'Ana')
    const { page } = await openPage(context, ws.appUrl())
    await item(page, 'README.md').click()
    await page.keyboard.press('F2')
    const input = page.getByLabel('New name for README.md')
    await input.fill('notes')
    await input.press('Enter')
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('“notes” already exists in the top folder. Choose another name.')
    await screenshot(page, 'rename-error')
    await input.press('Escape')
    await item(page, 'README.md').waitFor()
    await page.getByRole('button', { name: 'New folder' }).click()
    await page.getByLabel('New folder in').fill('src')
    await page.getByLabel('New folder in').press('Enter')
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('“src” already exists')
    await context.close()
  })

  it('follows an agent running bash while the page is open, and shows duplicate-name suffixes', async () => {
    const { ws, node } = await seeded()
    const context = await personContext(browser, 'Ana')
    const { page } = await openPage(context, ws.appUrl())
    await item(page, 'src').waitFor()
    const tools = createToolRegistry(node.fs)
    const run = async (script: string) => {
      const result = await tools.execute('bash', { script })
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    }
    await run('mkdir -p /docs && echo "# Guide" > /docs/guide.md && mv /README.md /docs/README.md')
    await item(page, 'docs').waitFor()
    await item(page, 'README.md').waitFor({ state: 'detached' })
    await item(page, 'docs').click()
    await item(page, 'guide.md').waitFor()
    await item(page, 'README.md').waitFor()
    await run('mv /docs /handbook')
    await item(page, 'handbook').waitFor()
    // The folder keeps its expanded state across the rename (expanded by id).
    await item(page, 'guide.md').waitFor()

    // Two replicas create the same name at once: the tree shows the filesystem's display names.
    const twin = await ws.connect()
    twin.socket.disconnect()
    await until(() => !twin.status().online, 'twin offline')
    await twin.fs.writeFile('/same.txt', 'from twin')
    await node.fs.writeFile('/same.txt', 'from node')
    await node.flush()
    twin.socket.connect()
    await twin.flush()
    await node.flush()
    await until(
      () => node.fs.index.childNames(node.fs.index.lookup('/')!).includes('same (1).txt'),
      'suffix in Node',
    )
    const shown = node.fs.index.childNames(node.fs.index.lookup('/')!).filter((n) => n.startsWith('same'))
    for (const name of shown) await item(page, name).waitFor()
    await context.close()
  })

  it('opens read-only with a read token: no create, rename, delete or drag', async () => {
    const { ws } = await seeded()
    const context = await personContext(browser, 'Ana')
    const { page } = await openPage(context, ws.appUrl(ws.readToken))
    await item(page, 'src').waitFor()
    await page.getByRole('note').filter({ hasText: 'read-only' }).waitFor()
    expect(await page.getByRole('button', { name: 'New file' }).isDisabled()).toBe(true)
    expect(await item(page, 'README.md').getAttribute('draggable')).toBe('false')
    await item(page, 'README.md').click()
    await page.keyboard.press('Delete')
    await page.keyboard.press('F2')
    expect(await page.getByLabel('New name for README.md').count()).toBe(0)
    await item(page, 'README.md').waitFor()
    // Files open read-only, with their content.
    await item(page, 'src').click()
    await item(page, 'main.ts').click()
    await page.getByText('export const main = 1').waitFor()
    await screenshot(page, 'read-only')
    await context.close()
  })
})
