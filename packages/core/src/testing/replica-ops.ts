/**
 * Random operations on a replica network, for fast-check: filesystem changes
 * on one replica (write, append, an agent's read-modify-write, a person
 * typing, mkdir, mv, cp, rm, restore, empty-trash), races set up on two
 * replicas (crossed folder moves, a folder purged while the other writes into
 * it) and network steps (send to the hub, receive, peer-to-peer delivery,
 * evicting content docs, a full sync). Paths come from a tiny alphabet so
 * names collide; texts are unique per operation, so a `ContentLog` can tell
 * afterwards which written text must still be there.
 */
import fc from 'fast-check'
import { TEXT_KEY } from '../content/text-codec.js'
import { isFsError } from '../errors.js'
import type { FileId } from '../ids.js'
import * as paths from '../path.js'
import type { ReplicaNetwork } from './replica-network.js'

export type ReplicaOp =
  | { kind: 'write' | 'append' | 'mkdir' | 'rm'; replica: number; path: string }
  /** An agent's read-modify-write: `writeFile(path, readFile(path) + text)`, applied as a diff. */
  | { kind: 'edit'; replica: number; path: string }
  /** A person typing straight into the content doc, between two earlier texts (`pick` chooses where). */
  | { kind: 'type'; replica: number; path: string; pick: number }
  | { kind: 'mv' | 'cp'; replica: number; from: string; to: string }
  | { kind: 'restore'; replica: number; pick: number }
  | { kind: 'empty' | 'evict'; replica: number }
  /** Replica `replica` moves folder `a` into `b` while the next replica moves `b` into `a`. */
  | { kind: 'cross'; replica: number; a: string; b: string }
  /** Replica `replica` removes `folder` and empties its trash while the next replica writes `name` into it. */
  | { kind: 'purge'; replica: number; folder: string; name: string }
  | { kind: 'send'; replica: number; count: number }
  | { kind: 'receive'; replica: number; count: number; order: 'fifo' | 'random' }
  | { kind: 'deliver'; replica: number; to: number; count: number }
  /** Everything delivered everywhere (a moment when every replica is online). */
  | { kind: 'sync'; replica: number }

export interface ReplicaOpOptions {
  /** Highest replica index (replica fields are taken modulo the network size when run). Default 4. */
  maxReplica?: number
  /** Folders operations happen in. Default `/`, `/a`, `/b`, `/a/c`. */
  folders?: string[]
  /** Names created in them. Default `x`, `y.md`, `a`, `c`, `z.txt`. */
  names?: string[]
  /**
   * Files every replica has from the start (e.g. written before the first sync): edits and
   * typing go to them half of the time, so concurrent edits of one file are frequent.
   */
  sharedFiles?: string[]
}

/** An arbitrary for one `ReplicaOp`, weighted towards writes and network steps. */
export function replicaOpArbitrary(options: ReplicaOpOptions = {}): fc.Arbitrary<ReplicaOp> {
  const folders = options.folders ?? ['/', '/a', '/b', '/a/c']
  const names = options.names ?? ['x', 'y.md', 'a', 'c', 'z.txt']
  const replica = fc.nat(options.maxReplica ?? 4)
  const path = fc
    .tuple(fc.constantFrom(...folders), fc.constantFrom(...names))
    .map(([folder, name]) => paths.join(folder, name))
  const shared = options.sharedFiles ?? []
  const editPath = shared.length > 0 ? fc.oneof(path, fc.constantFrom(...shared)) : path
  const folder = fc.constantFrom(...folders.filter((f) => f !== '/'))
  const count = fc.integer({ min: 1, max: 6 })
  const pathOp = (kind: 'write' | 'append' | 'mkdir') => fc.record({ kind: fc.constant(kind), replica, path })
  // Removed, moved and copied: folders half of the time, so whole subtrees move and orphans happen.
  const source = fc.oneof(path, folder)
  const twoPaths = (kind: 'mv' | 'cp') =>
    fc.record({ kind: fc.constant(kind), replica, from: source, to: path })
  return fc.oneof(
    { arbitrary: pathOp('write'), weight: 4 },
    { arbitrary: pathOp('append'), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('edit' as const), replica, path: editPath }), weight: 2 },
    {
      arbitrary: fc.record({ kind: fc.constant('type' as const), replica, path: editPath, pick: fc.nat() }),
      weight: 2,
    },
    { arbitrary: pathOp('mkdir'), weight: 2 },
    { arbitrary: twoPaths('mv'), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('rm' as const), replica, path: source }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('restore' as const), replica, pick: fc.nat() }), weight: 2 },
    { arbitrary: twoPaths('cp'), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('empty' as const), replica }), weight: 1 },
    {
      arbitrary: fc.record({ kind: fc.constant('cross' as const), replica, a: folder, b: folder }),
      weight: 1,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('purge' as const),
        replica,
        folder,
        name: fc.constantFrom(...names),
      }),
      weight: 1,
    },
    { arbitrary: fc.record({ kind: fc.constant('send' as const), replica, count }), weight: 3 },
    {
      arbitrary: fc.record({
        kind: fc.constant('receive' as const),
        replica,
        count,
        order: fc.constantFrom('fifo' as const, 'random' as const),
      }),
      weight: 3,
    },
    {
      arbitrary: fc.record({ kind: fc.constant('deliver' as const), replica, to: replica, count }),
      weight: 2,
    },
    { arbitrary: fc.record({ kind: fc.constant('evict' as const), replica }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('sync' as const), replica }), weight: 1 },
  )
}

