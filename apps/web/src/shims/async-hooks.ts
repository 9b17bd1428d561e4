// Browser stand-in for `node:async_hooks` (aliased in vite.config.ts). @yfs/client imports it lazily
// to leave just-bash's script context; a page runs no scripts, so there is no snapshot to take and
// the client falls back to running functions as they are.

/** Has no `snapshot`: callers feature-test for it. */
export class AsyncLocalStorage {}
