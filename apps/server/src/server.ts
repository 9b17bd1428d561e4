/**
 * createServer: the yfs sync server as a composable HTTP server.
 *
 *   /                 Hocuspocus WebSocket (any path but /yws/…): many docs per socket
 *   /yws/<docName>    y-websocket WebSocket: one doc per socket
 *   GET /healthz      liveness for anyone; with the admin token also counts (+ `?detail=1`:
 *                     loaded docs per workspace; `?gc=1`: collect garbage first, if started
 *                     with --expose-gc): see http/health.ts
 *   /api/…            admin API (see http/admin-api.ts); a workspace's backup and restore
 *                     (http/backup-api.ts)
 *   /mcp              agent tools over MCP Streamable HTTP
 *   GET /…            the built web app with its Content-Security-Policy (http/web-app.ts)
 *
 * Behaviour lives in Hocuspocus extensions (auth, persistence, logging,
 * Redis); this module wires them, owns the sockets and shuts down in order:
 * stop accepting, close sockets, wait for in-flight appends, let documents
 * unload, finish compactions, stop Redis. The store is the caller's.
 *
 * Embedders (the web app) can skip `listen` and mount `handleRequest` and
 * `handleUpgrade` on their own server; both report whether they handled it.
 */
import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { type Extension, Hocuspocus } from '@hocuspocus/server'
import { markdownCodec } from '@yfs/markdown'
import { WebSocket, WebSocketServer } from 'ws'
import { createAuthorizer } from './auth/authorizer.js'
import { DEFAULTS, type ServerConfig } from './config.js'
import { createAuthExtension } from './extensions/auth.js'
import { createBulkContentExtension } from './extensions/bulk-content.js'
import { containStatelessHook } from './extensions/contain-hooks.js'
import { createDocumentOptionsExtension } from './extensions/document-options.js'
import { createLoggingExtension } from './extensions/logging.js'
import { createPersistence } from './extensions/persistence.js'
import { createRedisExtension } from './extensions/redis.js'
import { createSearchExtension } from './extensions/search.js'
import { createAdminApi } from './http/admin-api.js'
import { createBackupApi } from './http/backup-api.js'
import { createHealthEndpoint, type ServerStats } from './http/health.js'
import { sendJson } from './http/json.js'
import { createMcpEndpoint } from './http/mcp-endpoint.js'
import { requestUrl } from './http/request-url.js'
import { createWebApp } from './http/web-app.js'
import { createLogger } from './logger.js'
import { createCompactor } from './persistence/compactor.js'
import { guardSocket } from './protocol/guarded-socket.js'
import { createInProcessWebSocket } from './protocol/in-process-socket.js'
import { resolveLimits } from './protocol/limits.js'
import { createServerSearch } from './search/server-search.js'
import { within } from './within.js'
import { WorkspaceFiles } from './workspace-files.js'
import { createYwsHandler, YWS_PREFIX } from './yws/y-websocket-handler.js'

export type { ServerStats }

