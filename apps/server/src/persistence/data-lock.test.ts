/**
 * The data folder lock: one holder at a time, named in the refusal, free again once released.
 * (Across processes, and on a crash, it is the OS lock SQLite takes: test/mcp-cli.e2e.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DataFolderBusy, lockDataFolder } from './data-lock.js'

describe('lockDataFolder', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  it('refuses a second holder, naming the folder and the pid, until the first releases', () => {
    const dir = mkdtempSync(join(tmpdir(), 'yfs-lock-'))
    dirs.push(dir)
    const folder = join(dir, 'data')
    const lock = lockDataFolder(folder)
    expect(lock.folder).toBe(folder)
    let refusal: unknown
    try {
      lockDataFolder(folder)
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(DataFolderBusy)
    expect((refusal as DataFolderBusy).message).toContain(`data folder '${folder}' is in use`)
    expect((refusal as DataFolderBusy).message).toContain(`pid ${process.pid}`)
    lock.release()
    lock.release()
    const again = lockDataFolder(folder)
    again.release()
  })
})
