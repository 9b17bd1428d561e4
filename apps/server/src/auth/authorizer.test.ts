// The authorizer's token cache is bounded and never holds a token itself; oversized tokens cost no lookup.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DocumentStore } from '../persistence/document-store.js'
import { createSqliteStore } from '../persistence/sqlite-store.js'
import { WorkspaceFiles } from '../workspace-files.js'
import { CACHE_LIMIT, createAuthorizer } from './authorizer.js'

describe('authorizer', () => {
  let dir: string
  let store: DocumentStore
  let lookups = 0
  let counted: DocumentStore

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'yfs-auth-'))
    store = createSqliteStore({ file: join(dir, 'yfs.sqlite') })
    await store.createWorkspace('w')
    // The real store, with its token lookups counted.
    counted = Object.assign(Object.create(store) as DocumentStore, {
      resolveToken: (token: string) => {
        lookups++
        return store.resolveToken(token)
      },
    })
  })
  afterAll(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('refuses a token over the length bound without looking it up or caching it', async () => {
    const authorizer = createAuthorizer({ store: counted, files: new WorkspaceFiles(), maxTokenBytes: 64 })
    const before = lookups
    await expect(authorizer.authorize('x'.repeat(65), 'w')).rejects.toMatchObject({ reason: 'invalid token' })
    expect(lookups).toBe(before)
    expect(authorizer.cacheSize).toBe(0)
  })

  it('keeps at most CACHE_LIMIT lookups, the newest, and still answers a valid token', async () => {
    const authorizer = createAuthorizer({ store: counted, files: new WorkspaceFiles() })
    const token = await store.createToken('w', 'write')
    await expect(authorizer.authorize(token, 'w')).resolves.toMatchObject({ role: 'write' })
    for (let k = 0; k < CACHE_LIMIT + 500; k++)
      await authorizer.authorize(`yfs_unknown_${k}`, 'w').catch(() => undefined)
    expect(authorizer.cacheSize).toBe(CACHE_LIMIT)
    // The valid token was evicted (the oldest), not forgotten: looked up again and still valid.
    const before = lookups
    await expect(authorizer.authorize(token, 'w')).resolves.toMatchObject({ role: 'write' })
    expect(lookups).toBe(before + 1)
    // And cached again: the next call costs no lookup.
    await authorizer.authorize(token, 'w')
    expect(lookups).toBe(before + 1)
  })
})
