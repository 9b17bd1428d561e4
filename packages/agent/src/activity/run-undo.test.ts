/**
 * runUndo (the browser's undo): a dry run reports and changes nothing and is not logged; the real
 * run reverts the session and appends one `undo` entry in the given name, whose files and versions
 * let it be undone in turn (undoing it brings the session's state back). Also: the module graph
 * behind `@yfs/agent/activity` stays free of Node built-ins and just-bash, so a page can load it.
 */
import { readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { attachActivityLog, createFileSystem } from '@yfs/core'
import { describe, expect, it } from 'vitest'
import { createToolRegistry } from '../registry.js'
import { runUndo } from './run-undo.js'

describe('runUndo', () => {
  it('dry run, then undo logged in a person’s name, then undo of that undo', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/a.txt', 'one\n')
    const agent = createToolRegistry(fs, { activity: { session: 'agent-1', who: () => 'bot' } })
    for (const [tool, args] of [
      ['write_file', { path: 'vfs:///a.txt', content: 'one\ntwo\n' }],
      ['write_file', { path: 'vfs:///b.txt', content: 'new\n' }],
    ] as const)
      expect((await agent.execute(tool, args)).isError).toBeFalsy()
    const log = attachActivityLog(fs.doc)
    const before = log.size

    const dry = await runUndo(fs, {
      entries: log.list({ session: 'agent-1' }),
      dryRun: true,
      session: 'web-1',
      who: 'user:Ana',
      args: { session: 'agent-1' },
    })
    expect(dry.reverted.map((a) => `${a.action} ${a.path}`).sort()).toEqual(['revert /a.txt', 'trash /b.txt'])
    expect(await fs.readFile('/a.txt')).toBe('one\ntwo\n')
    expect(log.size).toBe(before)

    const done = await runUndo(fs, {
      entries: log.list({ session: 'agent-1' }),
      dryRun: false,
      session: 'web-1',
      who: 'user:Ana',
      args: { session: 'agent-1' },
    })
    expect(done.conflicts).toEqual([])
    expect(await fs.readFile('/a.txt')).toBe('one\n')
    expect(await fs.exists('/b.txt')).toBe(false)
    const [entry] = log.list({ session: 'web-1' })
    expect(entry).toMatchObject({ who: 'user:Ana', tool: 'undo', status: 'ok', args: { session: 'agent-1' } })
    expect(entry!.id).toMatch(/^[A-Za-z0-9_-]{12}$/)
    expect(entry!.files.map((f) => [f.path, f.deleted ?? false]).sort()).toEqual([
      ['/a.txt', false],
      ['/b.txt', true],
    ])

    await runUndo(fs, {
      entries: [entry!],
      dryRun: false,
      session: 'web-2',
      who: 'user:Ana',
      args: { entry: entry!.id },
    })
    expect(await fs.readFile('/a.txt')).toBe('one\ntwo\n')
    expect(await fs.readFile('/b.txt')).toBe('new\n')
  })

  it('imports nothing a browser lacks', async () => {
    const here = dirname(fileURLToPath(import.meta.url))
    const seen = new Set<string>()
    const visit = async (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const source = await readFile(file, 'utf8')
      for (const [, spec] of source.matchAll(
        /^(?:import|export)\s(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]/gm,
      )) {
        if (spec!.startsWith('.')) await visit(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')))
        else expect([file, spec]).toEqual([file, expect.stringMatching(/^@yfs\/core$/)])
      }
    }
    await visit(join(here, 'run-undo.ts'))
    expect(seen.size).toBeGreaterThanOrEqual(4)
  })
})
