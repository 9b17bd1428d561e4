// Browser stand-in for the `ws` package (aliased in vite.config.ts): @yfs/client falls back to `ws`
// only where there is no global WebSocket, which every browser has.

/** The browser's own WebSocket. */
export const WebSocket = globalThis.WebSocket
export default WebSocket
