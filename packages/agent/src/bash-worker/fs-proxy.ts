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
  FS_VOID_METHODS,
  type FsMethod,
  type FsVoidMethod,
  type HostToWorker,
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
  const call = (method: FsMethod, args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++next
      pending.set(id, { resolve, reject })
      port.postMessage({ type: 'fs', id, method, args })
    })
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
  for (const method of methods)
    fs[method] = (FS_VOID_METHODS as readonly string[]).includes(method)
      ? (...args: unknown[]) => void port.postMessage({ type: 'fs-void', method, args })
      : (...args: unknown[]) => call(method as FsMethod, args)
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
