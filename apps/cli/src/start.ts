/**
 * `yfs start` (the README's `pnpm start`): the sync server with the web app
 * on SQLite under `./.yfs`, and a workspace to open.
 *
 * First start: creates workspace `demo`, a write token for it and the demo
 * files (through a real @yfs/client connection to the server, so they are
 * stored and relayed like anyone's edits). Later starts reuse them: the
 * token is kept in `<data>/demo.json` (mode 0600; the store itself keeps
 * only token hashes) and replaced only if it was revoked; the files are
 * written once (a start interrupted while writing them finishes the job
 * next time), so files people or agents deleted or changed stay so.
 *
 * Prints the URL a person opens (`http://127.0.0.1:4321/#workspace=demo&token=…`,
 * the token in the fragment, which browsers do not send to servers) and the
 * command an agent joins with. Server logs go to stderr (warnings and up by
 * default), so stdout holds only those lines.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { connectWorkspace } from '@yfs/client'
import { markdownCodec } from '@yfs/markdown'
import { createServer, type DocumentStore, type Logger, type YfsServer } from '@yfs/server'
import { seedDemo } from './demo/demo-files.js'

/** The workspace `yfs start` creates and opens. */
export const DEMO_WORKSPACE = 'demo'

export interface StartOptions {
  store: DocumentStore
  /** Folder of the SQLite file; `demo.json` is kept there. */
  dataDir: string
  port: number
  host: string
  appDir: string | undefined
  logger: Logger
  adminToken?: string
  /** How the printed agent command runs `yfs`: `npx yfs` when installed. Default `pnpm --silent yfs` (the repository). */
  yfsCommand?: string
  /** Where the human-readable lines go. Default stdout. */
  print?: (line: string) => void
}

export interface Started {
  server: YfsServer
  address: AddressInfo
  /** The URL a person opens. */
  appUrl: string
  token: string
  /** Demo files written by this start (all of them on the first, none later). */
  seeded: string[]
}

interface DemoState {
  workspace: string
  token: string
  /** The demo files were written. */
  seeded: boolean
}

async function readState(file: string): Promise<DemoState | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<DemoState>
    if (value.workspace === DEMO_WORKSPACE && typeof value.token === 'string') {
      return { workspace: value.workspace, token: value.token, seeded: value.seeded === true }
    }
    return undefined
  } catch (error) {
    // First start (no file) or a damaged file: a new token replaces it either way.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return undefined
    throw error
  }
}

async function writeState(file: string, state: DemoState): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`
  await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  await chmod(temp, 0o600)
  await rename(temp, file)
}

/** The saved token while the store still accepts it for writing the demo workspace. */
async function stillValid(store: DocumentStore, token: string): Promise<boolean> {
  const grant = await store.resolveToken(token)
  return grant?.workspace === DEMO_WORKSPACE && grant.role === 'write'
}

/** The host a browser on this machine reaches the server by. */
function browserHost(address: AddressInfo): string {
  const any = ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost']
  if (any.includes(address.address)) return '127.0.0.1'
  return address.family === 'IPv6' ? `[${address.address}]` : address.address
}

/** Start the server with the demo workspace; resolves once it listens and the demo files exist. */
export async function startDemo(options: StartOptions): Promise<Started> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`))
  const { store } = options
  await mkdir(options.dataDir, { recursive: true })
  const stateFile = join(options.dataDir, 'demo.json')
  const created = await store.createWorkspace(DEMO_WORKSPACE)
  const saved = await readState(stateFile)
  // A new workspace next to an old demo.json (the database was deleted): seed it again.
  const token =
    saved && (await stillValid(store, saved.token))
      ? saved.token
      : await store.createToken(DEMO_WORKSPACE, 'write')
  const state: DemoState = { workspace: DEMO_WORKSPACE, token, seeded: !created && saved?.seeded === true }
  if (state.token !== saved?.token || state.seeded !== saved.seeded) await writeState(stateFile, state)

  const server = createServer({
    store,
    logger: options.logger,
    adminToken: options.adminToken,
    appDir: options.appDir,
    name: 'yfs-start',
  })
  const address = await server.listen(options.port, options.host)
  const host = browserHost(address)

  let seeded: string[] = []
  if (!state.seeded) {
    try {
      const connection = await connectWorkspace({
        url: `ws://${host}:${address.port}`,
        workspace: DEMO_WORKSPACE,
        token,
        fs: { codecs: [markdownCodec], author: 'yfs start' },
      })
      try {
        seeded = await seedDemo(connection.fs)
        await connection.flush()
      } finally {
        await connection.close()
      }
      await writeState(stateFile, { ...state, seeded: true })
    } catch (error) {
      await server.close()
      throw error
    }
  }

  const http = `http://${host}:${address.port}`
  const appUrl = `${http}/#workspace=${DEMO_WORKSPACE}&token=${encodeURIComponent(token)}`
  // One write, so the banner is never split by a log line (or read half-printed through a pipe).
  print(
    [
      `yfs is running on ${http} with SQLite in ${options.dataDir} (Ctrl-C stops it).`,
      'Open the workspace in a browser:',
      '',
      `    ${appUrl}`,
      '',
      'An agent joins the same workspace over MCP with:',
      `    ${options.yfsCommand ?? 'pnpm --silent yfs'} mcp --server ws://${host}:${address.port} --token ${token} --store ${DEMO_WORKSPACE}`,
    ].join('\n'),
  )
  return { server, address, appUrl, token, seeded }
}
