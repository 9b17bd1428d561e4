// The `yfs` config file ($XDG_CONFIG_HOME/yfs/config.json or --config): defaults for --server,
// --token, --workspace and --data, below the environment (YFS_*) and the flags; a malformed file
// is an error naming it; a token in a file others may read is warned about.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteStore } from '@yfs/server'
import { startTestServer, type TestServer } from '@yfs/server/testing'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { yfs } from './run-cli.js'

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `yfs-config-${name}-`))
const VARS = ['XDG_CONFIG_HOME', 'YFS_CONFIG', 'YFS_SERVER', 'YFS_TOKEN', 'YFS_WORKSPACE', 'YFS_DATA']

describe('yfs config file', () => {
  const data = tmp('data')
  const home = tmp('xdg')
  const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]))
  let t: TestServer
  let token: string

  const writeConfig = (file: string, value: unknown, mode = 0o600) => {
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value))
    chmodSync(file, mode)
    return file
  }
  const defaultFile = join(home, 'yfs', 'config.json')

  beforeAll(async () => {
    // Three workspaces, each with a file that names it.
    for (const id of ['fromfile', 'fromenv', 'fromflag']) {
      const store = createSqliteStore({ file: join(data, 'yfs.sqlite') })
      await store.createWorkspace(id)
      await store.close()
      expect((await yfs('bash', `echo ${id} > /${id}.txt`, '--data', data, '--workspace', id)).code).toBe(0)
    }
    t = await startTestServer()
    token = (await t.workspace('remote')).read
  }, 120_000)

  afterEach(() => {
    for (const v of VARS) {
      if (saved[v] === undefined) delete process.env[v]
      else process.env[v] = saved[v]
    }
  })
  afterAll(() => t?.close())

  it('takes flags over the environment over the file', async () => {
    for (const v of VARS) delete process.env[v]
    process.env.XDG_CONFIG_HOME = home
    writeConfig(defaultFile, { data, workspace: 'fromfile' })
    expect((await yfs('ls', '/')).out).toContain('fromfile.txt')
    process.env.YFS_WORKSPACE = 'fromenv'
    expect((await yfs('ls', '/')).out).toContain('fromenv.txt')
    expect((await yfs('ls', '/', '--workspace', 'fromflag')).out).toContain('fromflag.txt')
    // YFS_DATA over the file's data folder.
    process.env.YFS_DATA = tmp('empty')
    const r = await yfs('ls', '/')
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/no workspace 'fromenv'/)
  }, 120_000)

  it('reads --config (or YFS_CONFIG) instead of the default file; a server there yields to --data', async () => {
    for (const v of VARS) delete process.env[v]
    process.env.XDG_CONFIG_HOME = home
    writeConfig(defaultFile, { data, workspace: 'fromfile' })
    const other = writeConfig(join(tmp('other'), 'yfs.json'), { server: t.url, token, workspace: 'remote' })
    expect((await yfs('bash', 'echo hi', '--config', other)).out).toBe('hi\n')
    process.env.YFS_CONFIG = other
    expect((await yfs('ls', '/', '--json')).code).toBe(0)
    // The file names a server; --data on the command line picks the data folder, no conflict.
    const local = await yfs('ls', '/', '--data', data, '--workspace', 'fromflag')
    expect(local.code, local.err).toBe(0)
    expect(local.out).toContain('fromflag.txt')
  }, 120_000)

  it('refuses a malformed file, naming it', async () => {
    for (const v of VARS) delete process.env[v]
    const dir = tmp('bad')
    const cases: [unknown, RegExp][] = [
      ['{"data": ', /not valid JSON/],
      [[1, 2], /must be a JSON object/],
      [{ workspce: 'x' }, /unknown key "workspce"/],
      [{ token: 7 }, /"token" must be a non-empty string/],
    ]
    for (const [i, [value, why]] of cases.entries()) {
      const file = writeConfig(join(dir, `${i}.json`), value)
      await expect(yfs('ls', '/', '--config', file)).rejects.toThrow(`config file ${file}: `)
      await expect(yfs('ls', '/', '--config', file)).rejects.toThrow(why)
    }
    const missing = join(dir, 'missing.json')
    await expect(yfs('ls', '/', '--config', missing)).rejects.toThrow(
      `config file ${missing}: cannot be read`,
    )
  })

  it('warns when a file with a token is readable by others', async () => {
    for (const v of VARS) delete process.env[v]
    const file = writeConfig(
      join(tmp('perm'), 'c.json'),
      { server: t.url, token, workspace: 'remote' },
      0o644,
    )
    const open = await yfs('ls', '/', '--config', file)
    expect(open.code).toBe(0)
    expect(open.err).toContain(`warning: ${file} holds a token and others may read it: chmod 600 ${file}`)
    chmodSync(file, 0o600)
    expect((await yfs('ls', '/', '--config', file)).err).toBe('')
    // Without a token nothing to warn about.
    const plain = writeConfig(join(tmp('perm2'), 'c.json'), { data, workspace: 'fromfile' }, 0o644)
    expect((await yfs('ls', '/', '--config', plain)).err).toBe('')
  }, 120_000)
})
