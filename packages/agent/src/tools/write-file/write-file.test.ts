/**
 * write_file, create_file and append_file (one test: they share their input
 * and result).
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('write, create, append', () => {
  it('write creates parents; create refuses an existing path; append appends', async () => {
    const { ok, err } = setupTools()
    await ok('write_file', { path: 'vfs:///deep/er/f.txt', content: 'one\n' })
    expect((await err('create_file', { path: 'vfs:///deep/er/f.txt', content: 'x' })).code).toBe('EEXIST')
    await ok('create_file', { path: 'vfs:///deep/new.txt', content: 'new' })
    await ok('append_file', { path: 'vfs:///deep/er/f.txt', content: 'two\n' })
    expect((await ok('read_file', { path: 'vfs:///deep/er/f.txt' })).structuredContent.content).toBe(
      'one\ntwo',
    )
    expect((await err('write_file', { path: 'vfs:///deep', content: 'x' })).code).toBe('EISDIR')
  })
})
