/**
 * The data folder lock: an exclusive holder (yfs mcp) excludes everyone, shared holders
 * (servers) only it; a refusal names the folder, the holder and what to do; a released lock
 * is free again. (Across processes, and on a crash, it is the OS lock SQLite takes:
 * test/mcp-cli.e2e.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DataFolderBusy, type LockOptions, lockDataFolder } from './data-lock.js'

const MCP: LockOptions = { mode: 'exclusive', holder: 'yfs mcp', advice: 'stop it' }
const SERVE: LockOptions = { mode: 'shared', holder: 'yfs serve', advice: 'use --server' }

function refusal(dir: string, options: LockOptions): DataFolderBusy {
  try {
    lockDataFolder(dir, options).release()
  } catch (error) {
    if (error instanceof DataFolderBusy) return error
    throw error
  }
  throw new Error('the lock was granted')
}

describe('lockDataFolder', () => {
  const dirs: string[] = []
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'yfs-lock-'))
    dirs.push(dir)
    return join(dir, 'data')
  }
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  it('an exclusive holder refuses everyone, naming the folder, the holder and the advice', () => {
    const dir = folder()
    const lock = lockDataFolder(dir, MCP)
    expect(lock.folder).toBe(dir)
    expect(refusal(dir, MCP).message).toBe(
      `data folder '${dir}' is in use by yfs mcp (pid ${process.pid}): stop it`,
    )
    expect(refusal(dir, SERVE).message).toContain('in use by yfs mcp')
    lock.release()
    lock.release()
    lockDataFolder(dir, MCP).release()
  })

  it('shared holders share, and refuse an exclusive one until the last releases', () => {
    const dir = folder()
    const one = lockDataFolder(dir, SERVE)
    const two = lockDataFolder(dir, SERVE)
    expect(refusal(dir, MCP).message).toBe(
      `data folder '${dir}' is in use by yfs serve (pid ${process.pid}): stop it`,
    )
    one.release()
    expect(refusal(dir, MCP)).toBeInstanceOf(DataFolderBusy)
    two.release()
    lockDataFolder(dir, MCP).release()
  })
})
