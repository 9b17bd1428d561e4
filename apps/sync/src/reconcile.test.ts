/**
 * reconcile: the first-run and restart rules of the table in reconcile.ts,
 * one case per row, plus a fast-check property: applying the operations to
 * a model of both sides always leaves them equal, and never deletes a path
 * that changed on the other side.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type DiskNode, reconcile, type StateNode, type SyncOp, type WorkspaceNode } from './reconcile.js'

const file = (hash: string, mode = 0o644): DiskNode => ({ kind: 'file', hash, mode })
const wsFile = (id: string, stamp: string): WorkspaceNode => ({ kind: 'file', id, stamp })
const synced = (id: string, hash: string, stamp: string): StateNode => ({
  kind: 'file',
  id,
  hash,
  stamp,
  mode: 0o644,
})

function ops(
  disk: [string, DiskNode][],
  ws: [string, WorkspaceNode][],
  state: [string, StateNode][],
): SyncOp[] {
  return reconcile({ disk: new Map(disk), workspace: new Map(ws), state: new Map(state) })
}

describe('reconcile', () => {
  it('first run: uploads disk-only, downloads workspace-only, compares both', () => {
    expect(ops([['/a', file('h1')]], [], [])).toEqual([{ type: 'upload', path: '/a', kind: 'file' }])
    expect(ops([], [['/a', wsFile('i', 's')]], [])).toEqual([{ type: 'download', path: '/a', kind: 'file' }])
    expect(ops([['/a', file('h1')]], [['/a', wsFile('i', 's')]], [])).toEqual([
      { type: 'compare', path: '/a' },
    ])
  })

  it('unchanged on both sides: nothing', () => {
    expect(ops([['/a', file('h')]], [['/a', wsFile('i', 's')]], [['/a', synced('i', 'h', 's')]])).toEqual([])
  })

  it('one side changed: that side wins; both changed: merge', () => {
    const s: [string, StateNode][] = [['/a', synced('i', 'h', 's')]]
    expect(ops([['/a', file('h2')]], [['/a', wsFile('i', 's')]], s)).toEqual([
      { type: 'upload', path: '/a', kind: 'file' },
    ])
    expect(ops([['/a', file('h')]], [['/a', wsFile('i', 's2')]], s)).toEqual([
      { type: 'download', path: '/a', kind: 'file' },
    ])
    expect(ops([['/a', file('h2')]], [['/a', wsFile('i', 's2')]], s)).toEqual([{ type: 'merge', path: '/a' }])
    expect(ops([['/a', file('h', 0o755)]], [['/a', wsFile('i', 's')]], s)).toEqual([
      { type: 'upload', path: '/a', kind: 'file' },
    ])
  })

  it('deletes are not resurrected, and an edit beats a delete', () => {
    const s: [string, StateNode][] = [['/a', synced('i', 'h', 's')]]
    expect(ops([], [['/a', wsFile('i', 's')]], s)).toEqual([
      { type: 'delete-remote', path: '/a', kind: 'file' },
    ])
    expect(ops([['/a', file('h')]], [], s)).toEqual([{ type: 'delete-local', path: '/a', kind: 'file' }])
    expect(ops([], [['/a', wsFile('i', 's2')]], s)).toEqual([{ type: 'download', path: '/a', kind: 'file' }])
    expect(ops([['/a', file('h2')]], [], s)).toEqual([
      { type: 'upload', path: '/a', kind: 'file', restoreId: 'i' },
    ])
    expect(ops([], [], s)).toEqual([{ type: 'forget', path: '/a' }])
  })

  it('moves while offline keep ids: workspace moves become local moves, disk moves workspace moves', () => {
    const s: [string, StateNode][] = [['/a', synced('i', 'h', 's')]]
    expect(ops([['/a', file('h')]], [['/b', wsFile('i', 's2')]], s)).toEqual([
      { type: 'move-local', from: '/a', path: '/b' },
    ])
    expect(ops([['/b', file('h')]], [['/a', wsFile('i', 's')]], s)).toEqual([
      { type: 'move-remote', from: '/a', path: '/b' },
    ])
  })

  it('a kind replaced on disk while the workspace kept it: its delete comes alone; changed → kind-conflict', () => {
    const folder: DiskNode = { kind: 'folder', hash: '', mode: 0o755 }
    const wsFolder = (id: string): WorkspaceNode => ({ kind: 'folder', id, stamp: 'f' })
    const s: [string, StateNode][] = [['/a', synced('i', 'h', 's')]]
    expect(
      ops(
        [
          ['/a', folder],
          ['/a/in', file('x')],
        ],
        [['/a', wsFile('i', 's')]],
        s,
      ),
    ).toEqual([{ type: 'delete-remote', path: '/a', kind: 'file' }])
    // Changed in the workspace meanwhile: reported, and nothing is done below it.
    expect(
      ops(
        [
          ['/a', folder],
          ['/a/in', file('x')],
        ],
        [['/a', wsFile('i', 's2')]],
        s,
      ),
    ).toEqual([{ type: 'kind-conflict', path: '/a' }])
    // A folder replaced by a file: only when its synced children are unchanged in the workspace.
    const sf: [string, StateNode][] = [
      ['/d', { kind: 'folder', id: 'd', hash: '', mode: 0o755, stamp: 'f' }],
      ['/d/x', synced('x', 'hx', 's')],
    ]
    expect(
      ops(
        [['/d', file('h')]],
        [
          ['/d', wsFolder('d')],
          ['/d/x', wsFile('x', 's')],
        ],
        sf,
      ),
    ).toEqual([{ type: 'delete-remote', path: '/d', kind: 'folder' }])
    expect(
      ops(
        [['/d', file('h')]],
        [
          ['/d', wsFolder('d')],
          ['/d/x', wsFile('x', 's2')],
        ],
        sf,
      ),
    ).toEqual([{ type: 'kind-conflict', path: '/d' }])
  })

  it('orders folders before files before deletes, parents first and children last', () => {
    const folder: DiskNode = { kind: 'folder', hash: '', mode: 0o755 }
    const result = ops(
      [
        ['/d/e/f', file('x')],
        ['/d/e', folder],
        ['/d', folder],
      ],
      [],
      [],
    )
    expect(result.map((o) => o.path)).toEqual(['/d', '/d/e', '/d/e/f'])
  })

  it('property: after the operations both sides hold the same paths, and changed paths are never deleted', () => {
    const name = fc.constantFrom('/a', '/b', '/c')
    const side = fc.constantFrom('same', 'changed', 'gone', 'absent')
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, side, side), { selector: (t) => t[0] }), (cases) => {
        const disk = new Map<string, DiskNode>()
        const ws = new Map<string, WorkspaceNode>()
        const state = new Map<string, StateNode>()
        for (const [path, d, w] of cases) {
          const known = d !== 'absent' && w !== 'absent'
          const id = `id${path}`
          // Distinct bytes per path: equal bytes at two paths are a move, tested above.
          if (known) state.set(path, synced(id, `h${path}`, 's'))
          if (d === 'same' || d === 'changed' || d === 'absent')
            disk.set(path, file(d === 'changed' ? `h2${path}` : `h${path}`))
          if (w === 'same' || w === 'changed' || w === 'absent')
            ws.set(path, wsFile(id, w === 'changed' ? 's2' : 's'))
        }
        const result = reconcile({ disk, workspace: ws, state })
        const onDisk = new Set(disk.keys())
        const inWs = new Set(ws.keys())
        for (const op of result) {
          if (op.type === 'upload') inWs.add(op.path)
          if (op.type === 'download') onDisk.add(op.path)
          if (op.type === 'delete-remote') {
            expect(ws.get(op.path)?.stamp).toBe('s')
            inWs.delete(op.path)
          }
          if (op.type === 'delete-local') {
            expect(disk.get(op.path)?.hash).toBe(`h${op.path}`)
            onDisk.delete(op.path)
          }
        }
        expect([...onDisk].sort()).toEqual([...inWs].sort())
      }),
      { seed: 14, numRuns: 500 },
    )
  })
})
