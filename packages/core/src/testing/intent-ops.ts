/**
 * Intent operations on a replica network, for fast-check: replicas rename,
 * move, chmod, trash, restore and edit a few shared files while partial
 * syncs pass between them. `runIntentOp` records what each successful
 * action asked for per file (the newest placement, mode and trash state, and
 * every edit's text), so a test can check afterwards that no action was
 * undone by a concurrent one (`checkIntents`), or only that replicas agree.
 *
 * "Newest" is the order the ops run in: a replica network's shared clock
 * orders their timestamps the same way, whichever replica acts. Names are
 * unique per op, so no move replaces another file.
 */
import fc from 'fast-check'
import * as Y from 'yjs'
import { coversVersion, decodeContentVersion } from '../content/content-versions.js'
import type { YjsFileSystem } from '../fs/yjs-file-system.js'
import type { FileId } from '../ids.js'
import type { ReplicaNetwork } from './replica-network.js'

export type IntentOp =
  | {
      kind: 'rename' | 'move' | 'chmod' | 'rm' | 'restore' | 'append' | 'rewrite'
      replica: number
      file: number
      arg: number
    }
  | { kind: 'send'; replica: number; count: number }
  | { kind: 'receive'; replica: number; count: number }
  | { kind: 'deliver'; replica: number; to: number; count: number }

/** What the actions that count asked for, per file. */
export interface IntentExpectation {
  placement: { name: string; parentId: string | null }
  mode: number | undefined
  trashed: boolean
  tokens: string[]
}

export interface IntentState {
  files: FileId[]
  folders: FileId[]
  expected: Map<FileId, IntentExpectation>
}

const MODES = [0o600, 0o640, 0o644, 0o700, 0o755, 0o444, 0o664, 0o750]
/** Shared files the ops act on. */
const FILES = 3

/** An arbitrary for one `IntentOp` on replicas 0–4 (taken modulo the acting replicas when run). */
export function intentOpArbitrary(): fc.Arbitrary<IntentOp> {
  const replica = fc.nat(4)
  const count = fc.integer({ min: 1, max: 6 })
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constantFrom(
          'rename' as const,
          'move' as const,
          'chmod' as const,
          'rm' as const,
          'restore' as const,
          'append' as const,
          'rewrite' as const,
        ),
        replica,
        file: fc.nat(FILES - 1),
        arg: fc.nat(MODES.length - 1),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('send' as const), replica, count }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('receive' as const), replica, count }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('deliver' as const), replica, to: replica, count }),
    },
  )
}

/** Write the shared folders and files on replica 0 and sync them everywhere. */
export async function setUpIntentFiles(net: ReplicaNetwork): Promise<IntentState> {
  const first = net.replicas[0]!.fs
  await first.mkdir('/a')
  await first.mkdir('/b')
  const state: IntentState = { files: [], folders: [], expected: new Map() }
  for (let k = 0; k < FILES; k++) {
    await first.writeFile(`/a/f${k}.txt`, `start ${k}\n`)
    const id = first.index.lookup(`/a/f${k}.txt`)!
    const row = first.table.get(id)!
    state.files.push(id)
    state.expected.set(id, {
      placement: { name: row.name, parentId: row.parentId },
      mode: undefined,
      trashed: false,
      tokens: [`start ${k}`],
    })
  }
  state.folders.push(first.index.lookup('/a')!, first.index.lookup('/b')!)
  await net.syncAll()
  return state
}

/** Run `op` (number `seq`) on one of the first `acting` replicas, and record what it asked for. */
export async function runIntentOp(
  net: ReplicaNetwork,
  acting: number,
  op: IntentOp,
  seq: number,
  state: IntentState,
): Promise<void> {
  const r = op.replica % acting
  if (op.kind === 'send') return net.send(r, op.count)
  if (op.kind === 'receive') return net.receive(r, op.count, 'random')
  if (op.kind === 'deliver') return net.deliver(r, op.to % acting, op.count)
  const fs = net.replicas[r]!.fs
  const id = state.files[op.file]!
  const want = state.expected.get(id)!
  const row = fs.table.get(id)
  if (!row) return
  if (op.kind === 'restore') {
    if (row.trashedAt === null) return
    fs.trash.restore(id)
    const now = fs.table.get(id)!
    want.trashed = false
    // A restore moves the file only when it must (its name taken, its folder gone): only then
    // is it a placement action.
    if (now.name !== row.name || now.parentId !== row.parentId)
      want.placement = { name: now.name, parentId: now.parentId }
    return
  }
  // Every other action goes through the file's path: it must be visible here.
  const where = fs.index.pathOf(id)
  if (where === undefined) return
  if (op.kind === 'rename' || op.kind === 'move') {
    const folder = op.kind === 'move' ? state.folders[op.arg % 2]! : row.parentId
    const folderPath = folder === null ? '/' : fs.index.pathOf(folder as FileId)
    if (folderPath === undefined) return
    await fs.mv(where, `${folderPath === '/' ? '' : folderPath}/n${seq}.txt`)
    const now = fs.table.get(id)!
    want.placement = { name: now.name, parentId: now.parentId }
  } else if (op.kind === 'chmod') {
    await fs.chmod(where, MODES[op.arg]!)
    want.mode = MODES[op.arg]
  } else if (op.kind === 'rm') {
    await fs.rm(where)
    want.trashed = true
  } else {
    const token = `edit ${seq} on ${r}`
    if (op.kind === 'append') await fs.appendFile(where, `${token}\n`)
    else await fs.writeFile(where, `${await fs.readFile(where)}${token}\n`)
    want.tokens.push(token)
  }
}

/** A file's text and its content doc's state vector, trashed or not. */
export async function contentOf(
  fs: YjsFileSystem,
  id: FileId,
): Promise<{ text: string; sv: Map<number, number> }> {
  const row = fs.table.get(id)!
  const handle = await fs.pool.acquire(id)
  try {
    return {
      text: fs.codecFor(row.name).read(handle.doc),
      sv: Y.decodeStateVector(Y.encodeStateVector(handle.doc)),
    }
  } finally {
    handle.release()
  }
}

/**
 * Problems of `fs` against what the actions asked for: each file's newest placement, mode and
 * trash state, every edit's text, and a row whose size and content version describe the
 * merged content. Empty when everything holds.
 */
export async function checkIntents(fs: YjsFileSystem, state: IntentState): Promise<string[]> {
  const problems: string[] = []
  for (const [k, id] of state.files.entries()) {
    const want = state.expected.get(id)!
    const row = fs.table.get(id)
    if (!row) {
      problems.push(`file ${k}: no row`)
      continue
    }
    if (row.name !== want.placement.name || row.parentId !== want.placement.parentId)
      problems.push(
        `file ${k}: placement ${row.name} in ${row.parentId}, wanted ${want.placement.name} in ${want.placement.parentId}`,
      )
    if (row.mode !== want.mode) problems.push(`file ${k}: mode ${row.mode}, wanted ${want.mode}`)
    if ((row.trashedAt !== null) !== want.trashed)
      problems.push(`file ${k}: trashed ${row.trashedAt !== null}`)
    const { text, sv } = await contentOf(fs, id)
    const lines = text.split('\n')
    for (const token of want.tokens) if (!lines.includes(token)) problems.push(`file ${k}: lost "${token}"`)
    const bytes = new TextEncoder().encode(text).byteLength
    if (row.size !== bytes) problems.push(`file ${k}: size ${row.size}, content ${bytes} bytes`)
    if (!coversVersion(decodeContentVersion(row.sv ?? ''), sv)) problems.push(`file ${k}: row version behind`)
  }
  return problems
}
