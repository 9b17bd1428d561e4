// Browser stand-in for `node:async_hooks` (aliased in vite.config.ts), which @yfs/agent's indexed
// grep imports. A page runs no just-bash script whose context anything would have to leave, and
// @yfs/core's captureHostContext finds no Node there and runs functions as they are.

/** Has no `snapshot`: callers feature-test for it. */
export class AsyncLocalStorage {}
