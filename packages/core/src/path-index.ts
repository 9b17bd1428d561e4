/**
 * Runtime path index: path ↔ id lookups, children of a folder, display names
 * and a plaintext cache. Built from the files table on load, then updated
 * incrementally from table changes; never persisted (a stored index drifts
 * under concurrent edits).
 *
 * Paths are not stored per node: `lookup` walks the per-folder name maps
 * (O(depth)) and `pathOf` walks parents up. So a move or rename of a folder
 * with 10k descendants updates two name maps and nothing else.
 *
 * The tree every replica shows is a pure function of the rows, whatever
 * order they arrived in:
 * - a row whose parent row is missing (permanently deleted, or not arrived
 *   yet) or is not a folder appears at the root (orphan);
 * - a parent cycle (A moved X into Y while B moved Y into X) is broken by
 *   showing the member moved last (the newest placement stamp, files-table.ts;
 *   ties by id) at the root, without writing anything;
 * - a trashed row hides itself and its whole subtree;
 * - siblings sharing a name get display suffixes (sibling-names.ts);
 * - a row whose stored name breaks the name rules (`.`, `..`, `/`, `\`, NUL,
 *   over 255 bytes: a hostile peer or an old store) is shown under its safe
 *   name (names.ts), then suffixed like any duplicate.
 *
 * (Over 400 lines: the rules above share one set of maps (rows, effective
 * parents, children, name maps, detached subtrees) that each incremental
 * update keeps consistent together; split into modules, every one would need
 * the others' private state. The name rules themselves are in sibling-names.ts,
 * the cache in content/plaintext-cache.ts.)
 */
import { PlaintextCache } from './content/plaintext-cache.js'
import type { FileRow, FileRowChange, FileRowChangeSource, FilesTable } from './files-table.js'
import { type FileId, ROOT_ID } from './ids.js'
import { isValidName, safeName } from './names.js'
import { disambiguateNames, type NamedSibling } from './sibling-names.js'

export interface FileSystemIndex {
  /** Id of the visible node at a normalised path (`ROOT_ID` for `/`), no symlink following. */
  lookup(path: string): FileId | undefined
  /** Child of a visible folder by display name. */
  child(parentId: FileId, displayName: string): FileId | undefined
  /** Display path of a visible node; `undefined` when trashed, inside a trashed folder, or unknown. */
  pathOf(id: FileId): string | undefined
  /** Display name of an active node among its siblings. */
  displayName(id: FileId): string | undefined
  /** Display names of a visible folder's active children, sorted by code unit. */
  childNames(parentId: FileId): readonly string[]
  /** Every child in the folder's effective children, trashed ones included. */
  allChildren(parentId: FileId): ReadonlySet<FileId>
  /** The folder a row appears in (after orphan and cycle rules). */
  effectiveParent(id: FileId): FileId | undefined
  /** True when the row is active and every ancestor is too. */
  isVisible(id: FileId): boolean
  /** Sum of `size` over file rows (trashed included: their content is still stored). */
  readonly totalBytes: number
  /** Number of rows. */
  readonly nodeCount: number
  /** Number of symlink rows; lets callers skip symlink resolution when there are none. */
  readonly symlinkCount: number
  /**
   * Plaintext cache (file id → text), filled by readers and writers and kept exact by the
   * filesystem (see plaintext-cache.ts); entries of deleted rows are dropped here.
   */
  readonly plaintext: PlaintextCache
  /** Every visible path except `/`, depth-first, siblings sorted. */
  allPaths(): string[]
  /** Canonical dump for tests: equal for equal trees. */
  snapshot(): IndexSnapshot
  /**
   * Called after the index applied a table change (paths may have changed), with each changed
   * row's path before it (`oldPaths.get(id)`: `undefined` when it had none, a new row's is not set).
   */
  onChange(fn: IndexChangeListener): () => void
  destroy(): void
}

/** Row changes after the index applied them, with each changed row's path before the change. */
export type IndexChangeListener = (
  changes: Map<FileId, FileRowChange>,
  oldPaths: ReadonlyMap<FileId, string | undefined>,
  source: FileRowChangeSource,
) => void

