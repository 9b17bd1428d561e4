/**
 * Concurrent actions never undo each other (issue 22): replica A acts on a
 * file (rename, move, chmod, rm, restore) while replica B, before either
 * hears of the other, edits its text; both orders of the two (the edit
 * first, then the action; the action first, then the edit). After a full
 * sync, every replica and a fresh one show A's action and B's text, with a
 * size that matches the content.
 */
import { describe, expect, it } from 'vitest'
import type { YjsFileSystem } from '../src/fs/yjs-file-system.js'
import type { FileId } from '../src/ids.js'
import { createReplicaNetwork, type ReplicaNetwork } from '../src/testing/index.js'

type Action = {
  name: string
  run(fs: YjsFileSystem, id: FileId): Promise<void>
  /** What every replica shows afterwards. */
  expect(fs: YjsFileSystem, id: FileId): Promise<void>
}

const BASE = 'line 1\nline 2\nline 3\n'
const EDITED = 'line 1\nline 2 typed by B\nline 3\n'

const actions: Action[] = [
  {
    name: 'rename',
    run: (fs) => fs.mv('/a/notes.txt', '/a/plan.txt'),
    async expect(fs, id) {
      expect(fs.index.pathOf(id)).toBe('/a/plan.txt')
      expect(await fs.exists('/a/notes.txt')).toBe(false)
    },
  },
  {
    name: 'move',
    run: (fs) => fs.mv('/a/notes.txt', '/b/notes.txt'),
    async expect(fs, id) {
      expect(fs.index.pathOf(id)).toBe('/b/notes.txt')
    },
  },
  {
    name: 'chmod',
    run: (fs) => fs.chmod('/a/notes.txt', 0o600),
    async expect(fs, id) {
      expect(((await fs.stat(fs.index.pathOf(id)!)).mode & 0o777).toString(8)).toBe('600')
    },
  },
  {
    name: 'rm',
    run: (fs) => fs.rm('/a/notes.txt'),
    async expect(fs, id) {
      // The file stays in the trash, with the edit: restoring it brings the edited text back.
      expect(fs.index.pathOf(id)).toBeUndefined()
      expect(fs.trash.list().map((t) => t.id)).toContain(id)
    },
  },
]

async function setup(): Promise<{ net: ReplicaNetwork; id: FileId }> {
  // Replica 2 stays out until the end: the fresh replica.
  const net = createReplicaNetwork(3)
  const a = net.replicas[0]!.fs
  await a.mkdir('/a')
  await a.mkdir('/b')
  await a.writeFile('/a/notes.txt', BASE)
  await net.syncAll()
  return { net, id: a.index.lookup('/a/notes.txt')! }
}

/** The text of a file by id, trashed or not (read from its content doc). */
async function textOf(fs: YjsFileSystem, id: FileId): Promise<string> {
  const row = fs.table.get(id)!
  const handle = await fs.pool.acquire(id)
  try {
    return fs.codecFor(row.name).read(handle.doc)
  } finally {
    handle.release()
  }
}

async function checkEverywhere(net: ReplicaNetwork, id: FileId, action: Action): Promise<void> {
  for (const { fs } of net.replicas) {
    await action.expect(fs, id)
    const text = await textOf(fs, id)
    expect(text).toBe(EDITED)
    expect(fs.table.get(id)!.size).toBe(new TextEncoder().encode(text).byteLength)
  }
}

describe('an action and a concurrent edit both survive', () => {
  for (const action of actions) {
    it(`${action.name} first, then B edits`, async () => {
      const { net, id } = await setup()
      try {
        await action.run(net.replicas[0]!.fs, id)
        await net.replicas[1]!.fs.writeFile('/a/notes.txt', EDITED)
        await net.syncAll()
        await checkEverywhere(net, id, action)
      } finally {
        net.destroy()
      }
    })

    it(`B edits first, then ${action.name}`, async () => {
      const { net, id } = await setup()
      try {
        await net.replicas[1]!.fs.writeFile('/a/notes.txt', EDITED)
        await action.run(net.replicas[0]!.fs, id)
        await net.syncAll()
        await checkEverywhere(net, id, action)
      } finally {
        net.destroy()
      }
    })
  }

  it('rm on A while B edits: restoring the file brings the edit back, on every replica', async () => {
    const { net, id } = await setup()
    try {
      await net.replicas[0]!.fs.rm('/a/notes.txt')
      await net.replicas[1]!.fs.writeFile('/a/notes.txt', EDITED)
      await net.syncAll()
      net.replicas[2]!.fs.trash.restore(id)
      await net.syncAll()
      for (const { fs } of net.replicas) expect(await fs.readFile('/a/notes.txt')).toBe(EDITED)
    } finally {
      net.destroy()
    }
  })

  it('a rename on A and a chmod on B both survive; two renames resolve the same everywhere', async () => {
    const { net, id } = await setup()
    try {
      await net.replicas[0]!.fs.mv('/a/notes.txt', '/a/plan.txt')
      await net.replicas[1]!.fs.chmod('/a/notes.txt', 0o640)
      await net.syncAll()
      for (const { fs } of net.replicas) {
        expect(fs.index.pathOf(id)).toBe('/a/plan.txt')
        expect((await fs.stat('/a/plan.txt')).mode & 0o777).toBe(0o640)
      }
      await net.replicas[0]!.fs.mv('/a/plan.txt', '/a/one.txt')
      await net.replicas[1]!.fs.mv('/a/plan.txt', '/b/two.txt')
      await net.syncAll()
      const paths = net.replicas.map(({ fs }) => fs.index.pathOf(id))
      // The later rename (the shared test clock orders them) wins, the same on every replica.
      expect(paths).toEqual(['/b/two.txt', '/b/two.txt', '/b/two.txt'])
    } finally {
      net.destroy()
    }
  })

  it("two concurrent edits: the size everyone sees is the merged content's", async () => {
    const { net, id } = await setup()
    try {
      await net.replicas[0]!.fs.writeFile('/a/notes.txt', 'line 0 by A\nline 1\nline 2\nline 3\n')
      await net.replicas[1]!.fs.writeFile('/a/notes.txt', 'line 1\nline 2\nline 3\nline 4 by B, longer\n')
      await net.syncAll()
      for (const { fs } of net.replicas) {
        const text = await fs.readFile('/a/notes.txt')
        expect(text).toBe('line 0 by A\nline 1\nline 2\nline 3\nline 4 by B, longer\n')
        expect((await fs.stat('/a/notes.txt')).size).toBe(text.length)
        expect(fs.table.get(id)!.size).toBe(text.length)
      }
    } finally {
      net.destroy()
    }
  })
})
