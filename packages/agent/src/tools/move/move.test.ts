/**
 * move and copy: no silent overwrite, parents created.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('move and copy', () => {
  it('move and copy refuse to overwrite unless asked, and create parents', async () => {
    const { ok, err, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///a.txt', content: 'a' })
    await ok('write_file', { path: 'vfs:///b.txt', content: 'b' })
    expect((await err('move', { source: 'vfs:///a.txt', destination: 'vfs:///b.txt' })).code).toBe('EEXIST')
    await ok('copy', { source: 'vfs:///a.txt', destination: 'vfs:///x/y/a.txt' })
    await ok('move', { source: 'vfs:///a.txt', destination: 'vfs:///b.txt', overwrite: true })
    expect(await fs.readFile('/b.txt')).toBe('a')
    expect(await fs.readFile('/x/y/a.txt')).toBe('a')
    expect((await err('move', { source: 'vfs:///missing', destination: 'vfs:///z' })).code).toBe('ENOENT')
  })
})
