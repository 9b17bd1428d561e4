/**
 * The workspace's checkpoints as Svelte state (newest first), re-read when the checkpoints map
 * changes on any replica. Components call the filesystem for create / diff / restore and read
 * `list`; they never touch the Y.Map.
 */
import { CHECKPOINTS_KEY, type CheckpointInfo, type YjsFileSystem } from '@yfs/core'

export class CheckpointList {
  list = $state.raw<CheckpointInfo[]>([])
  #stop: () => void

  constructor(readonly fs: YjsFileSystem) {
    const map = fs.doc.getMap(CHECKPOINTS_KEY)
    const changed = () => this.refresh()
    map.observe(changed)
    this.#stop = () => map.unobserve(changed)
    this.refresh()
  }

  refresh(): void {
    this.list = [...this.fs.checkpoints()].reverse()
  }

  destroy(): void {
    this.#stop()
  }
}
