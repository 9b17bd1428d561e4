/**
 * A differential property against the real thing: random sequences of filesystem calls on a
 * yfs filesystem and on a real folder of this machine's disk (node:fs, i.e. the kernel's POSIX
 * semantics) must succeed or fail alike, with the same error code, read the same, and leave the
 * same tree (names, kinds, modes, contents, link targets). The caller sets yfs up: a local
 * filesystem call by call, the calls inside one `fs.batch`, written on one replica or client and
 * read on another.
 *
 * Where the two legitimately differ, the difference is named below (`equivalent`), and a
 * sequence that makes a symlink cycle ends there (yfs answers ELOOP as the kernel would, but
 * node:fs's recursive helpers do not): nothing else is excused. `cp` is left out: node's
 * `fs.cp` is not POSIX `cp` (its own error codes, its own handling of existing targets).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import * as disk from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import type { IFileSystem } from 'just-bash'

/** The calls of the test on a fresh real folder; paths are the workspace's, under that folder. */
function diskFs(root: string) {
  const at = (path: string) => root + path
  return {
    writeFile: (path: string, data: string) => disk.writeFile(at(path), data),
    appendFile: (path: string, data: string) => disk.appendFile(at(path), data),
    mkdir: async (path: string, options: { recursive: boolean }) => {
      await disk.mkdir(at(path), options)
    },
    // IFileSystem's rm takes an empty folder without `recursive` (as rmdir); node's refuses it.
    rm: async (path: string, options: { recursive: boolean; force: boolean }) => {
      const st = await disk.lstat(at(path)).catch(() => undefined)
      if (st?.isDirectory() && !options.recursive) return disk.rmdir(at(path))
      return disk.rm(at(path), options)
    },
    mv: (from: string, to: string) => disk.rename(at(from), at(to)),
    symlink: (target: string, path: string) => disk.symlink(at(target), at(path)),
    chmod: (path: string, mode: number) => disk.chmod(at(path), mode),
    readFile: (path: string) => disk.readFile(at(path), 'utf8'),
    readdir: (path: string) => disk.readdir(at(path)),
    readlink: async (path: string) => (await disk.readlink(at(path))).slice(root.length),
    realpath: async (path: string) => (await disk.realpath(at(path))).slice(root.length) || '/',
    lstat: async (path: string) => {
      const st = await disk.lstat(at(path))
      return {
        isSymbolicLink: st.isSymbolicLink(),
        isDirectory: st.isDirectory(),
        mode: st.mode,
        size: st.size,
      }
    },
    stat: async (path: string) => {
      const st = await disk.stat(at(path))
      return { isDirectory: st.isDirectory(), size: st.size }
    },
  }
}
type Calls = ReturnType<typeof diskFs>

/** The same calls on an IFileSystem. */
function fsCalls(fs: IFileSystem): Calls {
  return {
    writeFile: (path, data) => fs.writeFile(path, data),
    appendFile: (path, data) => fs.appendFile(path, data),
    mkdir: (path, options) => fs.mkdir(path, options),
    rm: (path, options) => fs.rm(path, options),
    mv: (from, to) => fs.mv(from, to),
    symlink: (target, path) => fs.symlink(target, path),
    chmod: (path, mode) => fs.chmod(path, mode),
    readFile: (path) => fs.readFile(path),
    readdir: (path) => fs.readdir(path),
    readlink: (path) => fs.readlink(path),
    realpath: (path) => fs.realpath(path),
    lstat: async (path) => {
      const st = await fs.lstat(path)
      return { isSymbolicLink: st.isSymbolicLink, isDirectory: st.isDirectory, mode: st.mode, size: st.size }
    },
    stat: async (path) => {
      const st = await fs.stat(path)
      return { isDirectory: st.isDirectory, size: st.size }
    },
  }
}

