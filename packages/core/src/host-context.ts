/**
 * Running the host's transport code outside a just-bash script's async context.
 *
 * The filesystem is called from inside `bash.exec`, and so are the hooks it is given (a content
 * doc's `connect`, the bulk `storeContent` / `loadContent` / `updateContent`). just-bash's
 * defence in depth blocks timers (`setTimeout`, `setInterval`) in a script's async context, which
 * it tracks with AsyncLocalStorage; providers need timers (y-websocket's connection check, an
 * Awareness's renewal, reconnects). They are host code, not script code: `captureHostContext()`
 * takes an AsyncLocalStorage snapshot where the filesystem is made (outside any script), and the
 * hooks run through it, so the sandbox keeps applying to scripts and not to the transport.
 *
 * Where there is no `node:async_hooks` (browsers) functions run as they are: there is no script
 * context to leave either.
 */

/** Runs `fn` in the async context captured by `captureHostContext`. */
export type HostRunner = <R>(fn: () => R) => R

const asIs: HostRunner = (fn) => fn()

interface NodeProcess {
  getBuiltinModule?(id: string): unknown
}

interface AsyncHooks {
  AsyncLocalStorage?: { snapshot?(): HostRunner }
}

/** A runner that executes functions in the async context of the caller of this function. */
export function captureHostContext(): HostRunner {
  try {
    // Synchronous, and nothing to bundle for a browser: Node's own module, where there is one.
    const proc = (globalThis as { process?: NodeProcess }).process
    if (typeof proc?.getBuiltinModule !== 'function') return asIs
    const hooks = proc.getBuiltinModule('node:async_hooks') as AsyncHooks | undefined
    const snapshot = hooks?.AsyncLocalStorage?.snapshot
    return typeof snapshot === 'function' ? (snapshot.call(hooks!.AsyncLocalStorage) as HostRunner) : asIs
  } catch {
    // Made inside a sandbox that hides `process`: nothing to restore.
    return asIs
  }
}

/** `fn`, called through `host` (its arguments and result as they are). */
export function inHost<A extends unknown[], R>(host: HostRunner, fn: (...args: A) => R): (...args: A) => R {
  return (...args) => host(() => fn(...args))
}
