/**
 * Reconcile (pure): compare the folder, the workspace and the last synced
 * state, and say what to do for each path. Used at start-up (first run and
 * restarts after being offline); the live loop applies the same rules one
 * change at a time.
 *
 * Rules, per path (D = disk, W = workspace, S = state of the last sync):
 *
 * | S   | D         | W         | operation                                          |
 * |-----|-----------|-----------|----------------------------------------------------|
 * | no  | yes       | no        | upload (create in the workspace)                   |
 * | no  | no        | yes       | download (create on disk)                          |
 * | no  | yes       | yes       | compare: same bytes → record; text → merge with an |
 * |     |           |           | empty base; binary → both kept (`x (conflict).y`)  |
 * | yes | same      | same      | nothing                                            |
 * | yes | changed   | same      | upload                                             |
 * | yes | same      | changed   | download                                           |
 * | yes | changed   | changed   | merge (three-way, base = S's text) / conflict copy |
 * | yes | gone      | same      | delete in the workspace (to its trash)             |
 * | yes | same      | gone      | delete on disk                                     |
 * | yes | gone      | changed   | download (an edit beats a delete)                  |
 * | yes | changed   | gone      | upload (an edit beats a delete; restored from the  |
 * |     |           |           | trash when possible, so the id and history stay)   |
 * | yes | gone      | gone      | forget                                             |
 *
 * "Changed" on disk: another kind, hash or mode than S. In the workspace:
 * another id or row stamp (`updatedAt:size`) than S. A path whose S id now
 * lives elsewhere in the workspace (moved while offline) becomes a local
 * move; a disk file gone from its S path whose exact bytes appear at a new
 * path becomes a workspace move; both keep the file id.
 *
 * When moves are found, only the moves are returned: the caller applies them
 * and calls `reconcile` again on fresh snapshots. The same for a synced node
 * replaced on disk by another kind (file ↔ folder) and unchanged in the
 * workspace: only its `delete-remote` is returned, the new node comes next.
 * Below a `kind-conflict` nothing is done (it is reported, both sides kept).
 *
 * Deletes are never "resurrected": a path deleted on one side and unchanged
 * on the other is deleted on both, because S proves it was in sync.
 */

export type NodeKind = 'file' | 'folder' | 'symlink'

/** What the disk scan saw at a path. */
export interface DiskNode {
  kind: NodeKind
  /** sha256 hex of the bytes, `link:<target>` for symlinks, '' for folders. */
  hash: string
  mode: number
}

/** What the workspace holds at a path. */
export interface WorkspaceNode {
  kind: NodeKind
  id: string
  /** Row stamp `updatedAt:size`. */
  stamp: string
}

/** What the state remembers about a path. */
export interface StateNode {
  kind: NodeKind
  id: string
  hash: string
  mode: number
  stamp: string
}

export type SyncOp =
  | { type: 'upload'; path: string; kind: NodeKind; restoreId?: string }
  | { type: 'download'; path: string; kind: NodeKind }
  | { type: 'compare'; path: string }
  | { type: 'merge'; path: string }
  | { type: 'record'; path: string }
  | { type: 'delete-remote'; path: string; kind: NodeKind }
  | { type: 'delete-local'; path: string; kind: NodeKind }
  | { type: 'move-remote'; from: string; path: string }
  | { type: 'move-local'; from: string; path: string }
  | { type: 'forget'; path: string }
  | { type: 'kind-conflict'; path: string }

export interface ReconcileInput {
  disk: ReadonlyMap<string, DiskNode>
  workspace: ReadonlyMap<string, WorkspaceNode>
  state: ReadonlyMap<string, StateNode>
}

const depth = (path: string) => path.split('/').length

function diskChanged(d: DiskNode, s: StateNode): boolean {
  return (
    d.kind !== s.kind || d.hash !== s.hash || (d.kind === 'file' && (d.mode & 0o111) !== (s.mode & 0o111))
  )
}

function workspaceChanged(w: WorkspaceNode, s: StateNode): boolean {
  return w.kind !== s.kind || w.id !== s.id || (w.kind !== 'folder' && w.stamp !== s.stamp)
}

/**
 * The operations that make disk and workspace equal, in a safe order:
 * moves alone (see above), else folder creations (parents before children), then file
 * transfers, then deletions (children before parents).
 */
