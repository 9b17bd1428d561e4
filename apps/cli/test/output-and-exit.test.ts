// What the CLI prints for people and how it exits: colours only on a terminal (or FORCE_COLOR),
// never with NO_COLOR, never in --json; usage errors exit 2 (the real bin, both entries), --help 0.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SearchResult } from '@yfs/core'
import { createSqliteStore } from '@yfs/server'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { paletteFor, useColor } from '../src/colors.js'
import { formatSearchResult } from '../src/search-command.js'
import { yfs } from './run-cli.js'

const ESC = '\x1b['
const BIN = fileURLToPath(new URL('../bin/yfs.cjs', import.meta.url))

describe('colours', () => {
  it('are on for a terminal, off for a pipe, a dumb terminal or NO_COLOR, forced by FORCE_COLOR', () => {
    expect(useColor({ isTTY: true }, {})).toBe(true)
    expect(useColor({ isTTY: false }, {})).toBe(false)
    expect(useColor({}, {})).toBe(false)
    expect(useColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false)
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false)
    // An empty NO_COLOR does not count (no-color.org).
    expect(useColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true)
    expect(useColor({}, { FORCE_COLOR: '1' })).toBe(true)
    expect(useColor({}, { FORCE_COLOR: '0' })).toBe(false)
    expect(useColor({ isTTY: true }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false)
  })

  it('mark search matches in colour, or between « and » without', () => {
    const result: SearchResult = {
      total: 1,
      offset: 0,
      hits: [
        {
          path: '/a.md',
          score: 1,
          matchingLines: 1,
          matches: [{ line: 3, column: 5, snippet: 'the plan', mark: [4, 8] }],
        },
      ],
    } as unknown as SearchResult
    expect(formatSearchResult(result)).toContain('  3:5: the «plan»')
    const coloured = formatSearchResult(result, paletteFor({}, { FORCE_COLOR: '1' }))
    expect(coloured).toContain(`the ${ESC}1m${ESC}31mplan${ESC}39m${ESC}22m`)
    expect(coloured).not.toContain('«')
  })

  describe('yfs diff', () => {
    const data = mkdtempSync(join(tmpdir(), 'yfs-output-'))
    const at = ['--data', data, '--workspace', 'demo']
    let first = ''
    const env = { ...process.env }
    beforeAll(async () => {
      const store = createSqliteStore({ file: join(data, 'yfs.sqlite') })
      await store.createWorkspace('demo')
      await store.close()
      expect((await yfs('bash', ...at, 'printf "one\\n" > /p.txt && echo two >> /p.txt')).code).toBe(0)
      const versions = JSON.parse((await yfs('history', '/p.txt', ...at, '--json')).out).versions as {
        id: string
        size: number
      }[]
      first = versions.find((v) => v.size === 4)!.id
    }, 120_000)
    afterEach(() => {
      process.env.NO_COLOR = env.NO_COLOR
      process.env.FORCE_COLOR = env.FORCE_COLOR
      if (env.NO_COLOR === undefined) delete process.env.NO_COLOR
      if (env.FORCE_COLOR === undefined) delete process.env.FORCE_COLOR
    })
    afterAll(() => rmSync(data, { recursive: true, force: true }))

    it('colours added and removed lines only when asked, and never NO_COLOR or --json', async () => {
      delete process.env.NO_COLOR
      delete process.env.FORCE_COLOR
      const piped = await yfs('diff', '/p.txt', first, ...at)
      expect(piped.out).toContain('+two')
      expect(piped.out).not.toContain(ESC)
      process.env.FORCE_COLOR = '1'
      const forced = await yfs('diff', '/p.txt', first, ...at)
      expect(forced.out).toContain(`${ESC}32m+two${ESC}39m`)
      expect(forced.out).toContain(`${ESC}36m@@ `)
      expect((await yfs('diff', '/p.txt', first, ...at, '--json')).out).not.toContain(ESC)
      process.env.NO_COLOR = '1'
      const no = await yfs('diff', '/p.txt', first, ...at)
      expect(no.out).toContain('+two')
      expect(no.out).not.toContain(ESC)
    }, 120_000)
  })
})

describe('exit codes of the real bin', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 })

  it('a usage error exits 2 with the reason; --help exits 0', () => {
    const at = ['--data', join(tmpdir(), 'yfs-never-created'), '--workspace', 'w']
    const unknown = run('ls', '/', ...at, '--no-such-option')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain("unknown option '--no-such-option'")
    const missing = run('cat', ...at)
    expect(missing.status).toBe(2)
    expect(missing.stderr).toContain("missing required argument 'path'")
    const help = run('ls', '--help')
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('Usage: yfs ls')
  }, 120_000)

  it('so does yfs sync, which has an entry of its own', () => {
    const unknown = run(
      'sync',
      './x',
      '--server',
      'ws://127.0.0.1:9',
      '--workspace',
      'w',
      '--token',
      't',
      '--no-such-option',
    )
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain("unknown option '--no-such-option'")
  }, 120_000)
})
