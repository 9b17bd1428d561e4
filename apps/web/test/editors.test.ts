/**
 * The editors in Chromium against a real `yfs serve`: CodeMirror and the
 * rich-text editor sync between two people and with Node clients (agents
 * using @yfs/agent's bash), the editor follows an agent's edits and renames
 * without reload and keeps the person's cursor, hostile content never runs,
 * a 1 MB file opens, read tokens are read-only, binaries show type, size
 * and a preview. Screenshots of each editor go to docs/screenshots/.
 *
 * Node clients use the Markdown codec, like agents (`yfs mcp`) and the app.
 */
import { crc32, deflateSync } from 'node:zlib'
import { createToolRegistry } from '@yfs/agent'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { markdownCodec, splitFrontMatter } from '@yfs/markdown'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { personContext, treeItem } from './app-helpers.js'
import {
  describeBrowser,
  launchBrowser,
  openPage,
  screenshot,
  startServer,
  type TestServer,
  type TestWorkspace,
} from './harness.js'

/** A real 16×16 PNG (a teal square with a darker diagonal), built with zlib. */
function makePng(size = 16): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const out = Buffer.alloc(8 + data.length + 4)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body), 8 + data.length)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB
  const rows: number[] = []
  for (let y = 0; y < size; y++) {
    rows.push(0)
    for (let x = 0; x < size; x++) rows.push(...(x === y ? [15, 80, 80] : [20, 184, 166]))
  }
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(Buffer.from(rows))),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  )
}
const PNG = makePng(24)

