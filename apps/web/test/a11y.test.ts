/**
 * Accessibility and hostile input in Chromium: keyboard-only use of the tree (Tab to the toolbar,
 * create a file, F2 rename, arrows, Enter to open, Delete), an axe-core scan of the main views with
 * no serious or critical violations, file names and presence names that look like markup rendered
 * as text (`window.__pwned` stays undefined), and presence: who views which file, in the tree.
 */
import { createToolRegistry } from '@yfs/agent'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { axeViolations, connectionPhase, personContext, treeItem, until } from './app-helpers.js'
import {
  describeBrowser,
  launchBrowser,
  openPage,
  screenshot,
  startServer,
  type TestServer,
} from './harness.js'

const item = treeItem
const HOSTILE = '<img src=x onerror=window.__pwned=1>.txt'

/** The accessible name (aria-label or text) of the focused element. */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement
    return el?.getAttribute('aria-label') ?? el?.textContent?.trim() ?? ''
  })

describeBrowser('accessibility and hostile input', () => {
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

  it('works with the keyboard alone: create, F2 rename, arrows, Enter to open, Delete', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.mkdir('/src')
    await node.fs.writeFile('/src/app.ts', 'export {}\n')
    await node.fs.writeFile('/notes.md', '# Notes\n')
    await node.flush()
    const context = await personContext(browser, 'Kim')
    const { page } = await openPage(context, ws.appUrl())
    await item(page, 'src').waitFor()

    // Tab from the top of the page to the "New file" button.
    for (let i = 0; i < 15 && (await focusedName(page)) !== 'New file'; i++) await page.keyboard.press('Tab')
    expect(await focusedName(page)).toBe('New file')
    await page.keyboard.press('Enter')
    await page.keyboard.type('draft.txt')
    await page.keyboard.press('Enter')
    await until(() => node.fs.exists('/draft.txt'), 'the file reaches Node')
    await expect.poll(() => focusedName(page)).toBe('draft.txt')

    await page.keyboard.press('F2')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('final.txt')
    await page.keyboard.press('Enter')
    await expect.poll(() => focusedName(page)).toBe('final.txt')
    await until(() => node.fs.exists('/final.txt'), 'the rename reaches Node')

    // Rows: src, final.txt, notes.md. Up to the folder, Right expands it, Down into it, Enter opens.
    await page.keyboard.press('Home')
    await expect.poll(() => focusedName(page)).toBe('src')
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => item(page, 'src').getAttribute('aria-expanded')).toBe('true')
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => focusedName(page)).toBe('app.ts')
    await page.keyboard.press('Enter')
    await page.getByRole('main', { name: 'Editor: /src/app.ts' }).waitFor()
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => focusedName(page)).toBe('src')
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => item(page, 'src').getAttribute('aria-expanded')).toBe('false')
    await page.keyboard.press('End')
    await expect.poll(() => focusedName(page)).toBe('notes.md')
    await page.keyboard.press('Delete')
    await until(async () => !(await node.fs.exists('/notes.md')), 'the delete reaches Node')
    expect(node.fs.trash.list().map((e) => e.name)).toEqual(['notes.md'])
    await context.close()
  })

  it('has no serious or critical axe violations in the main views', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.mkdir('/src')
    await node.fs.writeFile('/src/app.ts', 'export {}\n')
    await node.fs.writeFile('/README.md', '# Hi\n')
    await node.fs.writeFile('/old.txt', 'x')
    await node.fs.rm('/old.txt')
    await node.flush()

    const signIn = await browser.newContext()
    const { page: form } = await openPage(signIn, `${server.http}/`)
    await form.getByLabel('Your name').waitFor()
    expect(await axeViolations(form)).toEqual([])
    await signIn.close()

    const context = await personContext(browser, 'Kim')
    const { page } = await openPage(context, ws.appUrl())
    await item(page, 'src').click()
    await item(page, 'app.ts').click()
    await page.getByRole('main', { name: 'Editor: /src/app.ts' }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    // The rich-text editor, with its formatting toolbar.
    await item(page, 'README.md').click()
    await page.getByRole('toolbar', { name: 'Formatting' }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Trash', exact: true }).click()
    await page.getByRole('button', { name: 'Restore old.txt' }).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Back to files' }).click()
    await page.getByRole('button', { name: 'New folder' }).click()
    await page.getByLabel('New folder in').waitFor()
    expect(await axeViolations(page)).toEqual([])
    await context.close()

    const reader = await personContext(browser, 'Kim')
    const { page: readOnly } = await openPage(reader, ws.appUrl(ws.readToken))
    await item(readOnly, 'src').waitFor()
    expect(await axeViolations(readOnly)).toEqual([])
    await reader.close()
  })

  it('renders hostile file names and presence names as text', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    const tools = createToolRegistry(node.fs)
    const result = await tools.execute('bash', {
      script: `mkdir -p '/<b onmouseover=alert(1)>' && echo hi > '/${HOSTILE}' && echo x > '/<b onmouseover=alert(1)>/"><svg onload=window.__pwned=2>.md'`,
    })
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    await node.flush()
    // A peer whose presence name is markup, viewing the hostile file.
    node.main.awareness?.setLocalStateField('user', {
      name: '<img src=y onerror=window.__pwned=3>',
      color: 'red;x',
    })
    node.main.awareness?.setLocalStateField('viewing', node.fs.index.lookup(`/${HOSTILE}`) ?? null)

    const context = await personContext(browser, 'Kim')
    const dialogs: string[] = []
    const { page } = await openPage(context, ws.appUrl())
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    await item(page, HOSTILE).waitFor()
    await item(page, '<b onmouseover=alert(1)>').click()
    await item(page, '"><svg onload=window.__pwned=2>.md').waitFor()
    await item(page, '<b onmouseover=alert(1)>').hover()
    await item(page, HOSTILE).click()
    await page.getByRole('main', { name: `Editor: /${HOSTILE}` }).waitFor()
    await expect.poll(() => item(page, HOSTILE).getAttribute('aria-describedby')).toBeTruthy()
    expect(
      await page.locator(`#${await item(page, HOSTILE).getAttribute('aria-describedby')}`).textContent(),
    ).toContain('Viewed by <img src=y onerror=window.__pwned=3>')
    expect(await item(page, HOSTILE).textContent()).toContain(HOSTILE)
    expect(await page.locator('.rows img, .rows svg[onload], .rows b').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined()
    expect(dialogs).toEqual([])
    await screenshot(page, 'hostile-names')
    await context.close()
  })

  it('shows who views which file in the tree, and the people count in the status bar', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.writeFile('/shared.md', '# Shared\n')
    await node.fs.writeFile('/other.md', '# Other\n')
    await node.flush()
    const a = await personContext(browser, 'Ana')
    const b = await personContext(browser, 'Bo')
    const { page: pa } = await openPage(a, ws.appUrl())
    const { page: pb } = await openPage(b, ws.appUrl())
    await item(pa, 'shared.md').click()
    await expect.poll(() => connectionPhase(pb)).toBe('online')
    const described = async () => {
      const id = await item(pb, 'shared.md').getAttribute('aria-describedby')
      return id ? pb.locator(`#${id}`).textContent() : ''
    }
    await expect.poll(described).toContain('Viewed by Ana')
    // The accessible name stays the file name.
    expect(await item(pb, 'shared.md').getAttribute('aria-label')).toBe('shared.md')
    await expect.poll(() => pb.getByText(/other (person|people) here/).textContent()).toMatch(/[12] other/)
    await screenshot(pb, 'presence')
    await item(pa, 'other.md').click()
    await expect.poll(described).toBe('')
    await a.close()
    await b.close()
  })
})