export function reconcile({ disk, workspace, state }: ReconcileInput): SyncOp[] {
  const moves: SyncOp[] = []
  const handled = new Set<string>()
  const wsById = new Map<string, string>()
  for (const [path, w] of workspace) wsById.set(w.id, path)

  // Moves in the workspace while we were away: S's id now lives at another path that S does not know.
  for (const [path, s] of [...state].sort((a, b) => depth(a[0]) - depth(b[0]))) {
    const now = wsById.get(s.id)
    if (now === undefined || now === path || state.has(now) || disk.has(now) || workspace.has(path)) continue
    const d = disk.get(path)
    if (!d || diskChanged(d, s)) continue
    // A folder moved: its descendants follow it; they are compared again after the move.
    if ([...handled].some((h) => path.startsWith(`${h}/`))) continue
    moves.push({ type: 'move-local', from: path, path: now })
    handled.add(path)
    handled.add(now)
  }
  // Moves on disk while we were away: the exact bytes of a vanished S file appear at a new path.
  const vanishedByHash = new Map<string, string[]>()
  for (const [path, s] of state) {
    if (s.kind !== 'file' || disk.has(path) || handled.has(path) || !workspace.has(path)) continue
    const w = workspace.get(path)!
    if (workspaceChanged(w, s)) continue
    const list = vanishedByHash.get(s.hash) ?? []
    list.push(path)
    vanishedByHash.set(s.hash, list)
  }
  for (const [path, d] of disk) {
    if (d.kind !== 'file' || state.has(path) || workspace.has(path) || handled.has(path)) continue
    const from = vanishedByHash.get(d.hash)?.shift()
    if (from === undefined) continue
    moves.push({ type: 'move-remote', from, path })
    handled.add(from)
    handled.add(path)
  }
  // Moves change which paths exist: the caller applies them and reconciles fresh snapshots again.
  if (moves.length > 0) return moves
  // A synced node replaced on disk by another kind (file ↔ folder) that the workspace kept as it
  // was (a folder's synced children included): the workspace's goes first (to its trash), alone
  // like moves; the next pass creates the new one. Changed in the workspace → a kind-conflict.
  const replaced: SyncOp[] = []
  for (const [path, s] of state) {
    const d = disk.get(path)
    const w = workspace.get(path)
    if (!d || !w || d.kind === s.kind || w.kind !== s.kind || workspaceChanged(w, s)) continue
    const below = `${path}/`
    const childChanged = (p: string, c: StateNode) => {
      const wc = p.startsWith(below) ? workspace.get(p) : undefined
      return wc !== undefined && workspaceChanged(wc, c)
    }
    if (s.kind === 'folder' && [...state].some(([p, c]) => childChanged(p, c))) continue
    replaced.push({ type: 'delete-remote', path, kind: w.kind })
  }
  if (replaced.length > 0) return replaced

  const mkdirs: SyncOp[] = []
  const transfers: SyncOp[] = []
  const deletes: SyncOp[] = []
  const all = new Set([...disk.keys(), ...workspace.keys(), ...state.keys()])
  for (const path of all) {
    if (handled.has(path)) continue
    const d = disk.get(path)
    const w = workspace.get(path)
    const s = state.get(path)
    if (!s) {
      if (d && !w) (d.kind === 'folder' ? mkdirs : transfers).push({ type: 'upload', path, kind: d.kind })
      else if (w && !d)
        (w.kind === 'folder' ? mkdirs : transfers).push({ type: 'download', path, kind: w.kind })
      else if (d && w) {
        if (d.kind !== w.kind) transfers.push({ type: 'kind-conflict', path })
        else if (d.kind === 'folder') mkdirs.push({ type: 'record', path })
        else transfers.push({ type: 'compare', path })
      }
      continue
    }
    if (!d && !w) {
      deletes.push({ type: 'forget', path })
    } else if (!d && w) {
      if (workspaceChanged(w, s)) transfers.push({ type: 'download', path, kind: w.kind })
      else deletes.push({ type: 'delete-remote', path, kind: w.kind })
    } else if (d && !w) {
      if (diskChanged(d, s)) {
        const op: SyncOp = { type: 'upload', path, kind: d.kind, restoreId: s.id }
        ;(d.kind === 'folder' ? mkdirs : transfers).push(op)
      } else deletes.push({ type: 'delete-local', path, kind: d.kind })
    } else if (d && w) {
      if (d.kind !== w.kind) {
        transfers.push({ type: 'kind-conflict', path })
        continue
      }
      const dc = diskChanged(d, s)
      const wc = workspaceChanged(w, s)
      if (d.kind === 'folder') {
        if (wc) mkdirs.push({ type: 'record', path })
      } else if (dc && wc) transfers.push({ type: 'merge', path })
      else if (dc) transfers.push({ type: 'upload', path, kind: d.kind })
      else if (wc) transfers.push({ type: 'download', path, kind: w.kind })
    }
  }
  const pathOf = (op: SyncOp) => op.path
  // Below a kind-conflict, one side has a file where the other has a folder: nothing can go there.
  const conflicts = transfers.filter((op) => op.type === 'kind-conflict').map((op) => `${op.path}/`)
  if (conflicts.length > 0) {
    const blocked = (op: SyncOp) => conflicts.some((c) => op.path.startsWith(c))
    for (const list of [mkdirs, transfers, deletes])
      for (let i = list.length - 1; i >= 0; i--) if (blocked(list[i]!)) list.splice(i, 1)
  }
  mkdirs.sort((a, b) => depth(pathOf(a)) - depth(pathOf(b)))
  deletes.sort((a, b) => depth(pathOf(b)) - depth(pathOf(a)))
  transfers.sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : 1))
  return [...moves, ...mkdirs, ...transfers, ...deletes]
}
