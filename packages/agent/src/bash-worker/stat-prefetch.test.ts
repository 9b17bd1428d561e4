/**
 * The bash worker's stat prefetch (fs-proxy.ts): a folder listed, then its entries stat'ed,
 * costs one host message for the entries instead of one each; what it answers is what the
 * host answered; a change by the run drops it.
 */
import { describe, expect, it } from 'vitest'
import { createStatPrefetch } from './fs-proxy.js'
import type { LstatResult } from './protocol.js'

const file = (size: number) => ({ isFile: true, isDirectory: false, isSymbolicLink: false, size })
const link = { isFile: false, isDirectory: false, isSymbolicLink: true, size: 2 }

/** A host whose `lstatMany` answers from `entries` and counts its calls (and `readdir`'s, from `folders`). */
function host(entries: Record<string, object>, folders: Record<string, string[]> = {}) {
  const calls: string[][] = []
  const listed: string[] = []
  const lstatMany = async (paths: string[]): Promise<LstatResult[]> => {
    calls.push(paths)
    return paths.map((p) =>
      entries[p]
        ? { ok: true, value: entries[p] }
        : { ok: false, error: { name: 'Error', message: 'ENOENT' } },
    )
  }
  // Folders the host lists at their own path (no symlink on the way), except those under `/via-link`.
  const readdir = async (dir: string) => {
    listed.push(dir)
    const names = folders[dir]
    if (!names) throw new Error('ENOENT')
    return { names: [...names], real: !dir.startsWith('/via-link') }
  }
  return { calls, listed, prefetch: createStatPrefetch(lstatMany, readdir) }
}

/** A prefetch whose host reads each file ahead as `contentOf` its path, noting the kinds asked for. */
function readingHost(contentOf: (path: string) => string | Uint8Array) {
  const kinds: string[] = []
  const prefetch = createStatPrefetch(
    async () => [],
    undefined,
    async (paths, kind) => {
      kinds.push(kind)
      return paths.map((p) => ({ ok: true, value: contentOf(p) }))
    },
  )
  return { kinds, prefetch }
}

