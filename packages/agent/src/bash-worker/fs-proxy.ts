/**
 * The worker's filesystem: an IFileSystem whose every call is a message to
 * the host (main thread), which runs it on the real workspace filesystem.
 * `resolvePath` is pure and computed here; `getAllPaths`, the one
 * synchronous call just-bash makes (`ls` with a glob), blocks this worker
 * (never the host) until the host answers.
 *
 * Invariant: errors come back with the host error's name, message and errno
 * fields, so just-bash's message checks and our `.code` checks see what they
 * would in-process.
 */
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads'
import type { IFileSystem } from 'just-bash'
import {
  FS_READ_METHODS,
  FS_VOID_METHODS,
  type FsMethod,
  type FsVoidMethod,
  type HostToWorker,
  LSTAT_MANY,
  LSTAT_MANY_MAX,
  type LstatResult,
  type SyncReply,
  type WireError,
} from './protocol.js'

// just-bash blocks globals such as `Atomics.wait` while a script runs (defense in depth against
// scripts reaching the host); this module is host code, so it keeps its own references.
const { store: atomicsStore, wait: atomicsWait } = Atomics

/** An error from the host filesystem, rebuilt with its errno fields. */
export class HostFsError extends Error {
  readonly code?: string
  readonly syscall?: string
  readonly path?: string
  readonly dest?: string
  constructor(wire: WireError) {
    super(wire.message)
    this.name = wire.name
    this.code = wire.code
    this.syscall = wire.syscall
    this.path = wire.path
    this.dest = wire.dest
  }
}

/** Folder listings kept for the prefetch (the most recent). */
const LISTINGS_KEPT = 8

/**
 * Stats prefetched for one run: a script that lists a folder and then stats its entries
 * (`cp -r`, `tar -c`, `ls -la`, `find`) would cross to the host once per entry; here the
 * second stat missed in a listed folder asks for the next `LSTAT_MANY_MAX` entries' stats in
 * one message. Only successful `lstat`s are kept; `stat` and `exists` use them for entries
 * that are not symlinks (they follow links). A listing and its stats answer as of when they
 * were read, like a stat that ran a little earlier; any call of this run that changes the
 * workspace empties both.
 */
export function createStatPrefetch(lstatMany: (paths: string[]) => Promise<LstatResult[]>) {
  const listings = new Map<string, { names: string[]; index: Map<string, number>; misses: number }>()
  const stats = new Map<string, Record<string, unknown>>()
  // Paths being fetched: a script stats many entries at once (Promise.all), and they wait for
  // the one fetch instead of each asking for the rest of the folder.
  const fetching = new Map<string, Promise<void>>()
  let generation = 0

  const parentOf = (path: string) => {
    const cut = path.lastIndexOf('/')
    return { dir: cut === 0 ? '/' : path.slice(0, cut), name: path.slice(cut + 1) }
  }

  async function fill(path: string): Promise<void> {
    const running = fetching.get(path)
    if (running) return running
    const { dir, name } = parentOf(path)
    const listing = listings.get(dir)
    const at = listing?.index.get(name)
    if (!listing || at === undefined) return
    // The first miss may be a lone stat (`ls dir; cat dir/one`): only a second one fetches.
    if (++listing.misses < 2) return
    const base = dir === '/' ? '' : dir
    const paths: string[] = []
    for (let k = at; k < listing.names.length && paths.length < LSTAT_MANY_MAX; k++) {
      const entry = `${base}/${listing.names[k]}`
      if (!stats.has(entry) && !fetching.has(entry)) paths.push(entry)
    }
    const started = generation
    const run = lstatMany(paths).then(
      (results) => {
        // A change of this run meanwhile: these may predate it.
        if (generation !== started) return
        results.forEach((r, k) => {
          if (r.ok) stats.set(paths[k]!, r.value as Record<string, unknown>)
        })
      },
      // The stats are only a shortcut: each path is asked on its own instead.
      () => undefined,
    )
    for (const p of paths) fetching.set(p, run)
    try {
      await run
    } finally {
      for (const p of paths) if (fetching.get(p) === run) fetching.delete(p)
    }
  }

  return {
    /** `lstat`, `stat` or `exists` of `path`: from the prefetch where it knows, else `ask()`. */
    async answer(method: 'lstat' | 'stat' | 'exists', given: string, ask: () => Promise<unknown>) {
      const path = resolveVirtualPath('/', given)
      if (!stats.has(path) && method !== 'exists') await fill(path)
      const known = stats.get(path)
      if (known && (method === 'lstat' || known.isSymbolicLink !== true))
        return method === 'exists' ? true : { ...known }
      return ask()
    },
    /** A folder's listing (`readdir` names or dirents), kept for the prefetch; returned as is. */
    listed<T extends string | { name: string }>(given: string, entries: T[]): T[] {
      const names = entries.map((e) => (typeof e === 'string' ? e : e.name))
      const dir = resolveVirtualPath('/', given)
      listings.delete(dir)
      listings.set(dir, { names, index: new Map(names.map((n, k) => [n, k])), misses: 0 })
      if (listings.size > LISTINGS_KEPT) listings.delete(listings.keys().next().value!)
      return entries
    },
    /** This run changed something: drop every listing and stat. */
    forget(): void {
      generation++
      listings.clear()
      stats.clear()
    },
  }
}

