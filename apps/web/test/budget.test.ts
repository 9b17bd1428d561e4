/**
 * The page's JavaScript budget (issue 10): what Chromium loads from navigation until the tree is
 * interactive, before any file is opened, is at most 400 KB gzipped; it contains no just-bash
 * (the interpreter loads only where a shell runs) and no Node built-in stand-ins from Vite.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { personContext, treeItem } from './app-helpers.js'
import {
  APP_DIR,
  describeBrowser,
  launchBrowser,
  startServer,
  type TestServer,
  watchErrors,
} from './harness.js'
import { measureScripts, recordScripts, totalGzip } from './page-scripts.js'

/** Goal from issue 10. */
const BUDGET_GZIP_BYTES = 400 * 1024

describeBrowser('JavaScript budget', () => {
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

  it('loads at most 400 KB gzipped before the first file is opened, and no just-bash', async () => {
    const ws = await server.createWorkspace()
    const node = await ws.connect()
    await node.fs.mkdir('/src')
    await node.fs.writeFile('/src/main.ts', 'export const x = 1\n')
    await node.fs.writeFile('/README.md', '---\ntitle: Demo\n---\n# Demo\n')
    await node.flush()

    const context = await personContext(browser, 'Budget')
    const app = await context.newPage()
    const errors = watchErrors(app)
    const recorded = recordScripts(app)
    await app.goto(ws.appUrl())
    await treeItem(app, 'README.md').waitFor()

    const loaded = await measureScripts(recorded.paths)
    const total = totalGzip(loaded)
    process.stdout.write(
      `[web] JS before the first open: ${(total / 1024).toFixed(1)} KB gzipped in ${loaded.length} files ` +
        `(${loaded.map((s) => `${s.path} ${(s.gzipBytes / 1024).toFixed(1)} KB`).join(', ')})\n`,
    )
    expect(loaded.length).toBeGreaterThan(0)
    expect(total).toBeLessThanOrEqual(BUDGET_GZIP_BYTES)
    for (const script of loaded) {
      const text = await readFile(join(APP_DIR, script.path), 'utf8')
      expect([script.path, /just-bash/.test(text)]).toEqual([script.path, false])
    }
    errors.assertNone()
    await context.close()
  })

  it('the build has no Vite stand-ins for Node built-ins', async () => {
    const assets = await readdir(join(APP_DIR, 'assets'))
    expect(assets.filter((name) => name.startsWith('__vite-browser-external'))).toEqual([])
    for (const name of assets.filter((n) => n.endsWith('.js'))) {
      const text = await readFile(join(APP_DIR, 'assets', name), 'utf8')
      // An externalised built-in survives as a bare `node:` import, which a browser cannot load.
      expect([name, /\bfrom\s*["']node:|import\(\s*["']node:/.test(text)]).toEqual([name, false])
    }
  })
})
