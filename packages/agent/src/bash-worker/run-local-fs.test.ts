/**
 * The worker shell's filesystem (run-local-fs.ts) takes a shortcut past `MountableFs` for
 * workspace paths: it must answer every call exactly as `MountableFs` would, with the same
 * mounts (the same values, the same errors, the same resulting trees), for any path a script
 * may name: relative, with `.`, `..`, empty components, trailing slashes, run-local folders and
 * NUL bytes.
 */
import fc from 'fast-check'
import { type IFileSystem, InMemoryFs, MountableFs } from 'just-bash'
import { describe, expect, it } from 'vitest'
import { RUN_LOCAL_FOLDERS } from './protocol.js'
import { withRunLocalFolders } from './run-local-fs.js'

/** The same starting tree for both sides: workspace files, and a run-local file. */
async function workspace(): Promise<InMemoryFs> {
  const fs = new InMemoryFs()
  await fs.mkdir('/a/b', { recursive: true })
  await fs.writeFile('/a/one.txt', 'one\n')
  await fs.writeFile('/a/b/two.txt', 'two\n')
  // A workspace entry named like a run-local folder, hidden by the mount on both sides.
  await fs.mkdir('/bin', { recursive: true })
  await fs.writeFile('/bin/ws.txt', 'workspace bin\n')
  return fs
}

async function reference(): Promise<IFileSystem> {
  return new MountableFs({
    base: await workspace(),
    mounts: RUN_LOCAL_FOLDERS.map((name) => ({ mountPoint: `/${name}`, filesystem: new InMemoryFs() })),
  })
}

/** What a call did: its value, or its error's message. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    const value = await call()
    // A stat's mtime differs between two trees made one after the other.
    if (value && typeof value === 'object' && 'mtime' in value) return { ...value, mtime: undefined }
    return { value }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

const segment = fc.constantFrom(
  'a',
  'b',
  'one.txt',
  'two.txt',
  'new',
  '.',
  '..',
  '',
  ...RUN_LOCAL_FOLDERS,
  'ws.txt',
  'n\0ul',
)
const path = fc
  .tuple(fc.boolean(), fc.array(segment, { maxLength: 4 }), fc.boolean())
  .map(([absolute, parts, trailing]) => `${absolute ? '/' : ''}${parts.join('/')}${trailing ? '/' : ''}`)

type Call = (fs: IFileSystem, p: string) => Promise<unknown>
const CALLS: Record<string, Call> = {
  lstat: (fs, p) => fs.lstat(p),
  stat: (fs, p) => fs.stat(p),
  exists: (fs, p) => fs.exists(p),
  readFile: (fs, p) => fs.readFile(p),
  readFileBuffer: (fs, p) => fs.readFileBuffer(p),
  writeFile: (fs, p) => fs.writeFile(p, 'written\n'),
  appendFile: (fs, p) => fs.appendFile(p, 'appended\n'),
  mkdir: (fs, p) => fs.mkdir(p),
  mkdirRecursive: (fs, p) => fs.mkdir(p, { recursive: true }),
}

/** Every file and folder of `fs` (through its own `readdir`) with each file's text. */
async function tree(fs: IFileSystem, dir = '/'): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const name of await fs.readdir(dir)) {
    const p = dir === '/' ? `/${name}` : `${dir}/${name}`
    const s = await fs.lstat(p)
    if (s.isDirectory) {
      out[`${p}/`] = ''
      Object.assign(out, await tree(fs, p))
    } else out[p] = await fs.readFile(p)
  }
  return out
}

describe('the worker shell filesystem', () => {
  it('answers every call on any path as MountableFs with the same mounts does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...Object.keys(CALLS)), path), { minLength: 1, maxLength: 8 }),
        async (calls) => {
          const ours = withRunLocalFolders(await workspace())
          const theirs = await reference()
          for (const [name, p] of calls) {
            const call = CALLS[name]!
            expect(await outcome(() => call(ours, p)), `${name} ${JSON.stringify(p)}`).toEqual(
              await outcome(() => call(theirs, p)),
            )
          }
          // (Both may fail alike: InMemoryFs lets `writeFile('/')` replace the root by a file.)
          expect(await outcome(() => tree(ours))).toEqual(await outcome(() => tree(theirs)))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('keeps writes under its run-local folders out of the workspace', async () => {
    const base = await workspace()
    const fs = withRunLocalFolders(base)
    await fs.writeFile('/usr/x.txt', 'local\n')
    await fs.writeFile('/a/../a/b/../three.txt', 'shared\n')
    expect(await fs.readFile('/usr/x.txt')).toBe('local\n')
    expect(await base.exists('/usr/x.txt')).toBe(false)
    expect(await base.readFile('/a/three.txt')).toBe('shared\n')
    // The workspace's own /bin is hidden behind the run's.
    expect(await fs.exists('/bin/ws.txt')).toBe(false)
  })
})
