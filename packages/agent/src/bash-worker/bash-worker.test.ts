/**
 * just-bash in a worker thread (the default exec backend) against a real
 * YjsFileSystem on this thread: the script's computing never holds this
 * thread's event loop, a script stuck in one command is stopped at its
 * timeout, and what a script sees and reports is what the same script sees
 * in-process (errors, /bin /dev /proc, `ls` with a glob, files changed).
 */
import { createFileSystem, paths } from '@yfs/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createJustBashBackend, type ExecResult } from '../exec-backend.js'
import { resolveVirtualPath } from './fs-proxy.js'

/** The largest lateness of a 5 ms timer on this thread while `work` runs. */
async function maxEventLoopGap<T>(work: () => Promise<T>): Promise<{ value: T; gapMs: number }> {
  let last = performance.now()
  let gapMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    gapMs = Math.max(gapMs, now - last - 5)
    last = now
  }, 5)
  try {
    return { value: await work(), gapMs }
  } finally {
    clearInterval(timer)
  }
}

// Largest timer lateness allowed on a loaded 2-core box. A script churning 64 MiB strings slows
// the whole process (page faults, memory bandwidth) even from a worker: measured 5–152 ms at load
// 4–6 with another job saturating a core, against 0.2–20 s for the same scripts in-process.
const MAX_GAP_MS = 200
// An fs-bound loop runs every fs call here: each is short (≤ 25 ms measured), but they keep this
// thread busy, so the scheduler's noise on a loaded box adds up more (in-process: 1–2 s).
const MAX_FS_LOOP_GAP_MS = 300

// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion
const DOUBLING = 'x=a; for k in $(seq 1 26); do x="$x$x"; done; echo "${x:0:3}"'

/**
 * `scripts` run one after another on a fresh filesystem (`newFs`) in the worker, then in-process:
 * each gives the same output, exit code and files changed both ways. The worker's results.
 */
async function sameBothWays(
  scripts: string[],
  newFs: () => ReturnType<typeof createFileSystem>,
): Promise<Partial<ExecResult>[]> {
  const run = async (inProcess: boolean) => {
    const exec = createJustBashBackend(newFs(), {}, { inProcess })
    const out: Partial<ExecResult>[] = []
    for (const s of scripts) {
      const { stdout, stderr, exitCode, filesChanged } = await exec.run(s, [])
      out.push({ stdout, stderr, exitCode, filesChanged })
    }
    return out
  }
  const [worker, inProcess] = [await run(false), await run(true)]
  for (let i = 0; i < scripts.length; i++) expect(worker[i], scripts[i]).toEqual(inProcess[i])
  return worker
}

