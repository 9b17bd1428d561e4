/**
 * The packages as people install them: each `@yfs/*` library is packed
 * (`pnpm pack`, which builds it to JavaScript + .d.ts), installed with npm
 * into a fresh project outside the repository, and its README example runs
 * there in plain Node (no TypeScript loader). A TypeScript file importing
 * every package type-checks against the shipped declarations, and the
 * browser entry points bundle for the browser with no Node built-in.
 *
 * The `yfs` command (apps/cli, `@yfs/cli`) is packed too (its prepack bundles it with the server
 * and the sync daemon and copies in the web app's build) and installed beside them: `npx yfs
 * --help` and `npx yfs start` run from the tarball in plain Node, with one copy of yjs.
 *
 * Needs the npm registry for the packages' own dependencies: skipped, with
 * the reason printed, where it cannot be reached.
 */
import { execFile, spawn, spawnSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminSetup, type ServerProcess, spawnServer } from '../../apps/cli/test/spawn-server.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PACKAGES = ['core', 'markdown', 'protocol', 'client', 'agent'] as const
const PNPM = ['-y', 'pnpm@10.34.8']

const registry = spawnSync('npm', ['ping', '--fetch-timeout=5000', '--fetch-retries=0'], { encoding: 'utf8' })
const offline = registry.status !== 0
if (offline)
  console.log(`packaging tests skipped: the npm registry is not reachable (${registry.stderr.trim()})`)

/**
 * better-sqlite3's native binding, which its install script (skipped: --ignore-scripts) would
 * download or compile — minutes on a small machine — is the same file pnpm built for the
 * workspace (same version, same Node): copied in from there.
 */
function provideSqliteBinding(project: string): void {
  const fromWorkspace = createRequire(join(ROOT, 'apps/cli/package.json')).resolve(
    'better-sqlite3/package.json',
  )
  const binding = join('build', 'Release', 'better_sqlite3.node')
  const target = join(project, 'node_modules/better-sqlite3')
  expect(JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).version).toBe(
    JSON.parse(readFileSync(fromWorkspace, 'utf8')).version,
  )
  mkdirSync(join(target, 'build', 'Release'), { recursive: true })
  copyFileSync(join(fromWorkspace, '..', binding), join(target, binding))
}

/**
 * `npx yfs start --port 0` (any free port) in the install folder, in its own process group;
 * resolves with the URL it prints. `stop` ends the group (npx and the server) with SIGTERM.
 */
async function startPacked(
  project: string,
  data: string,
): Promise<{ url: string; output(): string; stop(): Promise<void> }> {
  const child = spawn('npx', ['--no', '--', 'yfs', 'start', '--port', '0', '--data', data], {
    cwd: project,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM')
    await exited
  }
  let out = ''
  let err = ''
  child.stderr!.on('data', (d) => {
    err += d
  })
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`yfs start printed no URL in 60 s: ${out}${err}`)),
        60_000,
      )
      child.stdout!.on('data', (d) => {
        out += d
        const match = /running on (http:\/\/[^\s]+) /.exec(out)
        if (match) {
          clearTimeout(timer)
          resolve(match[1]!)
        }
      })
      exited.then(() => {
        clearTimeout(timer)
        reject(new Error(`yfs start exited: ${out}${err}`))
      })
    })
    return { url, output: () => out, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** The first ```js block after a README's "## Example" heading. */
function readmeExample(pkg: string): string {
  const text = readFileSync(join(ROOT, 'packages', pkg, 'README.md'), 'utf8')
  const match = /^## Example\n[\s\S]*?^```js\n([\s\S]*?)^```$/m.exec(text)
  if (!match) throw new Error(`packages/${pkg}/README.md has no \`\`\`js example under "## Example"`)
  return match[1]!
}

