/**
 * The review panels (issue 23) in Chromium against a real `yfs serve`: the open file's History
 * (versions, a side-by-side diff of version 1 against now, restore as a new version seen by a
 * second browser), Activity (an agent session run through @yfs/agent's registry on a Node client,
 * undone from the panel after its dry-run report, reverted in both browsers and in Node) and
 * Checkpoints (create, an agent deletes a folder and edits a file, compare, restore).
 */
import { createToolRegistry } from '@yfs/agent'
import { type ActivityEntry, attachActivityLog } from '@yfs/core'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { axeViolations, personContext, treeItem, until } from './app-helpers.js'
import {
  describeBrowser,
  launchBrowser,
  openPage,
  screenshot,
  startServer,
  type TestServer,
} from './harness.js'

describeBrowser('review panels', () => {
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

  /** The open CodeMirror's lines, joined with newlines. */
  const editorText = (page: Page) =>
    page.locator('.cm-content').evaluate((el) =>
      Array.from(el.querySelectorAll('.cm-line'))
        .map((l) => l.textContent)
        .join('\n'),
    )

  it('History: diff version 1 against now, restore it as a new version seen by another browser', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.writeFile('/notes.txt', 'one\n')
    await node.fs.writeFile('/notes.txt', 'one\ntwo\n')
    await node.fs.writeFile('/notes.txt', 'one\ntwo\nthree\n')
    await node.flush()

    const ana = await personContext(browser, 'Ana')
    const ben = await personContext(browser, 'Ben')
    const { page: a } = await openPage(ana, ws.appUrl())
    const { page: b } = await openPage(ben, ws.appUrl())
    for (const page of [a, b]) {
      await treeItem(page, 'notes.txt').click()
      await expect.poll(() => editorText(page)).toContain('three')
    }

    await a.getByRole('button', { name: 'History', exact: true }).click()
    const versions = a.getByRole('list', { name: 'Versions' }).getByRole('button')
    await expect.poll(() => versions.count()).toBeGreaterThanOrEqual(3)
    const before = await versions.count()
    // Newest first: version 1 is the last row.
    await a.getByRole('button', { name: /^Version 1 · / }).click()
    const table = a.getByRole('table')
    await table.waitFor()
    expect(await table.getByRole('columnheader').allTextContents()).toEqual([
      expect.stringMatching(/^Version 1 · /),
      'Now',
    ])
    expect(await table.locator('tr.added .right').allTextContents()).toEqual(['two', 'three'])
    await screenshot(a, 'history')

    await a.getByRole('button', { name: 'Restore version 1' }).click()
    await a.getByRole('status').filter({ hasText: 'Restored version 1 as a new version.' }).waitFor()
    await expect.poll(() => versions.count()).toBe(before + 1)
    await until(
      async () => (await node.fs.readFile('/notes.txt')) === 'one\n',
      'Node reads the restored text',
    )
    await expect.poll(() => editorText(b)).toBe('one\n')
    // A change after the list was read: the panel says so and shows the latest on request.
    await node.fs.writeFile('/notes.txt', 'one\nfour\n')
    await a.getByText('The file changed since this list was read.').waitFor()
    await a.getByRole('button', { name: 'Show the latest' }).click()
    await expect.poll(() => versions.count()).toBe(before + 2)

    // Keyboard: the button is reachable, and Close history gives focus back to it.
    await a.getByRole('button', { name: 'Close history' }).click()
    await expect.poll(() => a.evaluate(() => document.activeElement?.textContent)).toBe('History')
    await ana.close()
    await ben.close()
  })

  it('Activity: an agent session shows up and is undone from the panel in both browsers', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.mkdir('/src')
    await node.fs.writeFile('/src/a.txt', 'alpha\n')
    await node.fs.writeFile('/keep.txt', 'keep\n')
    await node.flush()

    const ana = await personContext(browser, 'Ana')
    const ben = await personContext(browser, 'Ben')
    const { page: a } = await openPage(ana, ws.appUrl())
    const { page: b } = await openPage(ben, ws.appUrl())
    for (const page of [a, b]) {
      await treeItem(page, 'keep.txt').waitFor()
      await treeItem(page, 'src').click()
      await treeItem(page, 'a.txt').waitFor()
    }

    const agent = createToolRegistry(node.fs, { activity: { who: () => 'test-agent' } })
    for (const [tool, args] of [
      ['write_file', { path: 'vfs:///src/a.txt', content: 'alpha\nbeta\n' }],
      ['bash', { script: 'echo gamma > /src/new.txt && mv /keep.txt /kept.txt' }],
    ] as const) {
      const result = await agent.execute(tool, args)
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    }
    await node.flush()
    for (const page of [a, b]) {
      await treeItem(page, 'new.txt').waitFor()
      await treeItem(page, 'kept.txt').waitFor()
    }

    await a.getByRole('button', { name: 'Activity', exact: true }).click()
    const entries = a.getByRole('list', { name: 'Activity entries' })
    await entries.getByRole('button', { name: /^bash by test-agent/ }).click()
    await a.getByRole('list', { name: 'Files this entry changed' }).getByText('/src/new.txt').waitFor()
    await a.getByRole('button', { name: 'Diff of /src/new.txt' }).click()
    await expect
      .poll(() => a.getByRole('table').locator('tr.added .right').allTextContents())
      .toEqual(['gamma'])

    await a.getByRole('button', { name: 'Undo this session…' }).click()
    const dialog = a.getByRole('alertdialog')
    await dialog.waitFor()
    const planned = await dialog
      .getByRole('list', { name: 'What will change' })
      .getByRole('listitem')
      .allTextContents()
    expect(planned.sort()).toEqual([
      'move /keep.txt (now at /kept.txt)',
      'revert /src/a.txt',
      'trash /src/new.txt',
    ])
    // Nothing changed yet: the dry run only reports.
    expect(await node.fs.exists('/src/new.txt')).toBe(true)
    await screenshot(a, 'activity-undo')

    await dialog.getByRole('button', { name: 'Undo session' }).click()
    await a
      .getByRole('status')
      .filter({ hasText: /^Undid 3 changes of session \S+$/ })
      .waitFor()
    await until(
      async () =>
        !(await node.fs.exists('/src/new.txt')) &&
        (await node.fs.exists('/keep.txt')) &&
        (await node.fs.readFile('/src/a.txt')) === 'alpha\n',
      'Node sees the session undone',
    )
    for (const page of [a, b]) {
      await treeItem(page, 'new.txt').waitFor({ state: 'detached' })
      await treeItem(page, 'keep.txt').waitFor()
      await treeItem(page, 'kept.txt').waitFor({ state: 'detached' })
    }
    // The undo is itself an entry, in Ana's name.
    await entries.getByRole('button', { name: /^undo by user:Ana/ }).waitFor()
    await screenshot(a, 'activity')
    await ana.close()
    await ben.close()
  })

  it('Activity: undo keeps the lines a person typed since, and says so before it runs', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.writeFile('/plan.txt', 'a\nb\nc\n')
    await node.flush()
    const agent = createToolRegistry(node.fs, { activity: { who: () => 'test-agent' } })
    const result = await agent.execute('write_file', { path: 'vfs:///plan.txt', content: 'A\nb\nC\n' })
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    await node.flush()

    const ben = await personContext(browser, 'Ben')
    const { page: b } = await openPage(ben, ws.appUrl())
    await treeItem(b, 'plan.txt').click()
    await expect.poll(() => editorText(b)).toBe('A\nb\nC\n')
    await b.locator('.cm-line').nth(0).click()
    await b.keyboard.press('End')
    await b.keyboard.type('!')
    await until(async () => (await node.fs.readFile('/plan.txt')) === 'A!\nb\nC\n', 'Node sees Ben’s edit')

    const ana = await personContext(browser, 'Ana')
    const { page: a } = await openPage(ana, ws.appUrl())
    await a.getByRole('button', { name: 'Activity', exact: true }).click()
    await a.getByRole('button', { name: /^write_file by test-agent/ }).click()
    await a.getByRole('button', { name: 'Undo this session…' }).click()
    const dialog = a.getByRole('alertdialog')
    await dialog.getByRole('list', { name: 'Kept as they are' }).waitFor()
    expect(
      await dialog.getByRole('list', { name: 'What will change' }).getByRole('listitem').allTextContents(),
    ).toEqual(['revert /plan.txt'])
    expect(
      await dialog.getByRole('list', { name: 'Kept as they are' }).getByRole('listitem').allTextContents(),
    ).toEqual(['kept /plan.txt: lines changed since by someone else were kept (line 1)'])
    await screenshot(a, 'activity-undo-conflict')
    await dialog.getByRole('button', { name: 'Undo session' }).click()
    await a
      .getByRole('status')
      .filter({ hasText: /kept 1 because someone changed them since$/ })
      .waitFor()
    await until(
      async () => (await node.fs.readFile('/plan.txt')) === 'A!\nb\nc\n',
      'Node: line 3 reverted, line 1 kept',
    )
    await expect.poll(() => editorText(b)).toBe('A!\nb\nc\n')
    // People's edits join the timeline on request: Ben's, with a diff against the version before.
    await a.getByLabel('People’s edits').check()
    await a
      .getByRole('button', { name: /^(edit|save) by user:Ben/ })
      .first()
      .click()
    await a.getByRole('button', { name: 'Diff against the version before' }).click()
    await expect
      .poll(() => a.getByRole('table').locator('tr.changed .right').allTextContents())
      .toEqual(['A!'])
    await screenshot(a, 'activity-people-edits')
    await ana.close()
    await ben.close()
  })

  it('Checkpoints: create, compare after an agent deletes a folder and edits a file, restore', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.mkdir('/docs')
    await node.fs.writeFile('/docs/guide.md', '# Guide\n')
    await node.fs.writeFile('/b.txt', 'first\n')
    await node.flush()

    const ana = await personContext(browser, 'Ana')
    const { page: a } = await openPage(ana, ws.appUrl())
    await treeItem(a, 'docs').waitFor()
    await a.getByRole('button', { name: 'Checkpoints', exact: true }).click()
    await a.getByLabel('New checkpoint').fill('before the agent')
    await a.getByRole('button', { name: 'Create checkpoint' }).click()
    await a.getByRole('status').filter({ hasText: 'Checkpoint “before the agent” created.' }).waitFor()
    await until(() => node.fs.checkpoints().length === 1, 'Node sees the checkpoint')

    const agent = createToolRegistry(node.fs)
    const result = await agent.execute('bash', { script: 'rm -r /docs && echo second > /b.txt' })
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    await node.flush()
    await treeItem(a, 'docs').waitFor({ state: 'detached' })

    await a.getByRole('button', { name: 'Compare with now: “before the agent”' }).click()
    const changes = a.getByRole('region', { name: 'Changes since “before the agent”' })
    await changes.getByText('/docs/guide.md').waitFor()
    await changes.getByText('/b.txt', { exact: true }).click()
    // Side by side: the checkpoint's line on the left, now's on the right, in one row.
    await changes.getByRole('columnheader', { name: 'At “before the agent”' }).waitFor()
    const row = changes.getByRole('row').filter({ hasText: 'first' }).filter({ hasText: 'second' })
    expect(await row.getByRole('cell').allTextContents()).toEqual(['1', 'first', '1', 'second'])
    await screenshot(a, 'checkpoints')

    await a.getByRole('button', { name: 'Restore “before the agent”' }).click()
    await a.getByRole('button', { name: 'Restore checkpoint' }).click()
    await a.getByRole('status').filter({ hasText: 'Restored “before the agent”.' }).waitFor()
    await until(
      async () =>
        (await node.fs.exists('/docs/guide.md')) && (await node.fs.readFile('/b.txt')) === 'first\n',
      'Node sees the checkpoint restored',
    )
    await treeItem(a, 'docs').waitFor()
    // The safety checkpoint core takes first is listed too.
    await a.getByText("before restoring 'before the agent'").waitFor()
    await ana.close()
  })
  it('Markdown and binary history, axe on every panel, and read-only tokens: no restore, undo or create', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.writeFile('/doc.md', '# One\n')
    await node.fs.writeFile('/doc.md', '# One\n\nTwo *words*\n')
    await node.fs.writeFile('/pic.bin', new Uint8Array([0, 1, 2, 255]))
    await node.fs.writeFile('/pic.bin', new Uint8Array([0, 1, 2, 255, 7, 7]))
    const agent = createToolRegistry(node.fs, { activity: { who: () => 'test-agent' } })
    expect(
      (await agent.execute('write_file', { path: 'vfs:///new.txt', content: 'x\n' })).isError,
    ).toBeFalsy()
    await node.fs.checkpoint('base')
    await node.flush()

    const ana = await personContext(browser, 'Ana')
    const { page: a } = await openPage(ana, ws.appUrl())
    await treeItem(a, 'doc.md').click()
    await a.locator('.ProseMirror').waitFor()
    await a.getByRole('button', { name: 'History', exact: true }).click()
    await a.getByRole('button', { name: /^Version 1 · / }).click()
    // Markdown diffs on its Markdown text.
    await expect
      .poll(() => a.getByRole('table').locator('tr.added .right').allTextContents())
      .toEqual(['', 'Two *words*'])
    expect(await axeViolations(a)).toEqual([])
    await a.getByRole('button', { name: 'Close history' }).click()

    await treeItem(a, 'pic.bin').click()
    await a.getByRole('button', { name: 'History', exact: true }).click()
    await a.getByRole('button', { name: /^Version 1 · .* 4 B · binary$/ }).click()
    await a
      .getByText('Binary file: versions are listed with their sizes; there is no diff to show.')
      .waitFor()
    expect(await a.getByRole('table').count()).toBe(0)
    await a.getByRole('button', { name: /^Version 2 · .* 6 B · binary$/ }).waitFor()
    await screenshot(a, 'history-binary')

    await a.getByRole('button', { name: 'Activity', exact: true }).click()
    await a.getByRole('button', { name: /^write_file by test-agent/ }).click()
    await a.getByRole('button', { name: 'Undo this session…' }).waitFor()
    expect(await axeViolations(a)).toEqual([])
    await a.getByRole('button', { name: 'Checkpoints', exact: true }).click()
    await a.getByRole('button', { name: 'Compare with now: “base”' }).click()
    await a.getByText('Nothing changed since this checkpoint.').waitFor()
    expect(await axeViolations(a)).toEqual([])
    // One entry alone can be undone too.
    await a.getByRole('button', { name: 'Activity', exact: true }).click()
    await a.getByRole('button', { name: /^write_file by test-agent/ }).click()
    await a.getByRole('button', { name: 'Undo this entry…' }).click()
    await a.getByRole('heading', { name: 'Undo this write_file call?' }).waitFor()
    expect(
      await a.getByRole('list', { name: 'What will change' }).getByRole('listitem').allTextContents(),
    ).toEqual(['trash /new.txt'])
    await a.getByRole('button', { name: 'Undo entry' }).click()
    await a.getByRole('status').filter({ hasText: 'Undid 1 change of this write_file call' }).waitFor()
    await until(async () => !(await node.fs.exists('/new.txt')), 'Node sees the entry undone')
    await ana.close()

    const reader = await personContext(browser, 'Rea')
    const { page: r } = await openPage(reader, ws.appUrl(ws.readToken))
    await treeItem(r, 'doc.md').click()
    await r.getByRole('button', { name: 'History', exact: true }).click()
    await r.getByRole('button', { name: /^Version 1 · / }).click()
    await r.getByRole('table').waitFor()
    expect(await r.getByRole('button', { name: /^Restore/ }).count()).toBe(0)
    await r.getByRole('button', { name: 'Activity', exact: true }).click()
    await r.getByRole('button', { name: /^write_file by test-agent/ }).click()
    await r.getByRole('heading', { name: 'write_file by test-agent' }).waitFor()
    expect(await r.getByRole('button', { name: /^Undo/ }).count()).toBe(0)
    await r.getByRole('button', { name: 'Checkpoints', exact: true }).click()
    await r.getByText('base', { exact: true }).waitFor()
    expect(await r.getByRole('button', { name: /Create checkpoint|^Restore/ }).count()).toBe(0)
    expect(await axeViolations(r)).toEqual([])
    await reader.close()
  })

  it('Activity with 10,000 entries keeps a few rows in the DOM and reaches the oldest', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    const start = Date.now() - 10_000_000
    const entries: ActivityEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
      id: `e${String(i).padStart(11, '0')}`,
      time: start + i * 1000,
      session: `s${i % 7}`,
      who: i % 2 ? 'agent-a' : 'agent-b',
      tool: i === 0 ? 'oldest_call' : 'write_file',
      args: {},
      status: 'ok',
      durationMs: 1,
      files: [{ id: 'x', type: 'file', path: `/f${i % 50}.txt` }],
    }))
    attachActivityLog(node.fs.doc).append(entries)
    await node.flush()

    const ana = await personContext(browser, 'Ana')
    const { page: a } = await openPage(ana, ws.appUrl())
    const toggle = a.getByRole('button', { name: 'Activity', exact: true })
    const list = a.getByRole('list', { name: 'Activity entries' })
    await toggle.click()
    await a.getByText('10000 of 10000 entries').waitFor({ timeout: 30_000 })
    await toggle.click()
    await a.getByRole('heading', { name: 'No file open' }).waitFor()
    const opened = performance.now()
    await toggle.click()
    await list.getByRole('listitem').first().waitFor()
    process.stdout.write(
      `[web] Activity with 10,000 entries open in ${(performance.now() - opened).toFixed(0)} ms\n`,
    )
    expect(await list.getByRole('listitem').count()).toBeLessThan(100)
    expect(await list.getByRole('listitem').first().getAttribute('aria-setsize')).toBe('10000')
    // Scrolled to the bottom, the oldest is there; then the keys: ↑, Home, End.
    await a.locator('.scroller', { has: list }).evaluate((el) => {
      el.scrollTop = el.scrollHeight
    })
    await list.getByRole('button', { name: /^oldest_call by agent-b/ }).click()
    await a.getByRole('button', { name: /^oldest_call by agent-b/ }).press('ArrowUp')
    await expect.poll(() => a.evaluate(() => document.activeElement?.getAttribute('data-index'))).toBe('9998')
    await a.keyboard.press('Home')
    await expect.poll(() => a.evaluate(() => document.activeElement?.getAttribute('data-index'))).toBe('0')
    await a.keyboard.press('End')
    await expect.poll(() => a.evaluate(() => document.activeElement?.getAttribute('data-index'))).toBe('9999')
    expect(await list.getByRole('listitem').count()).toBeLessThan(100)
    await a.getByLabel('Who').selectOption('agent-a')
    await a.getByText('5000 of 10000 entries').waitFor()
    await a.getByLabel('Path').fill('/f3.txt')
    await a.getByText('200 of 10000 entries').waitFor()
    await ana.close()
  })
})
