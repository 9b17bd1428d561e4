/**
 * MemoryFs against just-bash's InMemoryFs, the implementation it replaces
 * in the local layer: the same bash scripts print the same output on both,
 * and random operation sequences (fast-check, fixed seed) give the same
 * results and the same error codes. Plus what MemoryFs adds: FsError codes.
 */
import fc from 'fast-check'
import { Bash, type IFileSystem, InMemoryFs } from 'just-bash'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { FsError } from '../errors.js'
import { MemoryFs } from './memory-fs.js'

const T0 = new Date('2026-03-01T10:00:00Z').getTime()

async function populate(fs: IFileSystem): Promise<void> {
  await fs.mkdir('/tmp/a/b', { recursive: true })
  await fs.writeFile('/tmp/a/one.txt', 'one\ntwo\nthree\n')
  await fs.writeFile('/tmp/a/b/deep.ts', 'export const x = 1 // TODO\n')
  await fs.writeFile('/tmp/bin.dat', new Uint8Array([0, 1, 2, 255]))
}

const scripts = [
  'ls -la /tmp /tmp/a',
  'ls -R /tmp',
  'cat /tmp/a/one.txt /tmp/missing',
  'cat /tmp/a',
  'echo x > /dev/null; cat /dev/null; echo shown',
  'mkdir /tmp/a; mkdir -p /tmp/a/b/c && ls /tmp/a/b',
  'rm /tmp/a; echo $?; rm -r /tmp/a && ls /tmp',
  'rm -f /tmp/nope; rm /tmp/nope; echo $?',
  'cp -r /tmp/a /tmp/c && ls -R /tmp/c && cat /tmp/c/b/deep.ts',
  'cp /tmp/a /tmp/d; echo $?',
  'mv /tmp/a /tmp/z && ls /tmp /tmp/z',
  'mv /tmp/a/one.txt /tmp/a/b/ && ls /tmp/a /tmp/a/b',
  'mv /tmp/a /tmp/a/b/inside; echo $?',
  'echo more >> /tmp/a/one.txt && tail -n 2 /tmp/a/one.txt && wc -c /tmp/a/one.txt',
  'ln -s /tmp/a/one.txt /tmp/link && cat /tmp/link && readlink /tmp/link && ls -l /tmp/link | cut -c1',
  'ln -s /tmp/a /tmp/dirlink && ls /tmp/dirlink && cat /tmp/dirlink/b/deep.ts',
  'ln -s /tmp/loop1 /tmp/loop2; ln -s /tmp/loop2 /tmp/loop1; cat /tmp/loop1; echo $?',
  'chmod 600 /tmp/a/one.txt && ls -l /tmp/a/one.txt | cut -c1-10',
  'find /tmp -type f | sort; find /tmp -name "*.ts"',
  'grep -rn TODO /tmp',
  'od -An -tx1 /tmp/bin.dat',
  'touch /tmp/new && ls /tmp && cat /tmp/new',
  'sed -i s/two/TWO/ /tmp/a/one.txt && cat /tmp/a/one.txt',
  'cd /tmp/a && cat ../a/./one.txt && pwd',
  'tree /tmp',
  'du -a /tmp/a',
  'which ls cat; ls /bin | head -3',
]

describe('MemoryFs runs just-bash scripts like InMemoryFs', () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
  })
  afterAll(() => {
    vi.useRealTimers()
  })

  it.each(scripts)('%s', async (script) => {
    vi.setSystemTime(T0)
    const reference = new InMemoryFs()
    const ours = new MemoryFs()
    await populate(reference)
    await populate(ours)
    const expected = await new Bash({ fs: reference, cwd: '/' }).exec(script)
    const actual = await new Bash({ fs: ours, cwd: '/' }).exec(script)
    expect({ stdout: actual.stdout, stderr: actual.stderr, exitCode: actual.exitCode }).toEqual({
      stdout: expected.stdout,
      stderr: expected.stderr,
      exitCode: expected.exitCode,
    })
    expect(`${expected.stdout}${expected.stderr}`.length).toBeGreaterThan(0)
  })
})