// Some named as Markdown: with the Markdown codec (the e2e clients) moves between kinds convert.
const PATHS = ['/a', '/b.md', '/c', '/a/x.md', '/a/y', '/a/b', '/b.md/x', '/a/x.md/z', '/c.md'] as const
const path = fc.constantFrom(...PATHS)
const data = fc.constantFrom('', 'hi', 'hello\n', 'é'.repeat(40))
const operation = fc.oneof(
  fc.record({ op: fc.constant('writeFile' as const), path, data }),
  fc.record({ op: fc.constant('appendFile' as const), path, data }),
  fc.record({ op: fc.constant('mkdir' as const), path, recursive: fc.boolean() }),
  fc.record({ op: fc.constant('rm' as const), path, recursive: fc.boolean(), force: fc.boolean() }),
  fc.record({ op: fc.constant('mv' as const), path, to: path }),
  fc.record({ op: fc.constant('symlink' as const), path, to: path }),
  fc.record({ op: fc.constant('chmod' as const), path, mode: fc.constantFrom(0o644, 0o755, 0o600) }),
  fc.record({
    op: fc.constantFrom('readFile' as const, 'readdir' as const, 'stat' as const, 'lstat' as const),
    path,
  }),
  fc.record({ op: fc.constantFrom('readlink' as const, 'realpath' as const), path }),
  // Time passing between calls (a connected filesystem stores and syncs in the meantime).
  fc.record({ op: fc.constant('wait' as const), path, ms: fc.integer({ min: 0, max: 5 }) }),
)
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never

/** One call's outcome: what it returned, or its error code. */
async function call(fs: Calls, o: Operation): Promise<string> {
  try {
    switch (o.op) {
      case 'writeFile':
      case 'appendFile':
        await fs[o.op](o.path, o.data)
        return 'ok'
      case 'mkdir':
        await fs.mkdir(o.path, { recursive: o.recursive })
        return 'ok'
      case 'rm':
        await fs.rm(o.path, { recursive: o.recursive, force: o.force })
        return 'ok'
      case 'mv':
        await fs.mv(o.path, o.to)
        return 'ok'
      case 'symlink':
        await fs.symlink(o.to, o.path)
        return 'ok'
      case 'chmod':
        await fs.chmod(o.path, o.mode)
        return 'ok'
      case 'readFile':
        return `read ${JSON.stringify(await fs.readFile(o.path))}`
      case 'readdir':
        return `list ${(await fs.readdir(o.path)).sort().join(',')}`
      case 'stat': {
        const st = await fs.stat(o.path)
        return st.isDirectory ? 'folder' : `file of ${st.size} B`
      }
      case 'lstat': {
        const st = await fs.lstat(o.path)
        return st.isSymbolicLink ? 'symlink' : st.isDirectory ? 'folder' : `file of ${st.size} B`
      }
      case 'wait':
        await new Promise((resolve) => setTimeout(resolve, o.ms))
        return 'ok'
      case 'readlink':
      case 'realpath':
        return `${o.op} ${await fs[o.op](o.path)}`
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    return `error ${typeof code === 'string' ? code : (error as Error).message}`
  }
}

/** Differences that are not yfs's errors: each names what the kernel (or node:fs) does instead. */
function equivalent(o: Operation, onDisk: string, onYfs: string, sourceMissing: boolean): boolean {
  // A move of a missing path to a bad place: which error comes first is the system's choice.
  if (o.op === 'mv' && sourceMissing && onYfs === 'error ENOENT' && onDisk.startsWith('error ')) return true
  // A folder moved into itself where the target's parent is missing too: yfs says EINVAL first.
  if (
    o.op === 'mv' &&
    o.to.startsWith(`${o.path}/`) &&
    onYfs === 'error EINVAL' &&
    onDisk.startsWith('error ')
  )
    return true
  // A path through a file: the kernel says ENOTDIR for some calls, node:fs's helpers ENOENT.
  if (onDisk === 'error ENOENT' && onYfs === 'error ENOTDIR') return true
  // A file moved onto a folder that holds it: ENOTEMPTY from the kernel, EISDIR from yfs (POSIX allows either).
  if (o.op === 'mv' && onDisk === 'error ENOTEMPTY' && onYfs === 'error EISDIR') return true
  // mkdir -p through a dangling symlink: node:fs says ENOENT or ENOTDIR, coreutils and yfs EEXIST.
  if (o.op === 'mkdir' && o.recursive && onDisk.startsWith('error ') && onYfs === 'error EEXIST') return true
  return false
}

/** The whole tree: one line per entry, sorted. */
async function tree(fs: Calls, dir = '/', out: string[] = []): Promise<string[]> {
  for (const name of (await fs.readdir(dir)).sort()) {
    // yfs's own system folders (a shell's /tmp, /bin, …), not written by the test.
    if (dir === '/' && !PATHS.includes(`/${name}` as (typeof PATHS)[number])) continue
    const p = dir === '/' ? `/${name}` : `${dir}/${name}`
    const st = await fs.lstat(p)
    if (st.isSymbolicLink) out.push(`${p} -> ${await fs.readlink(p)}`)
    else if (st.isDirectory) {
      out.push(`${p}/ ${(st.mode & 0o777).toString(8)}`)
      await tree(fs, p, out)
    } else out.push(`${p} ${(st.mode & 0o777).toString(8)} ${JSON.stringify(await fs.readFile(p))}`)
  }
  return out
}

/** How one property run uses yfs: the filesystem written to, how the calls run, where the tree is read. */
export interface DiskDifferentialSetup {
  writer: IFileSystem
  /** Runs the whole sequence (inside one `fs.batch`, say). */
  around?: (calls: () => Promise<void>) => Promise<void>
  /** Where the final tree is read, once `settle` is done (another replica, say). */
  reader?: IFileSystem
  settle?: () => Promise<void>
  /** Ends what the run opened (connections). */
  close?: () => Promise<void>
}

/**
 * The property: `parameters.runs` random sequences (`fuzzParameters`: a fixed seed unless asked),
 * each on a fresh `setup()` and a fresh real folder (removed after the run). Throws with the calls
 * and both answers where yfs differs.
 */
export async function checkAgainstDisk(
  setup: () => DiskDifferentialSetup | Promise<DiskDifferentialSetup>,
  parameters: { runs: number; seed?: number; path?: string | undefined },
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (operations) => {
      const root = realpathSync(mkdtempSync(join(tmpdir(), 'yfs-differential-')))
      const run = await setup()
      try {
        await compare(diskFs(root), run, operations)
      } finally {
        await run.close?.()
        rmSync(root, { recursive: true, force: true })
      }
    }),
    { numRuns: parameters.runs, seed: parameters.seed, path: parameters.path },
  )
}