describe('stat prefetch', () => {
  const names = ['a', 'b', 'c', 'l']
  const entries = { '/d/a': file(1), '/d/b': file(2), '/d/c': file(3), '/d/l': link }
  const ask = (answer: unknown) => async () => answer

  it('the second stat missed in a listed folder fetches the rest in one message; later ones are answered here', async () => {
    const { calls, prefetch } = host(entries)
    prefetch.listed('/d', names)
    // The first miss may be a lone stat: asked on its own.
    expect(await prefetch.answer('lstat', '/d/a', ask('host a'))).toBe('host a')
    expect(calls).toEqual([])
    expect(await prefetch.answer('lstat', '/d/b', ask('host b'))).toEqual(file(2))
    expect(calls).toEqual([['/d/b', '/d/c', '/d/l']])
    expect(await prefetch.answer('stat', '/d/c', ask('host c'))).toEqual(file(3))
    expect(await prefetch.answer('exists', '/d/c', ask(false))).toBe(true)
    expect(calls).toHaveLength(1)
  })

  it('a symlink answers lstat only: stat and exists follow the link, so the host answers them', async () => {
    const { prefetch } = host(entries)
    prefetch.listed('/d', names)
    await prefetch.answer('lstat', '/d/a', ask(null))
    expect(await prefetch.answer('lstat', '/d/l', ask('host'))).toEqual(link)
    expect(await prefetch.answer('stat', '/d/l', ask('host stat'))).toBe('host stat')
    expect(await prefetch.answer('exists', '/d/l', ask('host exists'))).toBe('host exists')
  })

  it('stats asked at once share one fetch', async () => {
    const { calls, prefetch } = host(entries)
    prefetch.listed('/d', names)
    await prefetch.answer('lstat', '/d/a', ask(null))
    const answers = await Promise.all(
      ['/d/b', '/d/c', '/d/l'].map((p) => prefetch.answer('lstat', p, ask('host'))),
    )
    expect(answers).toEqual([file(2), file(3), link])
    expect(calls).toHaveLength(1)
  })

  it('an entry the host could not stat, or outside any listing, is asked on its own', async () => {
    const { calls, prefetch } = host({ '/d/a': file(1) })
    prefetch.listed('/d/', names)
    await prefetch.answer('lstat', '/d/a', ask(null))
    expect(await prefetch.answer('lstat', '/d/b', ask('host b'))).toBe('host b')
    expect(await prefetch.answer('lstat', '/e/x', ask('host x'))).toBe('host x')
    expect(calls).toHaveLength(1)
  })

  it('a change by the run drops what was prefetched, also a fetch still on its way', async () => {
    const { calls, prefetch } = host(entries)
    prefetch.listed('/d', names)
    await prefetch.answer('lstat', '/d/a', ask(null))
    await prefetch.answer('lstat', '/d/b', ask(null))
    prefetch.forget()
    expect(await prefetch.answer('lstat', '/d/c', ask('host c'))).toBe('host c')
    // Listed again, and changed while the fetch runs: its answers are not kept.
    prefetch.listed('/d', names)
    await prefetch.answer('lstat', '/d/a', ask(null))
    const during = prefetch.answer('lstat', '/d/b', ask('host b'))
    prefetch.forget()
    await during
    expect(await prefetch.answer('lstat', '/d/c', ask('host c again'))).toBe('host c again')
    expect(calls).toHaveLength(2)
  })

  it('answers are copies: a caller changing one does not change the next answer', async () => {
    const { prefetch } = host(entries)
    prefetch.listed('/', ['d'])
    prefetch.listed('/d', names)
    await prefetch.answer('lstat', '/d/a', ask(null))
    const b = (await prefetch.answer('lstat', '/d/b', ask(null))) as { size: number }
    b.size = 99
    expect(await prefetch.answer('lstat', '/d/b', ask(null))).toEqual(file(2))
  })

  it('exists of a name a listing lacks is false; the second miss in a folder nobody listed lists it', async () => {
    const { listed, prefetch } = host({}, { '/new': ['old'] })
    expect(await prefetch.answer('exists', '/new/f1', ask('host 1'))).toBe('host 1')
    expect(listed).toEqual([])
    expect(await prefetch.answer('exists', '/new/f2', ask('host 2'))).toBe(false)
    expect(await prefetch.answer('exists', '/new/f3', ask('host 3'))).toBe(false)
    expect(listed).toEqual(['/new'])
    // A name it has, of unknown kind (it may be a dangling symlink), is asked.
    expect(await prefetch.answer('exists', '/new/old', ask('host old'))).toBe('host old')
    // A folder that cannot be listed: each exists is asked.
    await prefetch.answer('exists', '/none/a', ask(false))
    expect(await prefetch.answer('exists', '/none/b', ask('host b'))).toBe('host b')
    expect(await prefetch.answer('exists', '/none/c', ask('host c'))).toBe('host c')
    expect(listed).toEqual(['/new', '/none'])
  })

  it('a listing through a symlinked folder answers no `exists` with false: the run may add the name by the real path', async () => {
    const { listed, prefetch } = host({}, { '/via-link': ['old'] })
    await prefetch.answer('exists', '/via-link/f1', ask(false))
    expect(await prefetch.answer('exists', '/via-link/f2', ask('host 2'))).toBe('host 2')
    expect(listed).toEqual(['/via-link'])
    expect(await prefetch.answer('exists', '/via-link/f3', ask('host 3'))).toBe('host 3')
    // A listing the script made through such a path, likewise.
    prefetch.listed('/q', ['a'])
    expect(await prefetch.answer('exists', '/q/b', ask('host b'))).toBe('host b')
    prefetch.listed('/q', ['a'], true)
    expect(await prefetch.answer('exists', '/q/b', ask('host b'))).toBe(false)
  })

  it("the run's own write or mkdir at its real path updates what is known; through a symlink it drops all", async () => {
    const { prefetch } = host(entries)
    prefetch.listed('/d', names)
    await prefetch.answer('lstat', '/d/a', ask(null))
    await prefetch.answer('lstat', '/d/b', ask(null))
    prefetch.changing('/d/new')
    prefetch.changed('writeFile', '/d/new', '/d/new')
    expect(await prefetch.answer('exists', '/d/new', ask('host'))).toBe(true)
    // The written file's stat is asked again; others stay known.
    expect(await prefetch.answer('lstat', '/d/new', ask('host stat'))).toBe('host stat')
    expect(await prefetch.answer('lstat', '/d/c', ask('host c'))).toEqual(file(3))
    expect(await prefetch.answer('exists', '/d/other', ask('host'))).toBe(false)
    prefetch.changing('/m/n/o')
    prefetch.changed('mkdir', '/m/n/o', '/m/n/o')
    // Every folder on the way is one (no symlink on the way): /d too, from the write.
    expect(['/m', '/m/n', '/m/n/o', '/d', '/x'].map((p) => prefetch.isFolder(p))).toEqual([
      true,
      true,
      true,
      true,
      false,
    ])
    // Written through a symlink: the real path differs, nothing known is kept.
    prefetch.changing('/d/l')
    prefetch.changed('writeFile', '/d/l', '/d/a')
    expect(prefetch.isFolder('/m')).toBe(false)
    expect(await prefetch.answer('exists', '/d/new', ask('host again'))).toBe('host again')
    expect(await prefetch.answer('lstat', '/d/c', ask('host c'))).toBe('host c')
  })

  it('a listing asked for while the run changes something is not kept', async () => {
    let release!: () => void
    const gate = new Promise<void>((done) => {
      release = done
    })
    const prefetch = createStatPrefetch(
      async () => [],
      async () => {
        await gate
        return { names: [], real: true }
      },
    )
    await prefetch.answer('exists', '/f/a', ask(false))
    const during = prefetch.answer('exists', '/f/b', ask('host b'))
    prefetch.changing('/f/b')
    release()
    expect(await during).toBe('host b')
    expect(await prefetch.answer('exists', '/f/c', ask('host c'))).toBe('host c')
  })

  it('read-ahead: the second file read in a listed folder reads the rest in one message, each given once', async () => {
    const text = (answer: string) => async () => answer
    const asked: string[][] = []
    const texts: Record<string, string> = { '/d/a': 'A', '/d/b': 'B', '/d/c': 'C' }
    const prefetch = createStatPrefetch(
      async () => [],
      undefined,
      async (paths, kind) => {
        expect(kind).toBe('text')
        asked.push(paths)
        return paths.map((p) =>
          texts[p] === undefined
            ? { ok: false, error: { name: 'Error', message: 'EISDIR' } }
            : { ok: true, value: texts[p]! },
        )
      },
    )
    prefetch.listed('/d', ['a', 'b', 'c', 'sub'])
    expect(await prefetch.read('/d/a', 'text', text('host a'))).toBe('host a')
    expect(asked).toEqual([])
    expect(await prefetch.read('/d/b', 'text', text('host b'))).toBe('B')
    expect(asked).toEqual([['/d/b', '/d/c', '/d/sub']])
    // What the run writes is read from the host again; what was read ahead is given once, and
    // nothing is read ahead twice (a folder's entry that failed, a file read in another order).
    prefetch.changing('/d/c')
    expect(await prefetch.read('/d/c', 'text', text('host c'))).toBe('host c')
    expect(await prefetch.read('/d/b', 'text', text('host b again'))).toBe('host b again')
    expect(await prefetch.read('/d/sub', 'text', text('host sub'))).toBe('host sub')
    expect(asked).toHaveLength(1)
    // A file before the first read-ahead: read ahead alone (the rest were read ahead once).
    expect(await prefetch.read('/d/a', 'text', text('host a again'))).toBe('A')
    expect(asked).toEqual([['/d/b', '/d/c', '/d/sub'], ['/d/a']])
  })

  it('read-ahead of bytes (`tar -c`, `cp` of each file): given as bytes only', async () => {
    const { kinds, prefetch } = readingHost((p) => new TextEncoder().encode(p))
    prefetch.listed('/d', ['a', 'b', 'c'])
    const bytes = (answer: string) => async () => new TextEncoder().encode(answer)
    expect(await prefetch.read('/d/a', 'bytes', bytes('host'))).toEqual(new TextEncoder().encode('host'))
    expect(await prefetch.read('/d/b', 'bytes', bytes('host'))).toEqual(new TextEncoder().encode('/d/b'))
    // Read ahead as bytes, asked as text: the host answers.
    expect(await prefetch.read('/d/c', 'text', async () => 'host text')).toBe('host text')
    expect(kinds).toEqual(['bytes'])
  })

  it('read-ahead of byte strings (`cat`, `wc`, `head`, `sort` of each file): given as byte strings only', async () => {
    const { kinds, prefetch } = readingHost((p) => `bytes of ${p}`)
    prefetch.listed('/d', ['a', 'b', 'c', 'e'])
    const host = (answer: string) => async () => answer
    expect(await prefetch.read('/d/a', 'latin1', host('host a'))).toBe('host a')
    expect(await prefetch.read('/d/b', 'latin1', host('host b'))).toBe('bytes of /d/b')
    expect(kinds).toEqual(['latin1'])
    // A byte string and a UTF-8 text are both strings: one read ahead as the other is asked again.
    expect(await prefetch.read('/d/c', 'text', host('host text'))).toBe('host text')
    expect(await prefetch.read('/d/c', 'latin1', host('host c'))).toBe('host c')
    // And the other way round: what was read ahead as text is not given as a byte string.
    prefetch.listed('/t', ['x', 'y', 'z'])
    await prefetch.read('/t/x', 'text', host('x'))
    expect(await prefetch.read('/t/y', 'text', host('host y'))).toBe('bytes of /t/y')
    expect(await prefetch.read('/t/z', 'latin1', host('host z'))).toBe('host z')
    expect(await prefetch.read('/d/e', 'latin1', host('host e'))).toBe('bytes of /d/e')
    expect(kinds).toEqual(['latin1', 'text'])
  })
})