describe.skipIf(offline)('packed @yfs/* packages installed with npm', () => {
  let project: string
  let packs: string
  let server: ServerProcess | undefined

  beforeAll(async () => {
    packs = mkdtempSync(join(tmpdir(), 'yfs-packs-'))
    project = mkdtempSync(join(tmpdir(), 'yfs-install-'))
    const dirs = [...PACKAGES.map((pkg) => join(ROOT, 'packages', pkg)), join(ROOT, 'apps/cli')]
    for (const cwd of dirs) await run('npx', [...PNPM, 'pack', '--pack-destination', packs], { cwd })
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'p', private: true, type: 'module' }))
    const tarballs = [...PACKAGES, 'cli'].map((pkg) => join(packs, `yfs-${pkg}-0.1.0.tgz`))
    await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs], {
      cwd: project,
      maxBuffer: 1 << 24,
    })
    provideSqliteBinding(project)
  })
  afterAll(() => {
    server?.child.kill()
    rmSync(packs, { recursive: true, force: true })
    rmSync(project, { recursive: true, force: true })
  })

  const node = (file: string, env: Record<string, string> = {}) =>
    run(process.execPath, [file], { cwd: project, env: { ...process.env, ...env }, timeout: 60_000 })

  it('ship JavaScript, declarations, README and licence only (no tests, no TypeScript entry)', () => {
    for (const pkg of PACKAGES) {
      const manifest = JSON.parse(
        readFileSync(join(project, 'node_modules/@yfs', pkg, 'package.json'), 'utf8'),
      ) as { exports: Record<string, { types: string; default: string }>; license: string }
      expect(manifest.license).toBe('MIT')
      for (const entry of Object.values(manifest.exports)) {
        expect(Object.keys(entry)[0]).toBe('types')
        expect(entry.default).toMatch(/^\.\/dist\/.*\.js$/)
      }
      const files = spawnSync('find', ['.', '-name', '*.test.*'], {
        cwd: join(project, 'node_modules/@yfs', pkg),
        encoding: 'utf8',
      })
      expect(files.stdout.trim()).toBe('')
    }
  })

  it('core: the README example runs in plain Node', async () => {
    writeFileSync(join(project, 'core.mjs'), readmeExample('core'))
    expect((await node('core.mjs')).stdout).toContain('/src/a.ts:1:TODO: ship')
  })

  it('markdown: the README example runs in plain Node', async () => {
    writeFileSync(join(project, 'markdown.mjs'), readmeExample('markdown'))
    const { stdout } = await node('markdown.mjs')
    expect(stdout).toContain('title: Plan')
    expect(stdout).toContain('* [ ] ship it')
    expect(stdout).toContain('Plan\n====')
  })

  it('protocol: the README example runs in plain Node', async () => {
    writeFileSync(join(project, 'protocol.mjs'), readmeExample('protocol'))
    const { stdout } = await node('protocol.mjs')
    expect(stdout).toContain("kind: 'content'")
    expect(stdout).toContain(
      '{\\"v\\":\\"yfs.bulk.2\\",\\"op\\":\\"store\\",\\"req\\":8,\\"docs\\":[[\\"a\\",3]]}\\nAQID',
    )
    expect(stdout).toContain("[ [ 'a', Uint8Array(3) [ 1, 2, 3 ] ] ]")
    expect(stdout.trim().endsWith('undefined')).toBe(true)
  })

  it('agent: the README example runs in plain Node (bash in its worker thread) and exits by itself', async () => {
    writeFileSync(join(project, 'agent.mjs'), readmeExample('agent'))
    expect((await node('agent.mjs')).stdout).toContain('/src/a.ts:1:export const x = 1')
  })

  it('client: the README example runs in plain Node against a yfs server', async () => {
    const data = mkdtempSync(join(tmpdir(), 'yfs-pack-server-'))
    server = await spawnServer(['--data', data, '--admin-token', 'pack-admin'])
    const token = await adminSetup(server.http, 'pack-admin', 'demo')
    writeFileSync(join(project, 'client.mjs'), readmeExample('client'))
    const { stdout } = await node('client.mjs', { YFS_URL: server.url, YFS_TOKEN: token })
    expect(stdout).toContain('/notes.md:# hello')
  })

  it('the shipped declarations type-check a TypeScript user of every package', async () => {
    writeFileSync(
      join(project, 'use.ts'),
      [
        "import { createFileSystem, type YjsFileSystem } from '@yfs/core'",
        "import { fileSystemContract } from '@yfs/core/testing'",
        "import { markdownCodec } from '@yfs/markdown'",
        "import { parseDocName } from '@yfs/protocol'",
        "import { connectWorkspace } from '@yfs/client'",
        "import { createToolRegistry } from '@yfs/agent'",
        'const fs: YjsFileSystem = createFileSystem({ codecs: [markdownCodec] })',
        'export const names: string[] = fileSystemContract.map((c) => c.name)',
        "export const doc = parseDocName('w')?.kind",
        'export const tools = createToolRegistry(fs)',
        'export const connect: typeof connectWorkspace = connectWorkspace',
        '// @ts-expect-error: a wrong argument type is caught by the shipped types',
        "createFileSystem('nope')",
      ].join('\n'),
    )
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
    const args = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution']
    await run(process.execPath, [tsc, ...args, 'nodenext', '--target', 'es2022', 'use.ts'], { cwd: project })
  })

  it('the browser entry points bundle for the browser without Node built-ins', async () => {
    const { build } = await import('esbuild')
    writeFileSync(
      join(project, 'browser.mjs'),
      [
        "export * from '@yfs/core'",
        "export * from '@yfs/markdown'",
        "export * from '@yfs/protocol'",
        "export { connectWorkspace } from '@yfs/client'",
      ].join('\n'),
    )
    const result = await build({
      absWorkingDir: project,
      entryPoints: ['browser.mjs'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.some((p) => p.includes('@yfs/core/dist'))).toBe(true)
    // A Node built-in (node:fs, fs, path, …) fails the build for platform browser; none may appear.
    expect(inputs.filter((p) => p.startsWith('node:'))).toEqual([])
  })

  it('cli: the packed yfs is a bundle and the web app: no TypeScript, no workspace-only package', () => {
    const cli = join(project, 'node_modules/@yfs/cli')
    const manifest = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8')) as {
      bin: Record<string, string>
      license: string
      dependencies: Record<string, string>
    }
    expect(manifest.bin).toEqual({ yfs: './dist/yfs.cjs' })
    expect(manifest.license).toBe('MIT')
    for (const name of ['@yfs/server', '@yfs/sync', 'tsx'])
      expect(Object.keys(manifest.dependencies)).not.toContain(name)
    expect(Object.values(manifest.dependencies).filter((v) => v.startsWith('workspace:'))).toEqual([])
    const sources = spawnSync('find', ['.', '-name', '*.ts', '-o', '-name', '*.test.*'], {
      cwd: cli,
      encoding: 'utf8',
    })
    expect(sources.stdout.trim()).toBe('')
    expect(readFileSync(join(cli, 'dist/web/index.html'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'apps/web/dist/index.html'), 'utf8'),
    )
    for (const bundle of ['dist/yfs.mjs', 'dist/yfs-sync.mjs']) {
      const text = readFileSync(join(cli, bundle), 'utf8')
      expect(text, bundle).not.toMatch(/["']tsx(\/|["'])/)
      expect(text, bundle).not.toMatch(/["']@yfs\/(server|sync)(\/|["'])/)
    }
  })

  it('cli: yjs is installed once, shared by the bundle and the @yfs/* libraries', () => {
    const found = spawnSync('find', ['node_modules', '-path', '*/yjs/package.json'], {
      cwd: project,
      encoding: 'utf8',
    })
    expect(found.stdout.trim().split('\n')).toEqual(['node_modules/yjs/package.json'])
  })

  it('cli: `npx yfs --help` prints the help, in plain Node', async () => {
    const { stdout } = await run('npx', ['--no', '--', 'yfs', '--help'], { cwd: project, timeout: 60_000 })
    expect(stdout).toContain('Usage: yfs [options] [command]')
    for (const command of ['start', 'serve', 'sync', 'mcp', 'bash'])
      expect(stdout).toMatch(new RegExp(`^  ${command} `, 'm'))
    // `yfs sync` starts through its own bundle (the launcher's other branch).
    const sync = await run('npx', ['--no', '--', 'yfs', 'sync', '--help'], { cwd: project, timeout: 60_000 })
    expect(sync.stdout).toContain('Usage: yfs sync [options] <dir>')
  })

  it('cli: `npx yfs start` serves the web app at / and answers /healthz', async () => {
    const data = mkdtempSync(join(tmpdir(), 'yfs-pack-start-'))
    const started = await startPacked(project, data)
    try {
      const page = await fetch(`${started.url}/`)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toMatch(/text\/html/)
      expect(await page.text()).toBe(
        readFileSync(join(project, 'node_modules/@yfs/cli/dist/web/index.html'), 'utf8'),
      )
      const health = await fetch(`${started.url}/healthz`)
      expect(health.status).toBe(200)
      expect(await health.json()).toMatchObject({ status: 'ok' })
      // `yfs start` made the demo workspace in the data folder it was given, and tells an agent
      // to join it with the installed bin (the repository's `pnpm --silent yfs` is not there).
      expect(existsSync(join(data, 'demo.json'))).toBe(true)
      expect(started.output()).toMatch(
        /^ {4}npx yfs mcp --server ws:\/\/127\.0\.0\.1:\d+ --token yfs_\S+ --store demo$/m,
      )
    } finally {
      await started.stop()
      rmSync(data, { recursive: true, force: true })
    }
    await expect(fetch(`${started.url}/healthz`)).rejects.toThrow()
  })
})