describe('the bash worker', () => {
  it('an fs-bound loop does not hold the event loop (in-process it holds it for the whole run)', async () => {
    const script = 'mkdir /d; for i in $(seq 1 300); do echo "line $i" > /d/f$i.txt; done; ls /d | wc -l'
    const worker = await maxEventLoopGap(() => createJustBashBackend(createFileSystem()).run(script, []))
    expect(worker.value).toMatchObject({ stdout: '300\n', exitCode: 0 })
    expect(worker.value.filesChanged).toHaveLength(301)
    expect(worker.gapMs).toBeLessThan(MAX_FS_LOOP_GAP_MS)
    // The same script on this thread: its fs calls never yield, so the loop is blocked throughout.
    const inProcess = await maxEventLoopGap(() =>
      createJustBashBackend(createFileSystem(), {}, { inProcess: true }).run(script, []),
    )
    expect(inProcess.value).toMatchObject({ stdout: '300\n', exitCode: 0 })
    expect(inProcess.gapMs).toBeGreaterThan(worker.gapMs)
  })

  it('a CPU-bound script (a 64 MiB string) does not hold the event loop, and gives bash’s result', async () => {
    const { value, gapMs } = await maxEventLoopGap(() =>
      createJustBashBackend(createFileSystem()).run(DOUBLING, []),
    )
    expect(value).toMatchObject({ stdout: 'aaa\n', stderr: '', exitCode: 0 })
    expect(gapMs).toBeLessThan(MAX_GAP_MS)
    // One doubling more passes just-bash's string limit: its documented error, not a crash.
    const over = await createJustBashBackend(createFileSystem()).run(
      'x=a; for k in $(seq 1 27); do x="$x$x"; done; echo never',
      [],
    )
    expect(over.exitCode).not.toBe(0)
    expect(over.stderr).toMatch(/string.*limit exceeded/)
    expect(over.stdout).not.toContain('never')
  })

  it('a huge output is cut in the worker (true counts in the note), not copied whole to this thread', async () => {
    const exec = createJustBashBackend(createFileSystem())
    const { value, gapMs } = await maxEventLoopGap(() =>
      exec.run('x=a; for k in $(seq 1 25); do x="$x$x"; done; echo "$x"', [], { maxOutputChars: 1000 }),
    )
    const total = 2 ** 25 + 1
    expect(value.stdout).toBe(
      `${'a'.repeat(1000)}\n… [output cut: ${total - 1000} of ${total} characters not shown]`,
    )
    expect(value.exitCode).toBe(0)
    expect(gapMs).toBeLessThan(MAX_GAP_MS)
  })

  it('a script stuck in one long command is stopped at its timeout, and the next run works', async () => {
    const exec = createJustBashBackend(createFileSystem())
    const started = performance.now()
    const { value, gapMs } = await maxEventLoopGap(() =>
      exec.run('x=a; for k in $(seq 1 26); do x="$x$x"; done; [[ $x == *b* ]]; echo late > /late.txt', [], {
        timeout: 500,
      }),
    )
    expect(value).toMatchObject({ timedOut: true, exitCode: 124, filesChanged: [] })
    expect(value.stderr).toContain('timed out after 500 ms')
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(gapMs).toBeLessThan(MAX_GAP_MS)
    expect(await exec.run('echo ok', [])).toMatchObject({ stdout: 'ok\n', exitCode: 0 })
  })

  it('a script sees and reports what it would in-process', async () => {
    const scripts = [
      'cat /missing.txt; echo "rc=$?"',
      'echo x > /nofolder/f.txt',
      'mkdir -p /a/b && echo hi > /a/b/c.txt && ln -s /a/b/c.txt /link && cat /link && ls -la /a/b | wc -l',
      "ls '/a/*' /a; ls /bin | wc -l; cat /proc/version; ls /dev; echo x > /dev/null; echo rc=$?",
      'cd /a && pwd && cd ~ && pwd && echo $TMPDIR && echo tmp > $TMPDIR/t && cat /tmp/t',
      'printf "b\\na\\n" > /s.txt && sort /s.txt && sed -i s/a/z/ /s.txt && cat /s.txt && rm /s.txt && stat /s.txt',
      'head -c 4 /a/b/c.txt | od -c | head -1; echo -n é > /u.txt; wc -c < /u.txt',
      'find / -name "*.txt" -not -path "/tmp/*" | sort; mv /a /m; cp -r /m /n; ls -R /n',
      // Listed, then stat'ed entry by entry (the worker's stat prefetch), with changes between.
      'mkdir /p; for i in 1 2 3 4 5; do echo $i > /p/f$i; done; ln -s /p/f1 /p/l; ln -s /gone /p/d; ls -la /p | wc -l; rm /p/f2; ls -l /p | wc -l; echo more >> /p/f3; ls -l /p/f3 | cut -c1-30; cp -r /p /q; ls -la /q | wc -l; find /p -type l | sort; test -e /p/d; echo "dangling=$?"; tar -cf /p.tar /p; tar -tf /p.tar | sort',
      // Names known from the run's own writes and mkdirs (fs-proxy.ts), through symlinked folders too.
      'mkdir -p /w/x; ln -s /w/x /wl; for i in 1 2 3; do test -e /wl/g$i; echo "before=$?"; echo $i > /wl/g$i; test -e /w/x/g$i; echo "after=$?"; done; ls /w/x; mkdir -p /w/x/y; mkdir -p /wl/y; test -d /w/x/y; echo "dir=$?"; rm -r /w/x; mkdir -p /wl/z; echo "rc=$?"; test -e /w/x/g1; echo "gone=$?"; mkdir -p /w/x && echo back > /w/x/h && ls /wl; tar -cf /w.tar /w; mkdir /t2; tar -xf /w.tar -C /t2; ls -R /t2',
      // Writes the worker goes on from (write-behind), then read back, listed, globbed, appended,
      // over a symlink, a folder and /tmp; the read-ahead over a folder's files.
      'mkdir /r; for i in 1 2 3 4 5 6; do echo "v $i" > /r/f$i; done; echo /r/*; cat /r/*; ls /r | wc -l; for i in 1 2 3; do echo "a $i" >> /r/log; done; cat /r/log; mkdir /r/sub; echo x > /r/sub; echo "rc=$?"; ln -s /r/f1 /r/link; echo via > /r/link; cat /r/f1; sed -i s/v/w/ /r/*; echo "rc=$?"; cat /r/f2 /r/f6 /r/f1; echo t > /tmp/wb; cat /tmp/wb; ls /r',
      'for i in 1 2 3; do printf "%s" "$i" > /r/f$i; done; wc -c /r/f1 /r/f2 /r/f3; echo "é" > /r/u; wc -c < /r/u; rm /r/f4; echo back > /r/f4; cat /r/f4; mv /r/f5 /r/g; echo again > /r/f5; cat /r/g /r/f5',
      // What was read ahead or stat'ed through a symlink (a linked folder, a linked file), then
      // written through the real path, read again through the link.
      // Modes and mtimes changed without waiting (touch, chmod of a listed folder's files), also
      // through a symlinked folder, and of a file removed and made again.
      'mkdir /m; for i in 1 2 3; do echo $i > /m/f$i; done; ln -s /m /ml; chmod 700 /ml/*; stat -c "%a %n" /m/*; touch /ml/*; chmod 640 /m/*; stat -c "%a" /ml/f1; rm /m/f2; touch /m/f2; chmod 600 /m/f2; stat -c "%a %s" /m/f2; chmod 750 /m; stat -c %a /m /ml/; ls /m; chmod 1.5 /m/f1; echo "rc=$?"; touch -d "2001-02-03 04:05" /m/f3; ls -l /m/f3 | cut -c1-10',
      // A folder listed through a symlink, then written by its real path: the name is there
      // (touch must not truncate it), as in-process.
      'mkdir /y; ln -s /y /z; ls /z/ > /dev/null; echo 1 > /y/f1; test -e /z/f1; echo "e=$?"; touch /z/f1; cat /y/f1; cat /z/* > /dev/null; echo 2 > /y/f2; test -e /z/f2; echo "e=$?"',
      // Read ahead as byte strings (`cat`, `wc`, `head`, `sort`): non-UTF-8 bytes, a write between.
      'mkdir /b; printf "\\xff\\x00\\xe9 raw\\n" > /b/bin; for i in 1 2 3 4 5; do echo "l $i é" > /b/f$i; done; wc -l /b/*; head -n1 /b/* | od -c | head -3; echo new > /b/f4; cat /b/* | od -c | tail -4; for f in /b/*; do cat "$f"; done | wc -c; sort /b/f*; md5sum /b/*',
      'mkdir /s; for n in a b c d e; do echo "$n" > /s/$n; done; ln -s /s /sl; ln -s /s/e /s/l; cat /sl/a /sl/b /sl/c /s/b /s/c /s/d /s/l; ls -l /sl/ | cut -c1-30; echo changed-content > /s/c; echo changed > /s/e; cat /sl/c /s/l; ls -l /sl/c | cut -c1-30',
    ]
    const worker = await sameBothWays(scripts, () => createFileSystem())
    expect(worker[1]).toMatchObject({
      exitCode: 1,
      stderr: 'bash: /nofolder/f.txt: No such file or directory\n',
    })
    expect(worker[3]!.stdout).toContain('Linux version')
  })

  it('at the workspace limits, the worker’s writes fail as they would in-process (write-behind stays within them)', async () => {
    const limits = {
      maxNodeCount: 14,
      maxFileSize: 64,
      maxTotalSize: 400,
      maxNameLength: 12,
      maxPathDepth: 4,
    }
    const scripts = [
      // Name length, then depth: new names in folders the run made (a failed redirection ends a script).
      'mkdir /d; echo x > /d/a-very-long-name',
      'mkdir -p /d/a/b/c; echo x > /d/a/b/c/f',
      // Rows: /d, /d/a/b/c and 10 files fill 14; the 11th file is one too many.
      'for i in $(seq 1 11); do echo $i > /d/f$i; echo "rc=$?"; done',
      'ls /d | wc -l; printf "%070d" 0 > /d/f1',
      'for i in 1 2 3 4 5 6 7 8; do printf "%09d" $i >> /d/f2; done',
      // The workspace's bytes, file by file.
      'wc -c < /d/f2; for i in 1 2 3 4 5 6 7 8; do printf "%060d" $i > /d/f$i; echo "rc=$?"; done',
    ]
    const worker = await sameBothWays(scripts, () => createFileSystem({ limits }))
    // Each script met its limit, and nothing of the run said the script had gone on from a write.
    expect(worker.map((r) => r.stderr)).toEqual([
      'bash: /d/a-very-long-name: Name longer than 12 bytes\n',
      'bash: /d/a/b/c/f: Path deeper than 4 levels\n',
      "ENOSPC: workspace holds the maximum of 14 nodes, write '/d/f11'\n",
      'bash: /d/f1: File larger than 64 bytes\n',
      "EFBIG: file larger than 64 bytes, append '/d/f2'\n",
      "ENOSPC: workspace larger than 400 bytes (empty the trash to free space), write '/d/f7'\n",
    ])
  })

  it('just-bash’s system folders stay in the worker: the workspace is never asked about them, /tmp still is', async () => {
    const fs = createFileSystem()
    const asked: string[] = []
    // The workspace as the worker's host calls it: every path argument noted.
    const noting = new Proxy(fs, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          for (const a of args) if (typeof a === 'string' && a.startsWith('/')) asked.push(a)
          return value.apply(target, args)
        }
      },
    })
    const exec = createJustBashBackend(noting)
    const first = await exec.run(
      'echo a > /a.txt; for i in 1 2 3; do cat /a.txt > /dev/null; done; ls /usr/bin | wc -l; cat /proc/version | wc -l; echo t > /tmp/t',
      [],
    )
    expect(first).toMatchObject({ stdout: `${first.stdout.split('\n')[0]}\n1\n`, exitCode: 0 })
    expect(Number(first.stdout.split('\n')[0])).toBeGreaterThan(50)
    const system = /^\/(bin|usr|dev|proc)(\/|$)/
    expect(asked.filter((p) => system.test(p))).toEqual([])
    expect(asked).toContain('/a.txt')
    // /tmp is the workspace filesystem's: a later run (another shell) still reads it.
    expect(await exec.run('cat /tmp/t', [])).toMatchObject({ stdout: 't\n', exitCode: 0 })
    expect(asked.filter((p) => system.test(p))).toEqual([])
  })

  it('resolves paths in the worker exactly as @yfs/core does', () => {
    const cases: [string, string][] = [
      ['/', 'a'],
      ['/a/b', '../c'],
      ['/a', '../../..'],
      ['/a', '/x//y/./z/'],
      ['/a/', 'b/'],
      ['/', ''],
      ['/a/b', '.'],
      ['/a', '...'],
    ]
    for (const [base, path] of cases)
      expect(resolveVirtualPath(base, path), `${base} ${path}`).toBe(paths.resolve(base, path))
    // Any path made of such parts, absolute or not, on any base.
    const part = fc.constantFrom('', '.', '..', 'a', 'b.c', '...', '.x', 'x.', '..y')
    const path = fc.array(part, { maxLength: 6 }).map((parts) => parts.join('/'))
    fc.assert(
      fc.property(path, path, fc.boolean(), (base, rest, absolute) => {
        const from = paths.resolve('/', base)
        const given = absolute ? `/${rest}` : rest
        expect(resolveVirtualPath(from, given)).toBe(paths.resolve(from, given))
      }),
      { numRuns: 2000 },
    )
  })
})
