/**
 * The recorder tells concurrent calls apart: two sessions writing to one
 * filesystem at the same time each log only their own files, and a bash run
 * logs what it created, moved and deleted with before/after versions.
 */
import { attachActivityLog, createFileSystem } from '@yfs/core'
import { typeInto } from '@yfs/core/testing'
import { describe, expect, it } from 'vitest'
import { createToolRegistry } from '../registry.js'

describe('call recorder', () => {
  it('concurrent calls of two sessions each log their own files', async () => {
    const fs = createFileSystem()
    const a = createToolRegistry(fs, { activity: { session: 'a' } })
    const b = createToolRegistry(fs, { activity: { session: 'b' } })
    await Promise.all([
      ...Array.from({ length: 5 }, (_, i) =>
        a.execute('write_file', { path: `vfs:///a/${i}.txt`, content: 'a' }),
      ),
      ...Array.from({ length: 5 }, (_, i) =>
        b.execute('write_file', { path: `vfs:///b/${i}.txt`, content: 'b' }),
      ),
    ])
    const log = attachActivityLog(fs.doc)
    for (const [session, dir] of [
      ['a', '/a'],
      ['b', '/b'],
    ] as const) {
      const entries = log.list({ session })
      expect(entries).toHaveLength(5)
      for (const e of entries)
        for (const f of e.files) expect(f.path === dir || f.path.startsWith(`${dir}/`), f.path).toBe(true)
      const files = entries.flatMap((e) => e.files.filter((f) => f.type === 'file').map((f) => f.path)).sort()
      expect(files).toEqual([0, 1, 2, 3, 4].map((i) => `${dir}/${i}.txt`))
    }
  })

  it('rm -r of a folder and mv of a folder are undone whole', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/d/e', { recursive: true })
    await fs.writeFile('/d/e/f.txt', 'f\n')
    await fs.writeFile('/d/g.txt', 'g\n')
    await fs.mkdir('/m')
    await fs.writeFile('/m/h.txt', 'h\n')
    const tools = createToolRegistry(fs)
    const r = await tools.execute('bash', { script: 'rm -r /d && mv /m /n' })
    expect(r.isError).toBeFalsy()
    const undo = await createToolRegistry(fs).execute('undo', { session: tools.session })
    expect(undo.isError, undo.content[0]?.text).toBeFalsy()
    expect(undo.structuredContent.conflicts).toEqual([])
    expect(await fs.readFile('/d/e/f.txt')).toBe('f\n')
    expect(await fs.readFile('/d/g.txt')).toBe('g\n')
    expect(await fs.readFile('/m/h.txt')).toBe('h\n')
    expect(await fs.exists('/n')).toBe(false)
  })

  it('chmod and touch change no content: no version taken, nothing logged; a later write of the call is', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/d')
    await fs.writeFile('/d/a.txt', 'a\n')
    await fs.writeFile('/d/b.txt', 'b\n')
    // The newest versions (reading them records nothing), then a person's edit, not yet a version.
    const newest = async () => [
      (await fs.latestVersion('/d/a.txt'))?.id,
      (await fs.latestVersion('/d/b.txt'))?.id,
    ]
    const before = await newest()
    await typeInto(fs, '/d/a.txt', 'a', ' typed')
    const tools = createToolRegistry(fs)
    const r = await tools.execute('bash', { script: 'chmod 600 /d/*; touch /d/*' })
    expect(r.isError, r.content[0]?.text).toBeFalsy()
    // No "before" version was recorded for a change of mode or mtime (it would hold the person's
    // edit), and the call logs no file.
    expect(await newest()).toEqual(before)
    expect((await fs.stat('/d/a.txt')).mode & 0o777).toBe(0o600)
    const log = attachActivityLog(fs.doc)
    expect(log.list({ session: tools.session }).flatMap((e) => e.files)).toEqual([])
    // A call that changes the mode, then writes: its `before` holds the person's edit, and undo
    // goes back to it.
    const w = await tools.execute('bash', { script: 'chmod 640 /d/a.txt; echo agent > /d/a.txt' })
    expect(w.isError, w.content[0]?.text).toBeFalsy()
    const files = log.list({ session: tools.session }).flatMap((e) => e.files)
    expect(files).toHaveLength(1)
    expect(files[0]).toMatchObject({ path: '/d/a.txt' })
    expect(files[0]!.before).toBeDefined()
    expect(files[0]!.after).toBeDefined()
    const undo = await createToolRegistry(fs).execute('undo', { session: tools.session })
    expect(undo.isError, undo.content[0]?.text).toBeFalsy()
    expect(await fs.readFile('/d/a.txt')).toBe('a typed\n')
  })

  it('a file changed through another path after its mode was changed is logged as edited', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/f.txt', 'one\n')
    await fs.symlink('/f.txt', '/link')
    const tools = createToolRegistry(fs)
    const r = await tools.execute('bash', { script: 'chmod 600 /f.txt; echo two > /link' })
    expect(r.isError, r.content[0]?.text).toBeFalsy()
    expect(await fs.readFile('/f.txt')).toBe('two\n')
    const files = attachActivityLog(fs.doc)
      .list({ session: tools.session })
      .flatMap((e) => e.files)
      .filter((f) => f.path === '/f.txt')
    expect(files).toHaveLength(1)
    expect(files[0]!.after).toBeDefined()
    expect(files[0]!.after).not.toBe(files[0]!.before)
  })

  it('a failed call is logged with its code and no files', async () => {
    const fs = createFileSystem()
    const tools = createToolRegistry(fs)
    await tools.execute('read_file', { path: 'vfs:///nope' })
    await tools.execute('no_such_tool', {})
    // Both may start within one millisecond: find them by tool, not by order.
    const entries = attachActivityLog(fs.doc).list()
    const missing = entries.find((e) => e.tool === 'read_file')
    const unknown = entries.find((e) => e.tool === 'no_such_tool')
    expect(missing).toMatchObject({ tool: 'read_file', status: 'error', error: 'ENOENT', files: [] })
    expect(unknown).toMatchObject({ tool: 'no_such_tool', status: 'error' })
  })
})