/** A content change on the file id it landed on: `write` replaces the text, `append` inserts fresh text. */
export interface ContentEntry {
  kind: 'write' | 'append'
  text: string
}

/**
 * Content changes per file id, in the order they were made (the test runs
 * operations one by one, so that order is global).
 *
 * What must survive the full sync: an append inserts fresh text into what its
 * replica had (at the end; an agent's edit and a person's typing insert too),
 * and only a later whole-file write can remove it. So every text appended
 * after a file's last write (in that global order) must be in the final
 * content exactly once — and the write's own text too when the file was never
 * written to before it. Doubled text is what a write that replaced the whole
 * text instead of applying a diff would leave behind.
 */
export type ContentLog = Map<FileId, ContentEntry[]>

/**
 * Run one operation; `seq` (the operation's position) makes its text unique.
 * Invalid random operations (ENOENT, EEXIST, EINVAL, …) are part of the input
 * and ignored; any other error is thrown.
 */
export async function runReplicaOp(
  net: ReplicaNetwork,
  op: ReplicaOp,
  seq: number,
  log: ContentLog,
): Promise<void> {
  const n = net.replicas.length
  const r = op.replica % n
  const fs = net.replicas[r]!.fs
  const record = (path: string, entry: ContentEntry) => {
    const id = fs.index.lookup(path)
    if (id === undefined) return
    const list = log.get(id) ?? []
    list.push(entry)
    log.set(id, list)
  }
  try {
    switch (op.kind) {
      case 'write': {
        const text = `w${seq};`
        await fs.writeFile(op.path, text)
        record(op.path, { kind: 'write', text })
        break
      }
      case 'append': {
        const text = `a${seq};`
        const existed = fs.index.lookup(op.path) !== undefined
        await fs.appendFile(op.path, text)
        record(op.path, { kind: existed ? 'append' : 'write', text })
        break
      }
      case 'edit': {
        const text = `e${seq};`
        const before = await fs.readFile(op.path)
        await fs.writeFile(op.path, before + text)
        record(op.path, { kind: 'append', text })
        break
      }
      case 'type': {
        const id = fs.index.lookup(op.path)
        if (id === undefined || fs.table.get(id)?.type !== 'file') break
        const text = `t${seq};`
        const handle = await fs.pool.acquire(id)
        try {
          const ytext = handle.doc.getText(TEXT_KEY)
          // At the start or right after a ';', so no earlier text is split.
          const cuts = [0, ...[...ytext.toString()].flatMap((ch, i) => (ch === ';' ? [i + 1] : []))]
          ytext.insert(cuts[op.pick % cuts.length]!, text)
        } finally {
          handle.release()
        }
        record(op.path, { kind: 'append', text })
        break
      }
      case 'mkdir':
        await fs.mkdir(op.path)
        break
      case 'rm':
        await fs.rm(op.path, { recursive: true })
        break
      case 'mv':
        await fs.mv(op.from, op.to)
        break
      case 'cp': {
        await fs.cp(op.from, op.to, { recursive: true })
        // The copy's text is whatever the source held: recorded as a write without known text,
        // for every file at or under the destination (a folder copy overwrites existing files too).
        for (const p of fs.index.allPaths()) {
          if (p !== op.to && !p.startsWith(`${op.to}/`)) continue
          const id = fs.index.lookup(p)
          if (id !== undefined && fs.table.get(id)?.type === 'file') record(p, { kind: 'write', text: '' })
        }
        break
      }
      case 'restore': {
        const trash = fs.trash.list()
        if (trash.length > 0) fs.trash.restore(trash[op.pick % trash.length]!.id)
        break
      }
      case 'empty':
        fs.trash.empty()
        break
      case 'cross': {
        if (op.a === op.b) break
        const other = net.replicas[(r + 1) % n]!.fs
        // Each move is valid where it is made; together they would make a cycle.
        const results = await Promise.allSettled([
          fs.mv(op.a, paths.join(op.b, paths.basename(op.a))),
          other.mv(op.b, paths.join(op.a, paths.basename(op.b))),
        ])
        for (const result of results)
          if (result.status === 'rejected' && !isFsError(result.reason)) throw result.reason
        break
      }
      case 'purge': {
        const other = net.replicas[(r + 1) % n]!.fs
        const path = paths.join(op.folder, op.name)
        const text = `w${seq};`
        // The write lands in a folder that is gone for good once the rows meet: an orphan at the root.
        const results = await Promise.allSettled([
          fs.rm(op.folder, { recursive: true }).then(() => fs.trash.empty()),
          other.writeFile(path, text).then(() => {
            const id = other.index.lookup(path)
            if (id !== undefined) log.set(id, [...(log.get(id) ?? []), { kind: 'write', text }])
          }),
        ])
        for (const result of results)
          if (result.status === 'rejected' && !isFsError(result.reason)) throw result.reason
        break
      }
      case 'send':
        net.send(r, op.count)
        break
      case 'receive':
        net.receive(r, op.count, op.order)
        break
      case 'deliver':
        net.deliver(r, op.to % n, op.count)
        break
      case 'evict':
        net.evict(r)
        break
      case 'sync':
        await net.syncAll()
        break
    }
  } catch (error) {
    if (!isFsError(error)) throw error
  }
}
