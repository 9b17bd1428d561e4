/**
 * delete and restore: to the trash and back.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('delete', () => {
  it('delete goes to the trash and restore brings it back', async () => {
    const { ok, err } = setupTools()
    await ok('write_file', { path: 'vfs:///d/f.txt', content: 'x' })
    expect((await err('delete', { path: 'vfs:///d' })).code).toBe('ENOTEMPTY')
    const del = await ok('delete', { path: 'vfs:///d', recursive: true })
    expect((await err('stat', { path: 'vfs:///d/f.txt' })).code).toBe('ENOENT')
    const trash = (await ok('restore', {})).structuredContent.trash as { trash_id: string }[]
    expect(trash.map((t) => t.trash_id)).toContain(del.structuredContent.trash_id)
    await ok('restore', { trash_id: del.structuredContent.trash_id })
    expect((await ok('read_file', { path: 'vfs:///d/f.txt' })).structuredContent.content).toBe('x')
    expect((await err('restore', { trash_id: 'nope' })).code).toBe('ENOENT')
  })
})
