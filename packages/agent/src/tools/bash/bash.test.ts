/**
 * bash through the registry: files_changed, output caps, execution limits.
 */
import { createFileSystem } from '@yfs/core'
import { waitFor } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import { describe, expect, it } from 'vitest'
import { createJustBashBackend } from '../../exec-backend.js'
import { createToolRegistry } from '../../registry.js'
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
  it('stops a running script when the call is aborted (exit code 130, interrupted)', async () => {
    for (const inProcess of [false, true]) {
      const fs = createFileSystem({ codecs: [markdownCodec] })
      const tools = createToolRegistry(fs, { exec: createJustBashBackend(fs, {}, { inProcess }) })
      const controller = new AbortController()
      const started = performance.now()
      const running = tools.execute(
        'bash',
        { script: 'echo before > /started; sleep 30; echo never' },
        { signal: controller.signal },
      )
      await waitFor(() => fs.exists('/started'), 'the script to start')
      controller.abort()
      const r = await running
      expect(performance.now() - started).toBeLessThan(5000)
      expect(r.structuredContent).toMatchObject({ exit_code: 130, interrupted: true })
      expect(r.structuredContent.stdout).not.toContain('never')
      // The next call runs as usual.
      const next = await tools.execute('bash', { script: 'echo next' })
      expect(next.structuredContent).toMatchObject({ stdout: 'next\n', exit_code: 0 })
    }
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

  it('starts where folders exist: cwd /, HOME /, TMPDIR /tmp; /tmp is scratch that never syncs', async () => {
    const { ok, fs } = setupTools()
    const r = await ok('bash', {
      script:
        'pwd; echo "$HOME $TMPDIR"; cd ~ && pwd; cd && pwd; echo scratch > $TMPDIR/notes.txt && cat /tmp/notes.txt; mkdir -p /tmp/work && cd /tmp/work && pwd',
    })
    expect(r.structuredContent).toMatchObject({
      stdout: '/\n/ /tmp\n/\n/\nscratch\n/tmp/work\n',
      stderr: '',
      exit_code: 0,
      files_changed: [],
    })
    // /tmp lasts as long as the workspace instance: the next call sees it.
    expect(
      (await ok('bash', { script: 'cat /tmp/notes.txt', cwd: '/tmp/work' })).structuredContent.stdout,
    ).toBe('scratch\n')
    expect(fs.index.allPaths()).toEqual([])
  })

  it('runs what agents write with scratch files: awk/split into /tmp, gzip, rg -z, tar round trips', async () => {
    const { ok, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///data/log.csv', content: 'a,1\nb,2\na,3\n' })
    await fs.writeFile('/data/blob.bin', new Uint8Array([0, 0xff, 0x80, 0, 7]))
    const script = [
      'set -euo pipefail',
      `awk -F, '{ print > "/tmp/by-key" }' /data/log.csv`,
      'split -l 2 /tmp/by-key /tmp/part_',
      'ls /tmp | sort | uniq -c | wc -l',
      'gzip -c /data/log.csv > /data/log.csv.gz',
      'rg -z "^a" /data/log.csv.gz | sort -u',
      'tar czf /tmp/backup.tgz -C /data log.csv blob.bin',
      'mkdir /tmp/restore && tar xzf /tmp/backup.tgz -C /tmp/restore',
      'diff <(od -An -tx1 /data/blob.bin) <(od -An -tx1 /tmp/restore/blob.bin) && echo identical',
    ].join('\n')
    const r = await ok('bash', { script })
    expect(r.structuredContent).toMatchObject({
      stdout: '3\na,1\na,3\nidentical\n',
      stderr: '',
      exit_code: 0,
      files_changed: ['vfs:///data/log.csv.gz'],
    })
    // The other tools read /tmp too.
    const [fromTmp, original] = [
      await ok('read_file', { path: 'vfs:///tmp/restore/log.csv' }),
      await ok('read_file', { path: 'vfs:///data/log.csv' }),
    ]
    expect(fromTmp.structuredContent.content).toBe(original.structuredContent.content)
    expect(fromTmp.structuredContent.content).toContain('b,2')
  })

  it('a redirection into a missing folder is a shell error (exit 1), not a failed call', async () => {
    const { ok, fs } = setupTools()
    const r = await ok('bash', { script: 'echo x > /missing/f.txt' })
    expect(r.structuredContent).toMatchObject({
      stdout: '',
      stderr: 'bash: /missing/f.txt: No such file or directory\n',
      exit_code: 1,
      files_changed: [],
    })
    expect(await fs.exists('/missing')).toBe(false)
    expect((await ok('bash', { script: 'echo x >> /tmp/none/f' })).structuredContent.exit_code).toBe(1)
  })
})
