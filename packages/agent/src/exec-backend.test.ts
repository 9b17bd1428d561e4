/**
 * The just-bash exec backend on a real YjsFileSystem: `filesChanged` lists
 * what this run changed — through symlinks, `mkdir -p`, `cp -r` and `mv` —
 * and never what other writers changed on the same filesystem meanwhile.
 */
import { createFileSystem } from '@yfs/core'
import { describe, expect, it } from 'vitest'
import { createJustBashBackend } from './exec-backend.js'

describe('createJustBashBackend', () => {
  it('runs a command with quoted arguments, stdin and cwd', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/w')
    const exec = createJustBashBackend(fs)
    const r = await exec.run('echo', ["it's", 'a b', '$HOME'], { cwd: '/w' })
    expect(r).toMatchObject({ stdout: "it's a b $HOME\n", exitCode: 0, filesChanged: [] })
    const piped = await exec.run('cat > out.txt && pwd', [], { cwd: '/w', stdin: 'from stdin' })
    expect(piped.stdout).toBe('/w\n')
    expect(await fs.readFile('/w/out.txt')).toBe('from stdin')
    expect(piped.filesChanged).toEqual(['/w/out.txt'])
  })

  it('reports changes made through a symlink, mkdir -p, cp -r, mv and rm', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/real')
    await fs.writeFile('/real/t.txt', 'x')
    await fs.symlink('/real/t.txt', '/link')
    const exec = createJustBashBackend(fs)
    expect((await exec.run('echo via link >> /link', [])).filesChanged).toEqual(['/real/t.txt'])
    expect((await exec.run('mkdir -p /p/q/r', [])).filesChanged).toEqual(['/p', '/p/q', '/p/q/r'])
    expect((await exec.run('cp -r /real /copy', [])).filesChanged).toEqual(['/copy', '/copy/t.txt'])
    expect((await exec.run('mv /copy /moved', [])).filesChanged).toEqual(['/copy', '/moved'])
    expect((await exec.run('rm -r /moved', [])).filesChanged).toEqual(['/moved'])
  })

  it('leaves out what concurrent runs and other writers change on the same filesystem', async () => {
    const fs = createFileSystem()
    const exec = createJustBashBackend(fs)
    await fs.mkdir('/a')
    await fs.mkdir('/b')
    const loop = (dir: string) => `for i in 1 2 3 4 5 6 7 8; do echo $i > /${dir}/f$i.txt; done`
    const other = (async () => {
      for (let i = 0; i < 8; i++) await fs.writeFile(`/c${i}.txt`, 'person')
      // Beside and below the run's files, not above them: not the run's `mkdir -p` either.
      await fs.mkdir('/a/sub')
      await fs.writeFile('/a/sub/f1.txt', 'person')
    })()
    const [ra, rb] = await Promise.all([exec.run(loop('a'), []), exec.run(loop('b'), []), other])
    const files = (dir: string) => Array.from({ length: 8 }, (_, i) => `/${dir}/f${i + 1}.txt`)
    expect(ra.filesChanged).toEqual(files('a'))
    expect(rb.filesChanged).toEqual(files('b'))
  })

  it('stops at the wall-clock limit with exit code 124 and a message', async () => {
    const fs = createFileSystem()
    const r = await createJustBashBackend(fs).run('sleep 10; echo late > /late.txt', [], { timeout: 100 })
    expect(r).toMatchObject({ timedOut: true, exitCode: 124, filesChanged: [] })
    expect(r.stderr).toContain('timed out after 100 ms')
    expect(await fs.exists('/late.txt')).toBe(false)
  })

  it('holds the command and loop limits it was given', async () => {
    const fs = createFileSystem()
    const exec = createJustBashBackend(fs, { maxLoopIterations: 50, maxCommandCount: 100 })
    const loop = await exec.run('i=0; while true; do i=$((i+1)); done', [])
    expect(loop.exitCode).not.toBe(0)
    expect(loop.stderr).toMatch(/iterations|limit/i)
    const many = await exec.run(Array.from({ length: 200 }, () => 'true').join('; '), [])
    expect(many.exitCode).not.toBe(0)
    expect(many.stderr).toMatch(/command|limit/i)
  })
})
