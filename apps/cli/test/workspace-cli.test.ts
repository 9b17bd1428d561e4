// `yfs workspace create` refuses ids named like Object.prototype members (the server's side:
// apps/server/test/workspace-ids.test.ts) before it opens or creates a store.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteStore } from '@yfs/server'
import { expect, it } from 'vitest'
import { createProgram } from '../src/cli.js'

it('`yfs workspace create` refuses a reserved id and leaves the store empty', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-cli-'))
  try {
    for (const id of ['constructor', 'toString', 'hasOwnProperty']) {
      const program = createProgram().exitOverride()
      await expect(
        program.parseAsync(['node', 'yfs', 'workspace', 'create', id, '--data', dir]),
      ).rejects.toThrow(/reserved/)
    }
    const store = createSqliteStore({ file: join(dir, 'yfs.sqlite') })
    try {
      expect(await store.listWorkspaces()).toEqual([])
    } finally {
      await store.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
