/**
 * The browser test harness: a real `yfs serve` child process serving the
 * built app, Debian's Chromium driven by playwright-core, workspaces and
 * tokens through the admin API, a page-error collector and screenshots.
 *
 * @example
 * describeBrowser('tree', () => {
 *   let server: TestServer
 *   let browser: Browser
 *   beforeAll(async () => {
 *     server = await startServer()
 *     browser = await launchBrowser()
 *   })
 *   afterAll(async () => {
 *     await browser?.close()
 *     await server?.stop()
 *   })
 *   it('shows files', async () => {
 *     const ws = await server.createWorkspace()
 *     const agent = await ws.connect()
 *     await agent.fs.writeFile('/a.txt', 'hi')
 *     const { page } = await openPage(await browser.newContext(), ws.appUrl())
 *     await page.getByRole('treeitem', { name: 'a.txt' }).waitFor()
 *   })
 * })
 *
 * Chromium: $YFS_CHROMIUM or /usr/bin/chromium (`scripts/ensure-chromium.mjs`
 * installs it when it can). Without it `describeBrowser` skips and prints
 * why. The app must be built (the `web` project's global setup builds it
 * when missing or stale). Every process and temp folder the harness creates
 * is removed by `stop()` / `close()`, and the server child is killed when the
 * test process exits.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { accessSync, constants } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { describe, onTestFinished } from 'vitest'

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))
/** The built app `startServer` serves. */
export const APP_DIR = join(REPO_ROOT, 'apps/web/dist')
/** Where `screenshot` writes. */
/**
 * Where tests write their screenshots: an ignored folder (`.screenshots/`), so running the tests
 * leaves the working tree clean. `pnpm screenshots` runs the browser tests with
 * `YFS_SCREENSHOT_DIR=docs/screenshots` to refresh the README's pictures on purpose.
 */
export const SCREENSHOT_DIR = process.env.YFS_SCREENSHOT_DIR
  ? resolve(REPO_ROOT, process.env.YFS_SCREENSHOT_DIR)
  : join(REPO_ROOT, '.screenshots')
const YFS_BIN = join(REPO_ROOT, 'apps/cli/bin/yfs.js')

/** The Chromium executable the tests drive. */
export const CHROMIUM_PATH = process.env.YFS_CHROMIUM || '/usr/bin/chromium'

/** Flags for a quiet, reproducible headless Chromium (no sandbox: CI runs as root in a container). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
]

/** Why browser tests cannot run here, or `undefined` when Chromium is available. */
export function browserUnavailable(): string | undefined {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK)
    return undefined
  } catch {
    return `no Chromium at ${CHROMIUM_PATH} (install it with 'node scripts/ensure-chromium.mjs' as root, or set YFS_CHROMIUM)`
  }
}

let reported = false
/**
 * `describe` for tests that need Chromium: without it the suite is skipped
 * and the reason printed (never silently).
 */
export function describeBrowser(name: string, body: () => void): void {
  const reason = browserUnavailable()
  if (!reason) {
    describe(name, body)
    return
  }
  if (!reported) {
    reported = true
    process.stderr.write(`[web] browser tests skipped: ${reason}\n`)
  }
  describe.skip(`${name} (skipped: ${reason})`, body)
}

/**
 * Launch headless Chromium with `CHROMIUM_ARGS`. Playwright gives each
 * launch a fresh temporary profile (user-data dir) and removes it on
 * `close()`; each `browser.newContext()` is a separate, empty session
 * (its own storage, IndexedDB and cookies).
 */
export async function launchBrowser(options: { args?: string[] } = {}): Promise<Browser> {
  const reason = browserUnavailable()
  if (reason) throw new Error(reason)
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
  })
}

/** A workspace on a test server with a write and a read token. */
export interface TestWorkspace {
  readonly name: string
  readonly writeToken: string
  readonly readToken: string
  /** The app URL that signs in through the fragment (`#workspace=…&token=…`), write token by default. */
  appUrl(token?: string): string
  /** A Node `@yfs/client` connection (write token by default); closed by the server's `stop()`. */
  connect(token?: string): Promise<WorkspaceConnection>
}

/** A running `yfs serve` child process. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly http: string
  /** `ws://127.0.0.1:<port>` */
  readonly ws: string
  readonly port: number
  readonly adminToken: string
  /** The server's SQLite folder (removed by `stop()`). */
  readonly dataDir: string
  /** The server's JSON log lines so far. */
  readonly logs: Record<string, unknown>[]
  /** Create a workspace (default: a fresh random name) and a write and a read token for it. */
  createWorkspace(name?: string): Promise<TestWorkspace>
  /** Create one more token for an existing workspace. */
  createToken(workspace: string, role: 'read' | 'write'): Promise<string>
  /** Close every Node connection made through the harness, stop the server (SIGTERM, then SIGKILL) and remove its data. */
  stop(): Promise<void>
}

export interface StartServerOptions {
  /** More `yfs serve` flags. */
  args?: string[]
  /** The app folder to serve (default: apps/web/dist). */
  appDir?: string
  /** How long to wait for the `listening` log line (ms). Default 30 s. */
  timeoutMs?: number
}