type Op =
  | { op: 'mkdir'; path: string; recursive: boolean }
  | { op: 'writeFile' | 'appendFile'; path: string; text: string }
  | { op: 'rm'; path: string; recursive: boolean; force: boolean }
  | { op: 'cp'; src: string; dest: string; recursive: boolean }
  | { op: 'mv'; src: string; dest: string }
  | { op: 'symlink'; target: string; path: string }
  | { op: 'read' | 'readdir' | 'stat' | 'lstat' | 'readlink' | 'realpath' | 'exists'; path: string }

const segment = fc.constantFrom('a', 'b', 'c', '..', '.')
const name = fc.constantFrom('a', 'b', 'c')
// Ends in a name, so it never normalises to '/' (InMemoryFs lets a write replace its root; we say EISDIR).
const path = fc
  .tuple(fc.array(segment, { maxLength: 2 }), name)
  .map(([parts, last]) => `/${[...parts, last].join('/')}`)
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('mkdir' as const), path, recursive: fc.boolean() }),
  fc.record({
    op: fc.constantFrom('writeFile' as const, 'appendFile' as const),
    path,
    text: fc.string({ maxLength: 4 }),
  }),
  fc.record({ op: fc.constant('rm' as const), path, recursive: fc.boolean(), force: fc.boolean() }),
  fc.record({ op: fc.constant('cp' as const), src: path, dest: path, recursive: fc.boolean() }),
  fc.record({ op: fc.constant('mv' as const), src: path, dest: path }),
  fc.record({ op: fc.constant('symlink' as const), target: path, path }),
  fc.record({
    op: fc.constantFrom(
      'read' as const,
      'readdir' as const,
      'stat' as const,
      'lstat' as const,
      'readlink' as const,
      'realpath' as const,
      'exists' as const,
    ),
    path,
  }),
)

/** Run one op; the result, or the error code (InMemoryFs puts it only in the message). */
async function run(fs: IFileSystem, o: Op): Promise<unknown> {
  try {
    switch (o.op) {
      case 'mkdir':
        return await fs.mkdir(o.path, { recursive: o.recursive })
      case 'writeFile':
        return await fs.writeFile(o.path, o.text)
      case 'appendFile':
        return await fs.appendFile(o.path, o.text)
      case 'rm':
        return await fs.rm(o.path, { recursive: o.recursive, force: o.force })
      case 'cp':
        return await fs.cp(o.src, o.dest, { recursive: o.recursive })
      case 'mv':
        return await fs.mv(o.src, o.dest)
      case 'symlink':
        return await fs.symlink(o.target, o.path)
      case 'read':
        return await fs.readFile(o.path)
      case 'readdir':
        return await fs.readdir(o.path)
      case 'stat':
      case 'lstat': {
        const s = await fs[o.op](o.path)
        return [s.isFile, s.isDirectory, s.isSymbolicLink, s.size, s.mode]
      }
      case 'readlink':
        return await fs.readlink(o.path)
      case 'realpath':
        return await fs.realpath(o.path)
      case 'exists':
        return await fs.exists(o.path)
    }
  } catch (error) {
    return { error: /^(E[A-Z]+):/.exec((error as Error).message)?.[1] ?? (error as Error).message }
  }
}

/** A write whose target is an existing folder: InMemoryFs replaces it (children left behind). */
async function overwritesFolder(fs: IFileSystem, o: Op): Promise<boolean> {
  if (o.op !== 'writeFile') return false
  return fs.lstat(o.path).then(
    (s) => s.isDirectory,
    () => false,
  )
}

/**
 * InMemoryFs can store an entry under a file or a symlink, where nothing reaches it; MemoryFs
 * follows POSIX there (ENOTDIR, or the write goes through the link). Runs stop comparing once the
 * reference's tree has such an entry.
 */
