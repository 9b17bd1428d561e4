/**
 * stat, list_directory and tree on one small workspace.
 */
import { describe, expect, it } from 'vitest'
import { setupTools, toolsOn } from '../../testing/tool-harness.js'

describe('stat, list_directory and tree', () => {
  it('stat, list_directory and tree describe the workspace', async () => {
    const { ok, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///src/lib/a.ts', content: 'aa' })
    await ok('write_file', { path: 'vfs:///src/b.ts', content: 'b' })
    expect((await ok('stat', { path: 'vfs:///src' })).structuredContent).toMatchObject({
      type: 'folder',
      mode: '0755',
    })
    const list = await ok('list_directory', { path: 'vfs:///src' })
    expect((list.structuredContent.entries as { name: string }[]).map((e) => e.name)).toEqual(['b.ts', 'lib'])
    for (let i = 0; i < 7; i++) await ok('write_file', { path: `vfs:///big/f${i}`, content: '' })
    const capped = await toolsOn(fs, { maxResults: 5 }).execute('list_directory', { path: 'vfs:///big' })
    expect(capped.structuredContent).toMatchObject({ count: 7, truncated: true })
    expect(capped.structuredContent.entries).toHaveLength(5)
    expect(capped.content[0]!.text).toContain('2 more entries not shown')
    const tree = await ok('tree', { path: 'vfs:///', depth: 2 })
    expect(tree.content[0]!.text).toBe(
      'vfs:///\n├── big/\n│   ├── f0\n│   ├── f1\n│   ├── f2\n│   ├── f3\n│   ├── f4\n│   ├── f5\n│   └── f6\n└── src/\n    ├── b.ts\n    └── lib/',
    )
  })
})