/** Same semantics as @yfs/core's `paths.resolve` (and just-bash's): `..` stops at `/`, no trailing slash. */
export function resolveVirtualPath(base: string, path: string): string {
  const joined = path.startsWith('/') ? path : base === '/' ? `/${path}` : `${base}/${path}`
  const out: string[] = []
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') out.pop()
    else out.push(part)
  }
  return `/${out.join('/')}`
}

const SYNC_TIMEOUT_MS = 30_000

export interface FsProxy {
  fs: IFileSystem
  /** Feed a host answer (`fs-result`) to the call waiting for it. */
  settle(message: Extract<HostToWorker, { type: 'fs-result' }>): void
}

/** An IFileSystem over `port`, with only the methods the host has. */
export function createFsProxy(
  port: MessagePort,
  syncPort: MessagePort,
  flag: Int32Array,
  methods: readonly (FsMethod | FsVoidMethod)[],
): FsProxy {
  let next = 0
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>()
  const call = (method: FsMethod | typeof LSTAT_MANY, args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++next
      pending.set(id, { resolve, reject })
      port.postMessage({ type: 'fs', id, method, args })
    })
  const prefetch = createStatPrefetch((paths) => call(LSTAT_MANY, [paths]) as Promise<LstatResult[]>)
  const fs: Record<string, unknown> = {
    resolvePath: resolveVirtualPath,
    getAllPaths(): string[] {
      atomicsStore(flag, 0, 0)
      syncPort.postMessage({ method: 'getAllPaths' })
      if (atomicsWait(flag, 0, 0, SYNC_TIMEOUT_MS) === 'timed-out')
        throw new HostFsError({ name: 'Error', message: 'EIO: i/o error, the workspace did not answer' })
      const reply = receiveMessageOnPort(syncPort)?.message as SyncReply | undefined
      if (!reply) throw new HostFsError({ name: 'Error', message: 'EIO: i/o error, no answer' })
      if (!reply.ok) throw new HostFsError(reply.error)
      return reply.value as string[]
    },
  }
  for (const method of methods) {
    if ((FS_VOID_METHODS as readonly string[]).includes(method)) {
      fs[method] = (...args: unknown[]) => {
        prefetch.forget()
        port.postMessage({ type: 'fs-void', method, args })
      }
      continue
    }
    const plain = (...args: unknown[]) => call(method as FsMethod, args)
    fs[method] =
      method === 'lstat' || method === 'stat' || method === 'exists'
        ? (path: string) => prefetch.answer(method, path, () => plain(path))
        : method === 'readdir' || method === 'readdirWithFileTypes'
          ? async (path: string) =>
              prefetch.listed(path, (await plain(path)) as (string | { name: string })[])
          : FS_READ_METHODS.has(method)
            ? plain
            : (...args: unknown[]) => {
                // This run changes something: what was prefetched may no longer hold.
                prefetch.forget()
                return plain(...args)
              }
  }
  return {
    fs: fs as unknown as IFileSystem,
    settle(message) {
      const waiter = pending.get(message.id)
      if (!waiter) return
      pending.delete(message.id)
      if (message.ok) waiter.resolve(message.value)
      else waiter.reject(new HostFsError(message.error))
    },
  }
}
