/**
 * bash through the registry: files_changed, output caps, execution limits.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('bash', () => {
  it('runs a script on the workspace and reports the files it changed', async () => {
    const { ok } = setupTools()
    await ok('write_file', { path: 'vfs:///src/a.ts', content: 'x\n' })
    const r = await ok('bash', { script: 'echo made > /new.txt; mv /src/a.ts /src/b.ts; grep -rl x /src' })
    expect(r.structuredContent).toMatchObject({ stdout: '/src/b.ts\n', exit_code: 0 })
    expect(r.structuredContent.files_changed).toEqual([
      'vfs:///new.txt',
      'vfs:///src/a.ts',
      'vfs:///src/b.ts',
    ])
  })

  it('caps output with a note and stops endless loops and slow scripts', async () => {
    const { ok } = setupTools({ maxOutputChars: 1000 })
    const big = await ok('bash', { script: 'for i in $(seq 1 2000); do echo line $i; done' })
    expect(big.structuredContent.stdout as string).toContain('[output cut:')
    const loop = await ok('bash', { script: 'while true; do :; done' })
    expect(loop.structuredContent.exit_code).not.toBe(0)
    expect(loop.structuredContent.stderr as string).toMatch(/too many|limit/)
    const slow = await ok('bash', { script: 'sleep 5; echo never', timeout_ms: 200 })
    expect(slow.structuredContent.exit_code).not.toBe(0)
    expect(slow.structuredContent.stdout).not.toContain('never')
  })
  it('takes cwd as a POSIX path or a vfs:/// URL, and refuses one that is not a folder', async () => {
    const { ok, err } = setupTools()
    await ok('write_file', { path: 'vfs:///src/a.ts', content: 'x' })
    for (const cwd of ['/src', 'src', 'vfs:///src', '/x/../src'])
      expect((await ok('bash', { script: 'pwd; ls', cwd })).structuredContent.stdout).toBe('/src\na.ts\n')
    expect(await err('bash', { script: 'pwd', cwd: '/nope' })).toMatchObject({
      code: 'ENOTDIR',
      path: 'vfs:///nope',
    })
    expect((await err('bash', { script: 'pwd', cwd: 'vfs:///src/a.ts' })).code).toBe('ENOTDIR')
    expect((await err('bash', { script: 'pwd', cwd: '/a\0b' })).code).toBe('EINVAL')
  })
})
