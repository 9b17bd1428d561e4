/**
 * `pnpm start`, the README's main command, end to end: the root `start` script runs as written in
 * package.json (build when stale, then `yfs start`) on a free port (YFS_PORT=0) with its data in a
 * temp folder (YFS_DATA). It prints one URL with the workspace and token in the fragment; the page
 * loads from it with its CSP, a Node @yfs/client connects with the printed token and finds the demo
 * files, the app shows them in Chromium, and a second start reuses the workspace and token and
 * leaves people's changes alone.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectWorkspace } from '@yfs/client'
import { spawnProcess, stopSpawned } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { personContext, treeItem } from './app-helpers.js'
import { browserUnavailable, launchBrowser, openPage, REPO_ROOT } from './harness.js'

interface Started {
  child: ChildProcess
  url: URL
  token: string
  stdout: () => string
  exited: Promise<number | null>
}

/** Run the root `start` script exactly as package.json has it, and wait for the URL line. */
async function pnpmStart(dataDir: string): Promise<Started> {
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string }
  }
  const started = spawnProcess('sh', ['-c', pkg.scripts.start], {
    cwd: REPO_ROOT,
    env: { ...process.env, YFS_PORT: '0', YFS_DATA: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    group: true, // its own process group: the teardown signals sh and node together
  })
  const line = await started.waitForOutput(
    (p) => {
      const out = p.stdout()
      // The banner ends with the agent's command; a pipe may deliver it in pieces.
      return /--store demo\n/.test(out) && /^\s*(http:\/\/\S+#workspace=demo&token=\S+)\s*$/m.exec(out)
    },
    'pnpm start to print its URL',
    90_000,
  )
  const url = new URL(line[1]!)
  const token = decodeURIComponent(/token=([^&]+)/.exec(url.hash)![1]!)
  return { child: started.child, url, token, stdout: started.stdout, exited: started.exited }
}

/**
 * Stop like Ctrl-C stops a terminal's job, but observably: SIGTERM to the server (the shell's child),
 * so the shell exits with the server's own exit code. Without /proc, the whole group.
 */
async function stop(started: Started): Promise<number | null> {
  const pid = started.child.pid!
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => undefined)
  const server = children?.trim().split(/\s+/).filter(Boolean).map(Number)
  if (server?.length) for (const child of server) process.kill(child, 'SIGTERM')
  else process.kill(-pid, 'SIGTERM')
  return started.exited
}

describe('pnpm start', () => {
  let dataDir: string

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'yfs-start-'))
  })
  afterAll(async () => {
    await stopSpawned()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('prints an openable URL, serves the app and seeds the demo workspace once', async () => {
    const first = await pnpmStart(dataDir)
    expect(first.url.pathname).toBe('/')
    expect(first.url.hostname).toBe('127.0.0.1')
    // Exactly one line a person opens; the token appears nowhere else except the agent command.
    expect(first.stdout().match(/http:\/\/\S+#workspace=/g)).toHaveLength(1)
    expect(first.stdout()).toContain(
      `yfs mcp --server ws://127.0.0.1:${first.url.port} --token ${first.token} --store demo`,
    )

    const page = await fetch(new URL('/', first.url))
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(await page.text()).toContain('<div id="app">')
    // The token is kept for later starts, readable by the owner only.
    expect((await stat(join(dataDir, 'demo.json'))).mode & 0o077).toBe(0)

    const ws = `ws://127.0.0.1:${first.url.port}`
    const node = await connectWorkspace({
      url: ws,
      workspace: 'demo',
      token: first.token,
      fs: { codecs: [markdownCodec] },
    })
    expect(node.readOnly).toBe(false)
    expect(
      (await node.fs.readdir('/')).filter((n) => !['bin', 'usr', 'dev', 'proc', 'tmp'].includes(n)),
    ).toEqual(['README.md', 'assets', 'notes', 'src'])
    const readme = await node.fs.readFile('/README.md')
    expect(readme).toMatch(/^---\ntitle: Demo workspace\n/)
    expect(await node.fs.readFile('/notes/todo.md')).toContain('- [ ] ')
    expect(await node.fs.readdir('/src')).toEqual(['greet.ts', 'lib', 'main.ts'])
    const png = await node.fs.readFileBuffer('/assets/logo.png')
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

    // What a person or agent does to the demo files must survive the next start.
    await node.fs.writeFile('/README.md', `${readme}\nEdited before a restart.\n`)
    await node.fs.rm('/notes/meeting-2026-03-02.md')
    await node.flush()

    const reason = browserUnavailable()
    if (reason) process.stderr.write(`[web] pnpm start: browser part skipped: ${reason}\n`)
    else {
      const browser = await launchBrowser()
      try {
        const context = await personContext(browser, 'Newcomer')
        const { page: app, errors } = await openPage(context, first.url.href)
        await treeItem(app, 'README.md').waitFor()
        await treeItem(app, 'src').waitFor()
        expect(app.url()).not.toContain('token')
        errors.assertNone()
      } finally {
        await browser.close()
      }
    }
    await node.close()
    expect(await stop(first)).toBe(0)

    const second = await pnpmStart(dataDir)
    try {
      expect(second.token).toBe(first.token)
      const again = await connectWorkspace({
        url: `ws://127.0.0.1:${second.url.port}`,
        workspace: 'demo',
        token: second.token,
        fs: { codecs: [markdownCodec] },
      })
      expect(await again.fs.readFile('/README.md')).toContain('Edited before a restart.')
      expect(await again.fs.exists('/notes/meeting-2026-03-02.md')).toBe(false)
      expect(await again.fs.exists('/notes/todo.md')).toBe(true)
      await again.close()
    } finally {
      expect(await stop(second)).toBe(0)
    }
  })
})
