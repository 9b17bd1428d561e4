/**
 * Smoke test: the built app loads in Chromium from a real `yfs serve`, with the
 * Content-Security-Policy on the page, and nothing logged as an error.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeBrowser, launchBrowser, openPage, startServer, type TestServer } from './harness.js'

describeBrowser('the app in Chromium', () => {
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

  it('loads the page from yfs serve with its CSP and no console errors', async () => {
    const ws = await server.createWorkspace()
    const context = await browser.newContext()
    const response = context.waitForEvent('response', (r) => r.url() === `${server.http}/`)
    const { page } = await openPage(context, ws.appUrl())
    const document = await response
    expect(document.status()).toBe(200)
    expect(document.headers()['content-security-policy']).toContain("script-src 'self'")
    expect(await page.title()).toBe('yfs')
    // The app mounted (main.ts ran under the CSP: no inline script needed).
    await page.locator('#app > *').first().waitFor()
    // Every script the page loaded came from the server's own origin.
    const scripts = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => (e as PerformanceResourceTiming).initiatorType === 'script')
        .map((e) => e.name),
    )
    for (const src of scripts) expect(src.startsWith(`${server.http}/`)).toBe(true)
    await context.close()
  })

  it('a Node client and the page use the same server', async () => {
    const ws = await server.createWorkspace()
    const agent = await ws.connect()
    await agent.fs.writeFile('/hello.txt', 'hi')
    await agent.flush()
    const other = await ws.connect(ws.readToken)
    expect(await other.fs.readFile('/hello.txt')).toBe('hi')
    expect(other.readOnly).toBe(true)
  })
})