const children = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

/**
 * Spawn a real `yfs serve` (SQLite in a temp folder, an admin token, port 0,
 * serving the built app) and wait until it listens.
 */
export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'yfs-web-'))
  const adminToken = `admin_${randomBytes(16).toString('hex')}`
  const child = spawn(
    process.execPath,
    [
      YFS_BIN,
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      '--app',
      options.appDir ?? APP_DIR,
      ...(options.args ?? []),
    ],
    // The admin token goes through the environment, not the process list.
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, YFS_ADMIN_TOKEN: adminToken } },
  )
  children.add(child)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  exited.then(() => children.delete(child))
  const logs: Record<string, unknown>[] = []
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`yfs serve did not start within ${options.timeoutMs ?? 30_000} ms: ${stderr}`))
    }, options.timeoutMs ?? 30_000)
    let buffered = ''
    child.stdout?.on('data', (chunk) => {
      buffered += chunk
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        let record: Record<string, unknown>
        try {
          record = JSON.parse(line) as Record<string, unknown>
        } catch {
          continue // not one of the server's JSON lines (a dependency printing)
        }
        logs.push(record)
        if (record.event === 'listening') {
          clearTimeout(timer)
          resolve(record.port as number)
        }
      }
    })
    exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`yfs serve exited before listening: ${stderr}`))
    })
  })

  const http = `http://127.0.0.1:${port}`
  const ws = `ws://127.0.0.1:${port}`
  const connections = new Set<WorkspaceConnection>()

  async function admin(path: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${http}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (response.status !== 200 && response.status !== 201) {
      throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
    }
    return (await response.json()) as Record<string, unknown>
  }

  const createToken = async (workspace: string, role: 'read' | 'write') =>
    (await admin(`/api/workspaces/${encodeURIComponent(workspace)}/tokens`, { role })).token as string

  return {
    http,
    ws,
    port,
    adminToken,
    dataDir,
    logs,
    createToken,
    async createWorkspace(name = `ws-${randomBytes(4).toString('hex')}`) {
      await admin('/api/workspaces', { id: name })
      const writeToken = await createToken(name, 'write')
      const readToken = await createToken(name, 'read')
      return {
        name,
        writeToken,
        readToken,
        appUrl: (token = writeToken) =>
          `${http}/#workspace=${encodeURIComponent(name)}&token=${encodeURIComponent(token)}`,
        async connect(token = writeToken) {
          const connection = await connectWorkspace({ url: ws, workspace: name, token })
          connections.add(connection)
          return connection
        },
      }
    },
    async stop() {
      await Promise.all([...connections].map((c) => c.close(2_000)))
      connections.clear()
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
        await exited
        clearTimeout(timer)
      }
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** Console errors and uncaught page errors seen on a page. */
export interface PageErrors {
  /** Messages so far (`console.error: …`, `pageerror: …`), minus allowed ones. */
  readonly messages: string[]
  /** Throw if any message was collected. */
  assertNone(): void
}

/**
 * Collect `console.error` messages and uncaught errors/unhandled rejections
 * (`pageerror`) of `page`. `allow` lists patterns a test expects (for example
 * the browser's own log line of a WebSocket refused on purpose).
 */
export function watchErrors(page: Page, allow: RegExp[] = []): PageErrors {
  const messages: string[] = []
  const add = (message: string) => {
    if (!allow.some((pattern) => pattern.test(message))) messages.push(message)
  }
  page.on('console', (message) => {
    if (message.type() === 'error') {
      const where = message.location().url
      add(`console.error: ${message.text()}${where ? ` (${where})` : ''}`)
    }
  })
  page.on('pageerror', (error) => add(`pageerror: ${error.stack ?? error.message}`))
  return {
    messages,
    assertNone() {
      if (messages.length > 0) throw new Error(`errors in the page:\n${messages.join('\n')}`)
    },
  }
}

/**
 * Open `url` in a new page of `context` with an error collector attached.
 * Called inside a test, the test fails at its end if the page logged a
 * console error or threw (call `errors.assertNone()` yourself elsewhere).
 */
export async function openPage(
  context: BrowserContext,
  url: string,
  options: { allow?: RegExp[] } = {},
): Promise<{ page: Page; errors: PageErrors }> {
  const page = await context.newPage()
  const errors = watchErrors(page, options.allow)
  try {
    onTestFinished(() => errors.assertNone())
  } catch (error) {
    // Outside a test (beforeAll): vitest refuses the hook; the caller asserts instead.
    if (!(error instanceof Error) || !/inside a test/i.test(error.message)) throw error
  }
  await page.goto(url)
  return { page, errors }
}

/** Save a PNG of `page` as <SCREENSHOT_DIR>/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new RangeError(`screenshot name must be kebab-case: ${name}`)
  await mkdir(SCREENSHOT_DIR, { recursive: true })
  const path = join(SCREENSHOT_DIR, `${name}.png`)
  await page.screenshot({ path, animations: 'disabled' })
  return path
}