describeBrowser('editors', () => {
  let server: TestServer
  let browser: Browser
  const clients: WorkspaceConnection[] = []
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    server = await startServer()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    for (const c of clients) await c.close(2_000)
    await browser?.close()
    await server?.stop()
  })

  /** A Node client with the Markdown codec (what agents use). */
  const agentClient = async (ws: TestWorkspace, token = ws.writeToken) => {
    const c = await connectWorkspace({
      url: server.ws,
      workspace: ws.name,
      token,
      fs: { codecs: [markdownCodec], author: 'agent:test' },
    })
    clients.push(c)
    return c
  }

  /** A browser context for a person already named `name` (the app opens without the name form). */
  const newContext = async (name = 'Ana') => {
    const context = await personContext(browser, name)
    contexts.push(context)
    return context
  }

  /** Open `path` by clicking through the tree (folders expand on click) and wait for its editor pane. */
  const openInTree = async (page: Page, path: string): Promise<void> => {
    const parts = path.split('/').filter(Boolean)
    for (const [i, part] of parts.entries()) {
      const row = treeItem(page, part)
      if (i < parts.length - 1 && (await row.getAttribute('aria-expanded')) === 'true') continue
      await row.click()
    }
    await page.getByRole('region', { name: `Editor: ${path}` }).waitFor()
  }

  /** Open the app as person `name` (a fresh context unless one is given) and open `path`. */
  const openFile = async (
    ws: TestWorkspace,
    path: string,
    options: { name?: string; token?: string; context?: BrowserContext } = {},
  ): Promise<Page> => {
    const context = options.context ?? (await newContext(options.name))
    const { page } = await openPage(context, ws.appUrl(options.token))
    page.on('dialog', (dialog) => {
      throw new Error(`unexpected dialog: ${dialog.type()} ${dialog.message()}`)
    })
    await openInTree(page, path)
    return page
  }

  const codeText = (page: Page) =>
    page.locator('.cm-content').evaluate((el) => {
      // CodeMirror keeps its EditorView on the content element's ancestor (cmView); read lines from the DOM.
      return Array.from(el.querySelectorAll('.cm-line'), (line) => line.textContent).join('\n')
    })

  it('typing in CodeMirror appears in the other browser, with a remote cursor and name', async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    await agent.fs.mkdir('/src')
    await agent.fs.writeFile(
      '/src/main.ts',
      "export function greet(name: string): string {\n  return 'hello ' + name\n}\n",
    )
    await agent.flush()
    const ana = await openFile(ws, '/src/main.ts', { name: 'Ana' })
    const ben = await openFile(ws, '/src/main.ts', { name: 'Ben' })
    await ana.locator('.cm-content').waitFor()
    await ben.locator('.cm-content').waitFor()
    // Ana goes to the end of line 2 and types.
    await ana.locator('.cm-line').nth(1).click()
    await ana.keyboard.press('End')
    await ana.keyboard.type(' // from Ana')
    await expect.poll(() => codeText(ben)).toContain("return 'hello ' + name // from Ana")
    // Ben sees Ana's caret with her name, and the pane lists her.
    await ben.locator('.cm-ySelectionCaret').first().waitFor()
    expect(await ben.locator('.cm-ySelectionInfo').first().textContent()).toBe('Ana')
    await ben.getByRole('list', { name: 'Also here' }).getByText('Ana').waitFor()
    // Syntax colours loaded lazily for TypeScript.
    await ben.locator('.cm-content span[class^="ͼ"]').first().waitFor()
    await ben.locator('.cm-line').nth(0).click()
    await ana.locator('.cm-ySelectionCaret').first().waitFor()
    await screenshot(ana, 'editor-code')
    // The Node client reads what Ana typed, and its history names her for it (the agent lists the
    // history at once: the version it records for her edits is in her name, not the agent's).
    await expect.poll(() => agent.fs.readFile('/src/main.ts')).toContain('// from Ana')
    const versions = await agent.fs.history('/src/main.ts')
    expect(versions[0]!.author).toBe('agent:test')
    expect(versions.slice(1).map((v) => v.author)).toEqual(versions.slice(1).map(() => 'user:Ana'))
    expect(versions.length).toBeGreaterThan(1)
    expect(await agent.fs.readVersion('/src/main.ts', versions.at(-1)!.id)).toBe(
      await agent.fs.readFile('/src/main.ts'),
    )
  })

  it('a rich-text edit is read back through the filesystem as the expected Markdown', async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    await agent.fs.writeFile(
      '/plan.md',
      '---\ntitle: Plan\ntags:\n  - web\n  - editors\n---\n# Plan\n\nFirst step.\n',
    )
    await agent.flush()
    const page = await openFile(ws, '/plan.md')
    const editor = page.getByRole('textbox', { name: '/plan.md' })
    await editor.getByText('First step.').click()
    await page.keyboard.press('End')
    await page.keyboard.type(' Then **ship** it.')
    await page.keyboard.press('Enter')
    await page.keyboard.type('- one')
    await page.keyboard.press('Enter')
    await page.keyboard.type('two')
    await page.keyboard.press('Enter')
    await page.keyboard.press('Enter')
    await page.keyboard.type('## Notes')
    await page.keyboard.press('Enter')
    await page.keyboard.type('Use `code` and *care*.')
    const expected =
      '---\ntitle: Plan\ntags:\n  - web\n  - editors\n---\n# Plan\n\nFirst step. Then **ship** it.\n\n- one\n- two\n\n## Notes\n\nUse `code` and *care*.\n'
    await expect.poll(() => agent.fs.readFile('/plan.md'), { timeout: 10_000 }).toBe(expected)
    // The toolbar: select "care" and make it bold instead.
    await editor.getByText('Use').click()
    await page.keyboard.press('End')
    await page.keyboard.press('Shift+ArrowLeft')
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowLeft')
    await page.getByRole('button', { name: 'Italic' }).click()
    await page.getByRole('button', { name: 'Bold' }).click()
    await expect.poll(() => agent.fs.readFile('/plan.md')).toContain('Use `code` and **care.**\n')
    // The front-matter form: change a value, add a key, remove a key.
    const title = page.getByRole('textbox', { name: 'Value of title' })
    await title.fill('Launch plan')
    await title.press('Enter')
    await page.getByRole('button', { name: '+ Add key' }).click()
    await page.getByRole('textbox', { name: 'New key' }).fill('owner')
    await page.getByRole('textbox', { name: 'New value' }).fill('ana')
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    const frontMatter = async () => splitFrontMatter(await agent.fs.readFile('/plan.md')).data
    await expect.poll(frontMatter).toEqual({ title: 'Launch plan', tags: ['web', 'editors'], owner: 'ana' })
    await page.getByRole('button', { name: 'Remove key tags' }).click()
    await expect.poll(frontMatter).toEqual({ title: 'Launch plan', owner: 'ana' })
    // A nested value is edited as YAML.
    const owner = page.getByRole('textbox', { name: 'Value of owner' })
    await owner.fill('[ana, ben]')
    await owner.press('Enter')
    await expect.poll(frontMatter).toEqual({ title: 'Launch plan', owner: ['ana', 'ben'] })
    expect(await agent.fs.readFile('/plan.md')).toContain('# Plan\n\nFirst step. Then **ship** it.\n')
    await screenshot(page, 'editor-rich-text')
  })

  it("two people in the rich-text editor see each other's edits and named cursors", async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    await agent.fs.writeFile('/shared.md', '# Shared\n\nAna writes here.\n\nBen writes here.\n')
    await agent.flush()
    const ana = await openFile(ws, '/shared.md', { name: 'Ana' })
    const ben = await openFile(ws, '/shared.md', { name: 'Ben' })
    const anaEditor = ana.getByRole('textbox', { name: '/shared.md' })
    const benEditor = ben.getByRole('textbox', { name: '/shared.md' })
    await anaEditor.getByText('Ana writes here.').click()
    await ana.keyboard.press('End')
    await ana.keyboard.type(' Hello from Ana.')
    await benEditor.getByText('Ben writes here.').click()
    await ben.keyboard.press('End')
    await ben.keyboard.type(' Hi from Ben.')
    // Polled on the whole editor text, so a failure shows what each editor holds.
    const paragraphs = (page: Page) =>
      page.locator('.ProseMirror p').evaluateAll((ps) =>
        ps.map((p) => {
          // Without the remote carets (widgets with the person's name in them).
          const copy = p.cloneNode(true) as HTMLElement
          for (const caret of Array.from(copy.querySelectorAll('.ProseMirror-yjs-cursor'))) caret.remove()
          return copy.textContent
        }),
      )
    const both = ['Ana writes here. Hello from Ana.', 'Ben writes here. Hi from Ben.']
    // Both at once: a failure then tells a keystroke lost in one editor from an edit that did not travel.
    await expect
      .poll(async () => ({ ana: await paragraphs(ana), ben: await paragraphs(ben) }), { timeout: 30_000 })
      .toEqual({ ana: both, ben: both })
    // Each sees the other's caret with their name.
    await ana.locator('.ProseMirror-yjs-cursor', { hasText: 'Ben' }).waitFor()
    await ben.locator('.ProseMirror-yjs-cursor', { hasText: 'Ana' }).waitFor()
    await expect
      .poll(() => agent.fs.readFile('/shared.md'))
      .toBe('# Shared\n\nAna writes here. Hello from Ana.\n\nBen writes here. Hi from Ben.\n')
    await screenshot(ana, 'editor-rich-presence')
  })

  it('renders every node of the Markdown schema; a task checkbox writes [x] back', async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    await agent.fs.mkdir('/notes')
    await agent.fs.writeFile('/notes/pixel.png', PNG)
    const text = [
      '# Release notes',
      '',
      'Ship the **editors** with ~~no~~ *some* `code` and a [link][docs].[^1]',
      '',
      '- [ ] write the tests',
      '- [x] land the pane',
      '',
      '| Editor | Binding |',
      '| :----- | ------: |',
      '| Code | y-codemirror.next |',
      '| Rich | y-prosemirror |',
      '',
      '> Quoted, with a picture: ![a pixel](pixel.png)',
      '',
      '```ts',
      'const answer = 42',
      '```',
      '',
      '<div class="raw">kept as source</div>',
      '',
      '---',
      '',
      '[^1]: A footnote.',
      '',
      '[docs]: https://example.com/docs "Docs"',
      '',
    ].join('\n')
    await agent.fs.writeFile('/notes/release.md', text)
    await agent.flush()
    const page = await openFile(ws, '/notes/release.md')
    const editor = page.getByRole('textbox', { name: '/notes/release.md' })
    await editor.getByText('write the tests').waitFor()
    expect(await editor.locator('table td').count()).toBe(4)
    expect(await editor.locator('pre.md-html').textContent()).toBe('<div class="raw">kept as source</div>')
    expect(await editor.locator('.raw').count()).toBe(0)
    await editor.getByText('[docs]: https://example.com/docs').waitFor()
    await editor.getByRole('img', { name: 'a pixel' }).waitFor()
    const boxes = editor.getByRole('checkbox', { name: 'Done' })
    expect(await boxes.count()).toBe(2)
    expect(await boxes.nth(1).isChecked()).toBe(true)
    await boxes.nth(0).click()
    await expect.poll(() => agent.fs.readFile('/notes/release.md')).toContain('- [x] write the tests\n')
    expect(await boxes.nth(0).isChecked()).toBe(true)
    // Everything else is still byte-identical.
    expect(await agent.fs.readFile('/notes/release.md')).toBe(text.replace('- [ ] write', '- [x] write'))
    await screenshot(page, 'editor-rich-gfm')
  })

  it('an agent edits and renames the open file: the editor follows without reload and keeps the cursor', async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    const tools = createToolRegistry(agent.fs)
    await agent.fs.mkdir('/notes')
    await agent.fs.writeFile('/notes/todo.txt', 'alpha\nbravo\ncharlie\n')
    await agent.flush()
    const page = await openFile(ws, '/notes/todo.txt')
    await page.evaluate(() => {
      ;(window as unknown as { __loaded: number }).__loaded = 1
    })
    // The person puts the cursor after "bravo".
    await page.locator('.cm-line').nth(1).click()
    await page.keyboard.press('End')
    // The agent inserts two lines above and changes the last one.
    const run = await tools.execute('bash', {
      script: "sed -i '1i intro\\nmore' /notes/todo.txt && sed -i 's/charlie/delta/' /notes/todo.txt",
    })
    expect(run.isError).toBeFalsy()
    await expect.poll(() => codeText(page)).toBe('intro\nmore\nalpha\nbravo\ndelta\n')
    // The cursor moved with its text: typing lands after "bravo".
    await page.keyboard.type('!')
    await expect.poll(() => agent.fs.readFile('/notes/todo.txt')).toBe('intro\nmore\nalpha\nbravo!\ndelta\n')
    // Undo takes back the person's own edit only, never the agent's.
    await page.keyboard.press('Control+z')
    await expect.poll(() => agent.fs.readFile('/notes/todo.txt')).toBe('intro\nmore\nalpha\nbravo\ndelta\n')
    await page.keyboard.press('Control+y')
    await expect.poll(() => agent.fs.readFile('/notes/todo.txt')).toBe('intro\nmore\nalpha\nbravo!\ndelta\n')
    // The agent moves the file: the pane follows (same page, no reload).
    await tools.execute('bash', { script: 'mkdir -p /archive && mv /notes/todo.txt /archive/todo.txt' })
    await page.getByRole('region', { name: 'Editor: /archive/todo.txt' }).waitFor()
    await page.keyboard.type('?')
    await expect
      .poll(() => agent.fs.readFile('/archive/todo.txt'))
      .toBe('intro\nmore\nalpha\nbravo!?\ndelta\n')
    // Renaming .txt to .md swaps to the rich-text editor on the same content.
    await agent.fs.mv('/archive/todo.txt', '/archive/todo.md')
    await page.getByRole('region', { name: 'Editor: /archive/todo.md' }).waitFor()
    await page.getByRole('textbox', { name: '/archive/todo.md' }).getByText('bravo!?').waitFor()
    expect(await page.locator('.cm-editor').count()).toBe(0)
    // …and back.
    await agent.fs.mv('/archive/todo.md', '/archive/todo.txt')
    await page.locator('.cm-editor').waitFor()
    expect(await page.evaluate(() => (window as unknown as { __loaded?: number }).__loaded)).toBe(1)
  })

  it('hostile Markdown and SVG never run in the page', async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    await agent.fs.mkdir('/notes')
    await agent.fs.writeFile(
      '/notes/x.md',
      '# Hostile\n\n<img src=x onerror="window.__pwned=1">\n\n<script>window.__pwned=1</script>\n\n' +
        'Inline <img src=y onerror="window.__pwned=1"> html and [a link](javascript:window.__pwned=1) ' +
        'and ![pic](http://127.0.0.1:1/evil.png)\n',
    )
    await agent.fs.writeFile(
      '/notes/evil.svg',
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" onload="window.__pwned=1">' +
        '<script>window.__pwned=1</script><rect width="40" height="40" fill="teal"/></svg>\n',
    )
    await agent.flush()
    const page = await openFile(ws, '/notes/x.md')
    await page.getByRole('textbox', { name: '/notes/x.md' }).getByText('Hostile').waitFor()
    const editor = page.getByRole('textbox', { name: '/notes/x.md' })
    expect(await editor.locator('img:not(.ProseMirror-separator)').count()).toBe(0)
    expect(await editor.locator('script').count()).toBe(0)
    expect(await editor.textContent()).toContain('onerror')
    // The javascript: link renders without an href.
    const link = editor.getByText('a link')
    expect(await link.evaluate((el) => el.closest('a')?.getAttribute('href') ?? null)).toBeNull()
    await link.click({ modifiers: ['Control'] })
    await screenshot(page, 'editor-hostile-markdown')
    await treeItem(page, 'evil.svg').click()
    await page.getByRole('region', { name: 'Editor: /notes/evil.svg' }).waitFor()
    await page.getByRole('img', { name: 'The SVG as drawn' }).waitFor()
    await page.waitForTimeout(300)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined()
  })

  it('a 1 MB text file opens, and its end is reachable', async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    const line = 'const value = "0123456789abcdef0123456789abcdef0123456789abcdef"; // padding\n'
    const count = Math.ceil((1024 * 1024) / line.length)
    await agent.fs.writeFile('/big.ts', `${line.repeat(count)}// the end\n`)
    await agent.flush()
    const page = await openFile(ws, '/big.ts')
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+End')
    await page.getByText('// the end').waitFor()
    await page.keyboard.type('// typed at the end')
    await expect
      .poll(() => agent.fs.readFile('/big.ts').then((t) => t.slice(-40)))
      .toContain('// typed at the end')
  })

  it('a read token opens every editor read-only', async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    await agent.fs.writeFile('/a.ts', 'const a = 1\n')
    await agent.fs.writeFile('/b.md', '---\ntitle: B\n---\n# B\n')
    await agent.flush()
    const page = await openFile(ws, '/a.ts', { token: ws.readToken })
    await page.locator('.editor-pane .read-only').waitFor()
    expect(await page.locator('.cm-content').getAttribute('contenteditable')).toBe('false')
    await treeItem(page, 'b.md').click()
    const rich = page
    const editor = rich.getByRole('textbox', { name: '/b.md' })
    await editor.getByText('B').waitFor()
    expect(await editor.getAttribute('contenteditable')).toBe('false')
    expect(
      await rich.getByRole('textbox', { name: 'Value of title' }).getAttribute('readonly'),
    ).not.toBeNull()
    expect(await rich.getByRole('toolbar', { name: 'Formatting' }).count()).toBe(0)
  })

  it('a binary file shows its type, size, a download and an image preview', async () => {
    const ws = await server.createWorkspace()
    const agent = await agentClient(ws)
    await agent.fs.writeFile('/logo.png', PNG)
    await agent.flush()
    const page = await openFile(ws, '/logo.png')
    await page.getByText('PNG image').waitFor()
    expect(await page.locator('.binary-size').textContent()).toContain(`${PNG.byteLength} bytes`)
    const download = page.getByRole('link', { name: 'Download logo.png' })
    expect(await download.getAttribute('href')).toMatch(/^blob:/)
    const img = page.getByRole('img', { name: 'Preview of logo.png' })
    await img.waitFor()
    expect(await img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(24)
    await screenshot(page, 'editor-binary')
  })
})
