// cp -r of a workspace folder to a new place: one bulk load (every event carries one transaction
// id), the same result as an entry-by-entry copy, and the entry-by-entry copy wherever a bulk
// load would differ (existing destination, symlinks in the tree, a destination path over the limits).
import { describe, expect, it } from 'vitest'
import type { FsEvent } from './events.js'
import { createFileSystem, type YjsFileSystem } from './yjs-file-system.js'

async function tree(fs: YjsFileSystem): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (dir: string) => {
    for (const name of await fs.readdir(dir)) {
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`
      const st = await fs.lstat(path)
      if (st.isSymbolicLink) out[path] = `-> ${await fs.readlink(path)}`
      else if (st.isDirectory) {
        out[path] = 'dir'
        await walk(path)
      } else out[path] = Buffer.from(await fs.readFileBuffer(path)).toString('base64')
    }
  }
  await walk('/')
  return out
}

async function source(fs: YjsFileSystem) {
  await fs.mkdir('/src/empty', { recursive: true })
  await fs.mkdir('/src/deep/er', { recursive: true })
  await fs.writeFile('/src/a.txt', 'alpha\n')
  await fs.writeFile('/src/deep/er/b.md', '# Bee\n\ntext\n')
  await fs.writeFile('/src/bin.dat', new Uint8Array([0, 1, 2, 255]))
  await fs.writeFile('/src/deep/c.txt', '')
}

const copied = (t: Record<string, string>, from: string, to: string) =>
  Object.fromEntries(
    Object.entries(t)
      .filter(([p]) => p === from || p.startsWith(`${from}/`))
      .map(([p, v]) => [to + p.slice(from.length), v]),
  )

describe('cp -r', () => {
  it('copies a folder to a new place as one bulk load', async () => {
    const fs = createFileSystem()
    await source(fs)
    const events: FsEvent[] = []
    fs.watch((e) => events.push(e))
    await fs.cp('/src', '/out/copy', { recursive: true })
    const t = await tree(fs)
    expect(copied(t, '/out/copy', '/src')).toEqual(copied(t, '/src', '/src'))
    const ids = new Set(events.map((e) => e.transactionId))
    expect(ids.size).toBe(1)
    expect([...ids][0]).toBeDefined()
    expect(events.length).toBe(9) // out, copy, empty, deep, er: 5 folders; 4 files
    // Copies are independent files with their own history.
    await fs.writeFile('/out/copy/a.txt', 'changed\n')
    expect(await fs.readFile('/src/a.txt')).toBe('alpha\n')
    expect((await fs.history('/out/copy/deep/er/b.md')).length).toBe(1)
  })

  it('merges into an existing destination entry by entry, as before', async () => {
    const fs = createFileSystem()
    await source(fs)
    await fs.mkdir('/dest')
    await fs.writeFile('/dest/a.txt', 'older\n')
    await fs.writeFile('/dest/other.txt', 'kept\n')
    const events: FsEvent[] = []
    fs.watch((e) => events.push(e))
    await fs.cp('/src', '/dest', { recursive: true })
    expect(await fs.readFile('/dest/a.txt')).toBe('alpha\n')
    expect(await fs.readFile('/dest/other.txt')).toBe('kept\n')
    // Existing files are written one by one (new subfolders may still go in bulk).
    expect(events.find((e) => e.path === '/dest/a.txt')?.transactionId).toBeUndefined()
  })

  it('copies a tree holding a symlink entry by entry', async () => {
    const fs = createFileSystem()
    await source(fs)
    await fs.symlink('a.txt', '/src/link')
    await fs.cp('/src', '/copy', { recursive: true })
    const t = await tree(fs)
    expect(copied(t, '/copy', '/src')).toEqual(copied(t, '/src', '/src'))
  })

  it('reports the failing entry and keeps what was copied before it, as before', async () => {
    const fs = createFileSystem({ limits: { maxPathLength: 40 } })
    await fs.mkdir('/s')
    await fs.writeFile('/s/a.txt', 'a')
    await fs.writeFile('/s/zzzzzzzzzzzzzzzzzzzzzzzzzz.txt', 'z')
    const error = await fs.cp('/s', '/copy-with-a-long-name', { recursive: true }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'ENAMETOOLONG' })
    expect(await fs.readFile('/copy-with-a-long-name/a.txt')).toBe('a')
  })
})
