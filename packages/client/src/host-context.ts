/**
 * Running provider code outside a just-bash script's async context.
 *
 * The content-doc pool opens documents from inside `bash.exec`, and
 * just-bash's defense-in-depth blocks timers (`setTimeout`, `setInterval`)
 * created in a script's async context (it tracks that with
 * AsyncLocalStorage). Providers need timers (sync timeouts, reconnects), and
 * they are host-runtime code, not script code. `captureHostContext()` takes
 * an AsyncLocalStorage snapshot when the workspace is connected (outside any
 * script); running provider code through it restores that context, so the
 * sandbox keeps applying to scripts and not to the transport.
 *
 * Where `node:async_hooks` is missing (browsers) it runs functions as they are.
 */

export type HostRunner = <R>(fn: () => R) => R

/** A runner that executes functions in the async context of the caller of this function. */
export async function captureHostContext(): Promise<HostRunner> {
  // Not Node (a browser): skip the import, which costs a request for a shim chunk there.
  if (typeof process === 'undefined' || !process.versions?.node) return (fn) => fn()
  try {
    const { AsyncLocalStorage } = await import('node:async_hooks')
    if (typeof AsyncLocalStorage.snapshot === 'function') return AsyncLocalStorage.snapshot() as HostRunner
  } catch {
    // No node:async_hooks (a browser): there is no script context to leave either.
  }
  return (fn) => fn()
}
