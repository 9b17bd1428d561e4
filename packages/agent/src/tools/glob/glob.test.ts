/**
 * glob: picomatch patterns, negation, .gitignore, and absolute patterns
 * refused (for grep's include too).
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('glob', () => {
  it('glob: **, braces, negation and .gitignore', async () => {
    const { ok } = setupTools()
    for (const p of ['src/a.ts', 'src/b.tsx', 'src/c.js', 'node_modules/x/i.ts', 'dist/out.ts'])
      await ok('write_file', { path: `vfs:///${p}`, content: 'x' })
    await ok('write_file', { path: 'vfs:///.gitignore', content: 'dist/\n' })
    const m = async (args: object) => (await ok('glob', args)).structuredContent.matches
    expect(await m({ pattern: '**/*.{ts,tsx}' })).toEqual([
      'vfs:///node_modules/x/i.ts',
      'vfs:///src/a.ts',
      'vfs:///src/b.tsx',
    ])
    expect(await m({ pattern: ['**/*.ts', '!node_modules/**'] })).toEqual(['vfs:///src/a.ts'])
    expect(await m({ pattern: '**/*.ts', respect_gitignore: false })).toContain('vfs:///dist/out.ts')
    expect(await m({ pattern: '*.js', path: 'vfs:///src' })).toEqual(['vfs:///src/c.js'])
    expect(await m({ pattern: '**/*.py' })).toEqual([])
  })

  it('glob and grep refuse absolute patterns with the relative form to use', async () => {
    const { err } = setupTools()
    expect((await err('glob', { pattern: 'vfs:///src/**/*.ts' })).message).toContain("use 'src/**/*.ts'")
    expect((await err('glob', { pattern: '/src/*.ts', path: 'vfs:///src' })).message).toContain("use '*.ts'")
    expect((await err('glob', { pattern: ['**', '!/dist/**'] })).message).toContain("use '!dist/**'")
    expect((await err('grep', { pattern: 'x', include: '/lib/*.ts' })).code).toBe('EINVAL')
  })
})