/** The old paths of a change of new rows only: none (shared, read-only). */
const NO_OLD_PATHS: ReadonlyMap<FileId, string | undefined> = new Map()

export interface IndexSnapshot {
  paths: [string, FileId][]
  hidden: FileId[]
}

const folderLike = (row: FileRow | undefined) => row !== undefined && row.type === 'folder'

/** The name a row is listed under before duplicate suffixes: its stored name, or that name's safe form. */
const shownName = (row: FileRow): string => (isValidName(row.name) ? row.name : safeName(row.name))

/** Build the index for `table` and keep it in sync until `destroy()`. */
export function createFileSystemIndex(table: FilesTable): FileSystemIndex {
  // Rows shown somewhere other than under their stored parent (orphans, cycle breakers), by
  // stored parent. With `kids` this gives a row's stored children without a second full map,
  // and a row's effective parent without a map of its own (`effOf`).
  const detached = new Map<FileId, Set<FileId>>()
  const detachedFrom = new Map<FileId, FileId>()
  // Effective children by effective parent, every row (trashed included). The build leaves
  // arrays (a push is several times cheaper than a Set add); a folder's array becomes a Set
  // when it first changes or is handed out (`kidSet`).
  const kids = new Map<FileId, Set<FileId> | FileId[]>()
  // Display names of active children per folder, and the reverse.
  const names = new Map<FileId, Map<string, FileId>>()
  // Display name of each named child, with the folder that named it: only that folder
  // may forget it, so a folder re-naming its children never erases a name given elsewhere.
  const display = new Map<FileId, { folder: FileId; name: string }>()
  const sorted = new Map<FileId, string[]>()
  const breakers = new Set<FileId>()
  const plaintext = new PlaintextCache()
  const listeners = new Set<IndexChangeListener>()
  let totalBytes = 0
  let nodeCount = 0
  let symlinkCount = 0

  const kidSet = (folder: FileId): Set<FileId> | undefined => {
    const k = kids.get(folder)
    if (k === undefined || !Array.isArray(k)) return k
    const s = new Set(k)
    kids.set(folder, s)
    return s
  }
  const addTo = (m: Map<FileId, Set<FileId>>, key: FileId, id: FileId, s = m.get(key)) => {
    if (!s) {
      s = new Set()
      m.set(key, s)
    }
    s.add(id)
  }
  const removeFrom = (m: Map<FileId, Set<FileId>>, key: FileId, id: FileId, s = m.get(key)) => {
    if (s?.delete(id) && s.size === 0) m.delete(key)
  }
  // `kidSet` has turned the folder's entry into a Set, so `kids` holds no array under `folder`.
  const addKid = (folder: FileId, id: FileId) =>
    addTo(kids as Map<FileId, Set<FileId>>, folder, id, kidSet(folder))
  const removeKid = (folder: FileId, id: FileId) =>
    removeFrom(kids as Map<FileId, Set<FileId>>, folder, id, kidSet(folder))
  const storedParent = (row: FileRow): FileId => row.parentId ?? ROOT_ID
  /** The folder a row of the index appears in: its stored parent unless detached. */
  const effOf = (row: FileRow): FileId =>
    row.parentId === null || detachedFrom.has(row.id) ? ROOT_ID : row.parentId
  // While the observer reads the paths before a change, the table already holds the new rows:
  // reads go through `rowOf`, which answers with the rows as they were.
  let changing: Map<FileId, FileRowChange> | undefined
  const rowOf = (id: FileId): FileRow | undefined => {
    const change = changing?.get(id)
    return change === undefined ? table.get(id) : change.before
  }
  const effParentOf = (id: FileId): FileId | undefined => {
    const row = rowOf(id)
    return row === undefined ? undefined : effOf(row)
  }

  const computeEffParent = (row: FileRow): FileId => {
    if (row.parentId === null || breakers.has(row.id)) return ROOT_ID
    return folderLike(table.get(row.parentId)) ? row.parentId : ROOT_ID
  }

  // Walk stored parents from `start`; return the cycle's members if the walk loops.
  const findCycle = (start: FileId): FileId[] | undefined => {
    const seen = new Map<FileId, number>()
    const trail: FileId[] = []
    let cur: FileId | null = start
    while (cur !== null) {
      const at = seen.get(cur)
      // Back at a non-folder start: the start is not a folder, so the loop is not a cycle
      // (its child is an orphan). Every other member was checked to be a folder below.
      if (at !== undefined)
        return at === 0 && table.get(start)?.type !== 'folder' ? undefined : trail.slice(at)
      const row = table.get(cur)
      if (!row || !(cur === start || row.type === 'folder')) return undefined
      seen.set(cur, trail.length)
      trail.push(cur)
      cur = row.parentId
    }
    return undefined
  }
  const movedAt = (id: FileId): number => table.stampOf(id, 'placement') ?? 0
  const pickBreaker = (cycle: FileId[]): FileId => {
    let best = cycle[0]!
    let bestAt = movedAt(best)
    for (const id of cycle) {
      const at = movedAt(id)
      if (at > bestAt || (at === bestAt && id > best)) {
        best = id
        bestAt = at
      }
    }
    return best
  }

  // Folders whose active children share a stored name: their names are recomputed whole.
  const dupFolders = new Set<FileId>()

  /** Recompute every display name in a folder (duplicates, or a full rebuild). */
  const recomputeNames = (folder: FileId) => {
    sorted.delete(folder)
    const old = names.get(folder)
    if (old) for (const id of old.values()) if (display.get(id)?.folder === folder) display.delete(id)
    const active: NamedSibling[] = []
    for (const id of kids.get(folder) ?? []) {
      const row = rowOf(id)
      if (row && row.trashedAt === null)
        active.push(isValidName(row.name) ? row : { id, name: safeName(row.name), createdAt: row.createdAt })
    }
    dupFolders.delete(folder)
    if (active.length === 0) {
      names.set(folder, new Map())
      return
    }
    const byName = new Map<string, FileId>()
    let duplicates = false
    for (const row of active) {
      if (byName.has(row.name)) {
        duplicates = true
        break
      }
      byName.set(row.name, row.id)
    }
    if (duplicates) {
      byName.clear()
      for (const [id, name] of disambiguateNames(active)) byName.set(name, id)
      dupFolders.add(folder)
    }
    for (const [name, id] of byName) display.set(id, { folder, name })
    names.set(folder, byName)
  }

  // Dirty folders: the children touched in each, or null when the whole folder needs names.
  type Dirty = Map<FileId, Set<FileId> | null>
  const touch = (dirty: Dirty, folder: FileId, id: FileId | null) => {
    const cur = dirty.get(folder)
    if (cur === null) return
    if (id === null) dirty.set(folder, null)
    else if (cur) cur.add(id)
    else dirty.set(folder, new Set([id]))
  }

  /**
   * Update display names of the touched children only: O(touched) instead of
   * O(children), which is what keeps creating 10k files in one folder linear.
   * Two phases (all removals, then all additions) so a child moving between
   * two dirty folders is named by its new folder whatever the order.
   */
  const updateNames = (dirty: Dirty) => {
    for (const [folder, touched] of dirty) {
      if (touched === null || dupFolders.has(folder)) continue
      sorted.delete(folder)
      const m = names.get(folder)
      if (!m) continue
      for (const id of touched) {
        const old = display.get(id)
        if (old?.folder === folder) {
          if (m.get(old.name) === id) m.delete(old.name)
          display.delete(id)
        }
      }
    }
    for (const [folder, touched] of dirty) {
      // A folder nobody has looked into yet gets its names when first asked.
      if (!names.has(folder)) continue
      if (touched === null || dupFolders.has(folder)) {
        recomputeNames(folder)
        continue
      }
      let m = names.get(folder)
      for (const id of touched) {
        const row = table.get(id)
        if (!row || row.trashedAt !== null || effOf(row) !== folder) continue
        const name = shownName(row)
        if (m?.has(name)) {
          recomputeNames(folder) // a name collision: suffixes needed
          m = undefined
          break
        }
        m!.set(name, id)
        display.set(id, { folder, name })
      }
    }
  }

  /** Move a row from the children of its previous effective parent to those of the next one. */
  const moveKid = (id: FileId, prev: FileId | undefined, next: FileId | undefined, dirty: Dirty) => {
    if (prev === next) return
    if (prev !== undefined) {
      removeKid(prev, id)
      touch(dirty, prev, id)
    }
    if (next !== undefined) {
      addKid(next, id)
      touch(dirty, next, id)
    }
  }

  /** Keep `detached` in step with a row's stored and effective parent (`eff`). */
  const syncDetached = (id: FileId, row: FileRow | undefined, eff: FileId | undefined) => {
    const now = row && eff !== undefined && eff !== storedParent(row) ? storedParent(row) : undefined
    const was = detachedFrom.get(id)
    if (was === now) return
    if (was !== undefined) {
      removeFrom(detached, was, id)
      detachedFrom.delete(id)
    }
    if (now !== undefined) {
      addTo(detached, now, id)
      detachedFrom.set(id, now)
    }
  }

  /** Add the rows whose stored parent is `id` to `out` (a row's effective parent is its stored one, or the root). */
  const addStoredChildren = (id: FileId, out: Set<FileId>) => {
    const shown = kids.get(id)
    if (shown) for (const child of shown) out.add(child)
    const elsewhere = detached.get(id)
    if (elsewhere) for (const child of elsewhere) out.add(child)
  }

  const countRow = (row: FileRow, sign: 1 | -1) => {
    nodeCount += sign
    if (row.type === 'file') totalBytes += sign * row.size
    if (row.type === 'symlink') symlinkCount += sign
  }

  const rebuild = () => {
    // One pass over the rows puts each under its stored parent; then the few stored parents
    // that are missing or not folders hand their rows to the root, and cycle breakers move there.
    // No lookup of a row's parent per row, and no per-row map beyond the table's own.
    const folders: FileId[] = []
    const lists = kids as Map<FileId, FileId[]> // only arrays until the build ends
    // Placement fields only: no row object is made for rows nobody reads (files-table.ts).
    table.forEachPlacement((id, parentId, type, size) => {
      nodeCount++
      if (type === 'file') totalBytes += size
      else if (type === 'symlink') symlinkCount++
      else folders.push(id)
      const parent = parentId ?? ROOT_ID
      const list = lists.get(parent)
      if (list === undefined) lists.set(parent, [id])
      else list.push(id)
    })
    const orphaned: FileId[] = []
    for (const parent of lists.keys())
      if (parent !== ROOT_ID && !folderLike(table.get(parent))) orphaned.push(parent)
    for (const parent of orphaned) {
      const list = lists.get(parent)!
      lists.delete(parent)
      detached.set(parent, new Set(list))
      for (const id of list) detachedFrom.set(id, parent)
      const root = lists.get(ROOT_ID)
      if (root === undefined) lists.set(ROOT_ID, list)
      else for (const id of list) root.push(id)
    }
    // Cycles can only run through folders (a non-folder parent makes an orphan):
    // detect them over the functional graph of folders' stored parents, O(folders).
    const state = new Map<FileId, 1 | 2>() // 1 = on the current walk, 2 = done
    for (const folder of folders) {
      if (state.has(folder)) continue
      const trail: FileId[] = []
      let cur: FileId | null = folder
      while (cur !== null && !state.has(cur)) {
        if (table.get(cur)?.type !== 'folder') break
        state.set(cur, 1)
        trail.push(cur)
        cur = table.get(cur)!.parentId
      }
      if (cur !== null && state.get(cur) === 1) breakers.add(pickBreaker(trail.slice(trail.indexOf(cur))))
      for (const id of trail) state.set(id, 2)
    }
    // A breaker's stored parent is a folder of its cycle, so it was placed there.
    for (const id of breakers) {
      const row = table.get(id)!
      removeKid(storedParent(row), id)
      addKid(ROOT_ID, id)
      syncDetached(id, row, ROOT_ID)
    }
    // Display names are made per folder on first use (namesOf), not here: a
    // 100k-row workspace opens without naming folders nobody looks into.
  }

  /** The display-name map of a folder, made on first use. */
  const namesOf = (folder: FileId): Map<string, FileId> => {
    let m = names.get(folder)
    if (!m) {
      recomputeNames(folder)
      m = names.get(folder)!
    }
    return m
  }

  /** Display name of a row, naming its folder first if needed. */
  const displayOf = (id: FileId): string | undefined => {
    const parent = effParentOf(id)
    if (parent !== undefined && !names.has(parent)) recomputeNames(parent)
    return display.get(id)?.name
  }

  /**
   * The commonest change, a new file (or symlink) written by itself: placed and named
   * directly, as `apply` would, without its bookkeeping. Only for a row with no stored
   * children (which could switch between orphan and attached); a non-folder can neither
   * start nor end a parent cycle, so no cycle check. False when the change is not one.
   * (A row that was absent has no children in `kids`: only orphans waiting for it, which
   * are `detached` from it.)
   */
  const applyNewLeaf = (id: FileId, row: FileRow): boolean => {
    if (row.type === 'folder' || detached.has(id)) return false
    countRow(row, 1)
    const parent = computeEffParent(row)
    addKid(parent, id)
    if (parent !== storedParent(row)) syncDetached(id, row, parent)
    // A folder nobody has looked into yet gets its names when first asked.
    const m = names.get(parent)
    if (m === undefined || row.trashedAt !== null) return true
    sorted.delete(parent)
    const name = shownName(row)
    if (dupFolders.has(parent) || m.has(name)) recomputeNames(parent)
    else {
      m.set(name, id)
      display.set(id, { folder: parent, name })
    }
    return true
  }

  const apply = (changes: Map<FileId, FileRowChange>) => {
    if (changes.size === 1) {
      const [id, { before, after }] = changes.entries().next().value!
      if (before === undefined && after !== undefined && applyNewLeaf(id, after)) return
    }
    const dirty: Dirty = new Map()
    const recheck = new Set<FileId>()
    let structural = false
    let folderChanged = false
    for (const [id, { before, after }] of changes) {
      // Fast path: same parent and type (size, mtime, mode, name or trash changes).
      if (before && after && before.parentId === after.parentId && before.type === after.type) {
        countRow(before, -1)
        countRow(after, 1)
        if (
          before.name !== after.name ||
          before.trashedAt !== after.trashedAt ||
          before.createdAt !== after.createdAt
        ) {
          touch(dirty, effOf(after), id)
        }
        // The cycle rule orders by placement stamps, which a merge can change without changing
        // the fields: recheck cycles, only when some exist.
        if (breakers.size > 0) {
          structural = true
          recheck.add(id)
        }
        continue
      }
      if (before) countRow(before, -1)
      if (after) countRow(after, 1)
      recheck.add(id)
      if (!before || !after || before.parentId !== after.parentId || before.type !== after.type) {
        structural = true
        if (after?.type === 'folder') folderChanged = true
        // Stored children of an added, deleted or retyped row may switch between orphan and attached.
        addStoredChildren(id, recheck)
      }
      // `detachedFrom` still holds the row's state before this change.
      if (before) touch(dirty, effOf(before), id)
    }
    if (structural && (folderChanged || breakers.size > 0)) {
      // Every member of a cycle is a folder, and a cycle that no changed row is on existed
      // before (and has a breaker): so only changed folders and the breakers can start one.
      const candidates = new Set<FileId>(breakers)
      for (const [id, { after }] of changes) if (after?.type === 'folder') candidates.add(id)
      for (const b of breakers) recheck.add(b)
      breakers.clear()
      for (const id of candidates) {
        const cycle = findCycle(id)
        if (cycle) {
          const b = pickBreaker(cycle)
          breakers.add(b)
          recheck.add(b)
        }
      }
    }
    for (const id of recheck) {
      // The effective parent before: from the row as it was (unchanged rows: as it is) and the
      // row's `detachedFrom` entry, which only this iteration updates.
      const change = changes.get(id)
      const before = change === undefined ? table.get(id) : change.before
      const row = change === undefined ? before : table.get(id)
      const next = row ? computeEffParent(row) : undefined
      moveKid(id, before === undefined ? undefined : effOf(before), next, dirty)
      syncDetached(id, row, next)
    }
    updateNames(dirty)
    for (const [id, { after }] of changes) {
      if (after) continue
      display.delete(id)
      names.delete(id)
      sorted.delete(id)
      plaintext.delete(id)
    }
  }

  rebuild()
  const unobserve = table.observe((changes, tr) => {
    if (listeners.size === 0) return apply(changes)
    // A row that was absent had no path: no walk for it, and no map when every row is new (a
    // batch of new files, watched by an agent's tool call, is one change per file).
    let oldPaths: Map<FileId, string | undefined> | undefined
    changing = changes
    try {
      for (const [id, change] of changes) {
        if (change.before === undefined) continue
        oldPaths ??= new Map()
        oldPaths.set(id, index.pathOf(id))
      }
    } finally {
      changing = undefined
    }
    apply(changes)
    for (const fn of listeners) fn(changes, oldPaths ?? NO_OLD_PATHS, tr)
  })

  const index: FileSystemIndex = {
    lookup(path) {
      if (path === '/') return ROOT_ID
      let cur: FileId | undefined = ROOT_ID
      let start = 1
      while (cur !== undefined) {
        const end = path.indexOf('/', start)
        const part = end === -1 ? path.slice(start) : path.slice(start, end)
        cur = namesOf(cur).get(part)
        if (end === -1) return cur
        start = end + 1
      }
      return undefined
    },
    child: (parentId, name) => namesOf(parentId).get(name),
    pathOf(id) {
      if (id === ROOT_ID) return '/'
      const parts: string[] = []
      let cur: FileId = id
      while (cur !== ROOT_ID) {
        const row = rowOf(cur)
        if (row === undefined) return undefined
        const parent = effOf(row)
        if (!names.has(parent)) recomputeNames(parent)
        // Trashed rows have no display name, so a trashed ancestor ends the walk here.
        const name = display.get(cur)?.name
        if (name === undefined) return undefined
        parts.push(name)
        cur = parent
      }
      return `/${parts.reverse().join('/')}`
    },
    displayName: displayOf,
    childNames(parentId) {
      let list = sorted.get(parentId)
      if (!list) {
        list = [...namesOf(parentId).keys()].sort()
        sorted.set(parentId, list)
      }
      return list
    },
    allChildren: (parentId) => kidSet(parentId) ?? new Set(),
    effectiveParent: effParentOf,
    isVisible: (id) => index.pathOf(id) !== undefined,
    get totalBytes() {
      return totalBytes
    },
    get nodeCount() {
      return nodeCount
    },
    get symlinkCount() {
      return symlinkCount
    },
    plaintext,
    allPaths() {
      const out: string[] = []
      const walk = (folder: FileId, prefix: string) => {
        for (const name of index.childNames(folder)) {
          const id = namesOf(folder).get(name)!
          const p = prefix + name
          out.push(p)
          if (table.get(id)?.type === 'folder') walk(id, `${p}/`)
        }
      }
      walk(ROOT_ID, '/')
      return out
    },
    snapshot() {
      const paths: [string, FileId][] = index.allPaths().map((p) => [p, index.lookup(p)!])
      const shown = new Set(paths.map(([, id]) => id))
      const hidden = [...table.rows()].map((r) => r.id).filter((id) => !shown.has(id))
      return { paths, hidden: hidden.sort() }
    },
    onChange(fn) {
      listeners.add(fn)
      return () => listeners.delete(fn)
    },
    destroy() {
      unobserve()
      listeners.clear()
    },
  }
  return index
}