/** One sequence on the disk and on yfs; throws where they differ. */
async function compare(
  reference: Calls,
  setup: DiskDifferentialSetup,
  operations: Operation[],
): Promise<void> {
  const { writer, around = (calls) => calls(), reader = writer, settle } = setup
  const yfs = fsCalls(writer)
  const log: string[] = []
  let cycle = false
  await around(async () => {
    for (const o of operations) {
      // Only a move's answer depends on it (see `equivalent`).
      const sourceMissing =
        o.op === 'mv' &&
        (await reference.lstat(o.path).then(
          () => false,
          () => true,
        ))
      const onDisk = await call(reference, o)
      const onYfs = await call(yfs, o)
      log.push(`${JSON.stringify(o)} → disk: ${onDisk}, yfs: ${onYfs}`)
      // A symlink cycle: yfs says ELOOP; node:fs's recursive helpers walk on. The sequence ends here.
      if (onYfs === 'error ELOOP' && onDisk !== onYfs) {
        cycle = true
        return
      }
      if (onDisk !== onYfs && !equivalent(o, onDisk, onYfs, sourceMissing))
        throw new Error(`a call differs:\n${log.join('\n')}`)
    }
  })
  if (cycle) return
  await settle?.()
  const [onDisk, onYfs] = [await tree(reference), await tree(fsCalls(reader))]
  if (JSON.stringify(onDisk) !== JSON.stringify(onYfs))
    throw new Error(
      `the trees differ after:\n${log.join('\n')}\ndisk: ${onDisk.join(' | ')}\nyfs:  ${onYfs.join(' | ')}`,
    )
}
