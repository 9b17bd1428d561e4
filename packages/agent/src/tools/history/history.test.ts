/**
 * history, diff, checkout_version, checkpoint and restore_checkpoint in one
 * agent-like sequence.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('history and checkpoints', () => {
  it('history, diff, checkout_version, checkpoint, restore_checkpoint', async () => {
    const { ok, err, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///h.txt', content: 'v1\n' })
    await ok('write_file', { path: 'vfs:///h.txt', content: 'v2\n' })
    const versions = (await ok('history', { path: 'vfs:///h.txt' })).structuredContent.versions as {
      id: string
    }[]
    expect(versions).toHaveLength(2)
    expect(
      (await ok('diff', { path: 'vfs:///h.txt', from_version: versions[0]!.id })).content[0]!.text,
    ).toContain('-v1\n+v2')
    const back = await ok('checkout_version', { path: 'vfs:///x/../h.txt', version: versions[0]!.id })
    expect(back.structuredContent).toMatchObject({ path: 'vfs:///h.txt', restored_from: versions[0]!.id })
    expect(await fs.readFile('/h.txt')).toBe('v1\n')
    expect((await err('diff', { path: 'vfs:///h.txt', from_version: 'nope' })).code).toBe('ENOENT')
    const cp = (await ok('checkpoint', { label: 'before' })).structuredContent.checkpoint as { id: string }
    await ok('write_file', { path: 'vfs:///added.txt', content: 'new' })
    await ok('write_file', { path: 'vfs:///h.txt', content: 'changed\n' })
    const r = await ok('restore_checkpoint', { id: cp.id })
    expect(r.structuredContent.undone).toMatchObject({
      added: ['vfs:///added.txt'],
      changed: ['vfs:///h.txt'],
    })
    expect(await fs.readFile('/h.txt')).toBe('v1\n')
    expect(await fs.exists('/added.txt')).toBe(false)
  })
})