export interface YfsServer {
  readonly httpServer: import('node:http').Server
  readonly hocuspocus: Hocuspocus
  /** Listen on `port` (0: any free port) and `host` (default 127.0.0.1). */
  listen(port?: number, host?: string): Promise<AddressInfo>
  /** Graceful shutdown; safe to call twice. Does not close the store. */
  close(): Promise<void>
  /** Serve `/healthz`, `/mcp`, `/api/*` and the web app (GET/HEAD); resolves `false` for anything else. */
  handleRequest(request: IncomingMessage, response: ServerResponse): Promise<boolean>
  /** Take over a WebSocket upgrade; `false` when closing (the caller should destroy the socket). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean
  stats(): ServerStats
}

/** The request an in-process connection comes with: Hocuspocus reads its headers and query. */
const IN_PROCESS_REQUEST = { url: '/', headers: {} } as IncomingMessage

/** Build a server from `config` (nothing listens until `listen`). */
export function createServer(config: ServerConfig): YfsServer {
  const { store } = config
  const logger = config.logger ?? createLogger()
  const limits = resolveLimits(config.limits)
  const name = config.name ?? `yfs-${randomUUID().slice(0, 8)}`
  const started = Date.now()

  const compactor = createCompactor(store, logger)
  const persistence = createPersistence({
    store,
    compactor,
    logger,
    compactEvery: config.compactEvery ?? DEFAULTS.compactEvery,
  })
  const files = new WorkspaceFiles({ waitMs: config.fileWaitMs ?? DEFAULTS.fileWaitMs })
  const authorizer = createAuthorizer({
    store,
    files,
    tokenCacheMs: config.tokenCacheMs ?? DEFAULTS.tokenCacheMs,
    maxTokenBytes: limits.maxTokenBytes,
  })

  // PostgreSQL deployments answer searches from their plaintext index; SQLite ones answer
  // ENOSYS and clients search in process (extensions/search.ts).
  const search = store.plaintext
    ? createServerSearch({
        index: store.plaintext,
        files,
        persistence,
        instance: () => hocuspocus,
        codecs: [markdownCodec],
        logger,
        ...(config.searchMemoryChars === undefined ? {} : { memoryChars: config.searchMemoryChars }),
      })
    : undefined

  const redis = config.redisUrl
    ? createRedisExtension({
        url: config.redisUrl,
        prefix: config.redisPrefix ?? DEFAULTS.redisPrefix,
        identifier: name,
        ...(config.redisResyncMs === undefined ? {} : { resyncMs: config.redisResyncMs }),
        logger,
        // Once a loaded doc is subscribed: what was stored meanwhile (redis.ts).
        load: (documentName) => persistence.load(documentName),
      })
    : undefined
  const extensions: Extension[] = [
    // Content docs keep deleted content (gc: false); see the extension's comment.
    createDocumentOptionsExtension(),
    createLoggingExtension(logger),
    createAuthExtension(authorizer, logger),
    persistence.extension,
    createBulkContentExtension({
      persistence,
      files,
      logger,
      limits,
      instance: () => hocuspocus,
      // Another process may hold a doc loaded: it gets the stored updates through Redis.
      ...(redis ? { publish: (updates) => redis.publishUpdates(updates) } : {}),
    }),
    createSearchExtension({ search, logger, limits }),
  ]
  if (redis) extensions.push(redis)

  extensions.push(...(config.extensions ?? []))
  const hocuspocus = new Hocuspocus({
    name,
    quiet: true,
    timeout: config.pingTimeoutMs ?? DEFAULTS.pingTimeoutMs,
    extensions: extensions.map((extension) => containStatelessHook(extension, logger)),
  })
  files.attach(hocuspocus)

  const maxMessageBytes = config.maxMessageBytes ?? DEFAULTS.maxMessageBytes
  const yws = createYwsHandler({ hocuspocus, authorizer, persistence, logger, limits, maxMessageBytes })
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: maxMessageBytes,
  })
  const sockets = new Set<WebSocket>()
  const maxDocs = config.maxDocsPerConnection ?? DEFAULTS.maxDocsPerConnection
  let closing: Promise<void> | undefined

  const handleAdmin = createAdminApi({ store, adminToken: config.adminToken, logger })
  const handleBackup = createBackupApi({
    store,
    adminToken: config.adminToken,
    logger,
    isOpen: (workspace) =>
      [...hocuspocus.documents.keys()].some((name) => name === workspace || name.startsWith(`${workspace}/`)),
  })
  const handleWebApp = createWebApp({ dir: config.appDir })
  // The /mcp sessions' connections: the same guard and Hocuspocus as a network client's, no TCP.
  const inProcessWebSocket = createInProcessWebSocket((socket) => {
    if (closing) return socket.terminate()
    // The guard and the server use only the members of `AcceptedSocket` (in-process-socket.ts).
    const ws = socket as unknown as WebSocket
    sockets.add(ws)
    ws.once('close', () => sockets.delete(ws))
    acceptHocuspocus(ws, IN_PROCESS_REQUEST)
  })
  // Agent tools over MCP; their workspaces connect to this server in process (inProcessWebSocket).
  let ownUrl: string | undefined
  const mcp = createMcpEndpoint({
    store,
    wsUrl: () => ownUrl,
    WebSocket: inProcessWebSocket,
    idleTimeoutMs: config.mcpIdleTimeoutMs,
    publicUrl: config.publicUrl,
    allowedOrigins: config.allowedOrigins,
  })

  function stats(): ServerStats {
    const memory = process.memoryUsage()
    return {
      name,
      store: store.kind,
      documents: hocuspocus.getDocumentsCount(),
      sockets: sockets.size,
      heldWorkspaces: files.size,
      uptimeSec: Math.round((Date.now() - started) / 1000),
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
    }
  }

  const handleHealth = createHealthEndpoint({
    adminToken: config.adminToken,
    hocuspocus,
    stats,
    closing: () => closing !== undefined,
  })

  async function handleRequest(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const url = requestUrl(request)
    if (handleHealth(request, response)) return true
    if (url.pathname === '/mcp') {
      if (closing) sendJson(response, 503, { error: 'shutting down' })
      else await mcp.handle(request, response)
      return true
    }
    if (await handleBackup(request, response)) return true
    if (await handleAdmin(request, response)) return true
    return handleWebApp(request, response)
  }

  const presenceOf = (docName: string) => hocuspocus.documents.get(docName)?.awareness.getStates()

  function handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if (closing) return false
    const path = requestUrl(request).pathname
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws)
      ws.once('close', () => sockets.delete(ws))
      // Without a listener an 'error' (e.g. 1009, message too big) would crash the process.
      ws.on('error', (error) => logger.warn('socket error', { error }))
      if (path.startsWith(YWS_PREFIX)) {
        yws.handle(ws, request)
        return
      }
      acceptHocuspocus(ws, request)
    })
    return true
  }

  /** A client socket's way in: Hocuspocus sees only what the guard lets through (protocol/guarded-socket.ts). */
  function acceptHocuspocus(ws: WebSocket, request: IncomingMessage): void {
    const guarded = guardSocket(ws, { limits, maxDocs, logger, presenceOf })
    hocuspocus.handleConnection(guarded, request)
  }

  const httpServer = createHttpServer((request, response) => {
    handleRequest(request, response)
      .then((handled) => {
        if (!handled) sendJson(response, 404, { error: 'not found' })
      })
      .catch((error) => {
        logger.error('request failed', { error })
        if (!response.headersSent) sendJson(response, 500, { error: 'internal error' })
      })
  })
  httpServer.on('upgrade', (request, socket, head) => {
    if (!handleUpgrade(request, socket, head)) socket.destroy()
  })

  async function shutdown(): Promise<void> {
    logger.info('shutting down', { sockets: sockets.size, documents: hocuspocus.getDocumentsCount() })
    await within(mcp.close(), 3000)
    const httpClosed = new Promise<void>((resolve) => httpServer.close(() => resolve()))
    httpServer.closeIdleConnections()
    for (const socket of sockets) socket.close(1001, 'server shutting down')
    await within(
      Promise.all(
        [...sockets].map(
          (s) =>
            new Promise<void>((r) => (s.readyState === WebSocket.CLOSED ? r() : s.once('close', () => r()))),
        ),
      ),
      3000,
    )
    for (const socket of sockets) socket.terminate()
    await persistence.flush()
    await files.releaseAll()
    await within(
      (async () => {
        while (hocuspocus.getDocumentsCount() > 0) await new Promise((r) => setTimeout(r, 20))
      })(),
      5000,
    )
    search?.close()
    await within(compactor.idle(), 10_000)
    await compactor.stop()
    await hocuspocus.hooks('onDestroy', { instance: hocuspocus })
    httpServer.closeAllConnections()
    await httpClosed
    logger.info('stopped')
  }

  return {
    httpServer,
    hocuspocus,
    async listen(port = 0, host = '127.0.0.1') {
      await new Promise<void>((resolve, reject) => {
        httpServer.once('error', reject)
        httpServer.listen(port, host, () => {
          httpServer.off('error', reject)
          resolve()
        })
      })
      const address = httpServer.address() as AddressInfo
      // Loopback reaches every interface we listen on (0.0.0.0, ::, 127.0.0.1).
      ownUrl = `ws://127.0.0.1:${address.port}`
      logger.info('listening', { name, host: address.address, port: address.port, store: store.kind })
      return address
    },
    close() {
      closing ??= shutdown()
      return closing
    },
    handleRequest,
    handleUpgrade,
    stats,
  }
}