async function corrupt(fs: IFileSystem): Promise<boolean> {
  const all = new Set(fs.getAllPaths())
  for (const p of all) {
    if (p === '/') continue
    const parent = p.slice(0, p.lastIndexOf('/')) || '/'
    if (!all.has(parent)) return true
    if (
      !(await fs.lstat(parent).then(
        (s) => s.isDirectory,
        () => false,
      ))
    )
      return true
  }
  return false
}

/**
 * An op on a path below a symlink: InMemoryFs follows such links for some calls and not others
 * (readdir, mkdir, cp/mv sources), MemoryFs always does. Runs stop comparing there.
 */
async function crossesLink(fs: IFileSystem, o: Op): Promise<boolean> {
  const targets = 'src' in o ? [o.src, o.dest] : [o.path]
  for (const target of targets) {
    const parts = fs.resolvePath('/', target).split('/').slice(1, -1)
    for (let i = 1; i <= parts.length; i++) {
      const prefix = `/${parts.slice(0, i).join('/')}`
      if (
        await fs.lstat(prefix).then(
          (s) => s.isSymbolicLink,
          () => false,
        )
      )
        return true
    }
  }
  return false
}

async function describeNode(fs: IFileSystem, p: string): Promise<string> {
  const s = await fs.lstat(p)
  if (s.isFile) return `file:${await fs.readFile(p)}`
  return s.isDirectory ? 'dir' : `link:${await fs.readlink(p)}`
}

/** Every path with its kind and content: the whole observable state. */
async function snapshot(fs: IFileSystem): Promise<string[]> {
  const out: string[] = []
  for (const p of fs.getAllPaths().sort()) {
    // A path under a symlink (mkdir through a dangling link) is stored but not reachable.
    out.push(`${p} ${await describeNode(fs, p).catch((error: Error) => error.message.slice(0, 6))}`)
  }
  return out
}

describe('MemoryFs and InMemoryFs agree on random operations (property)', () => {
  it('same results, error codes and final tree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const reference = new InMemoryFs()
        const ours = new MemoryFs()
        for (const o of ops) {
          if (await overwritesFolder(reference, o)) {
            // InMemoryFs replaces the folder (its children stay behind, unreachable); Node and we refuse.
            expect(await run(ours, o)).toEqual({ error: 'EISDIR' })
            continue
          }
          if (await crossesLink(reference, o)) return
          const expected = await run(reference, o)
          const actual = await run(ours, o)
          if (await corrupt(reference)) return // the trees differ from here on
          expect([o, actual]).toEqual([o, expected])
        }
        expect(await snapshot(ours)).toEqual(await snapshot(reference))
      }),
      { seed: 20261123, numRuns: Number(process.env.YFS_FUZZ_RUNS ?? 400) },
    )
  })
})

describe('MemoryFs errors', () => {
  it('throws FsError with codes and Node messages', async () => {
    const fs = new MemoryFs()
    await expect(fs.readFile('/nope')).rejects.toMatchObject({
      code: 'ENOENT',
      message: "ENOENT: no such file or directory, open '/nope'",
    })
    await fs.mkdir('/d')
    await expect(fs.readFile('/d')).rejects.toMatchObject({ code: 'EISDIR' })
    await expect(fs.mkdir('/d')).rejects.toBeInstanceOf(FsError)
    await expect(fs.readdir('/x\0')).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(fs.link('/d', '/e')).rejects.toMatchObject({ code: 'ENOSYS' })
    expect(await fs.exists('/x\0')).toBe(false)
  })

  it('keeps its own copy of written bytes', async () => {
    const fs = new MemoryFs()
    const bytes = new Uint8Array([1, 2, 3])
    fs.writeFileSync('/f', bytes)
    bytes[0] = 9
    expect([...(await fs.readFileBuffer('/f'))]).toEqual([1, 2, 3])
  })
})
