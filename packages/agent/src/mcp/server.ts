/**
 * The MCP server: adapts a tool registry per session to MCP (`tools/list`,
 * `tools/call`). It holds no tool logic. Tools are listed with their JSON
 * Schema and annotations; results carry `structuredContent` and a text block.
 */
import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { YjsFileSystem } from '@yfs/core'
import { type } from 'arktype'
import { keepShellWorkersWarm } from '../bash-worker/run.js'
import { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from '../registry.js'
import { defineTool, type Tool } from '../tool.js'
import { ToolError } from '../tool-error.js'
import type { StoreProvider } from './stores.js'

export interface McpSessionOptions {
  stores: StoreProvider
  /** Open this shared store instead of a private workspace. */
  store?: string
  registry?: Omit<ToolRegistryOptions, 'extraTools'>
  /**
   * Who the session's calls are logged as when the MCP client sends no `clientInfo.name`
   * (a token's name, say); the activity log falls back to "agent" without either.
   */
  who?: string
}

/**
 * One MCP session: its current workspace and the tools bound to it. When
 * the server's transport closes, the session's private workspace is
 * destroyed (shared stores stay open for other sessions).
 */
export interface McpSession {
  readonly server: Server
  readonly storeName: () => string | undefined
  readonly fs: () => YjsFileSystem
  /** The activity-log session of this MCP session's calls. */
  readonly session: string
}

export const SERVER_INFO = { name: 'yfs', version: '0.1.0' }

export async function createMcpSession(options: McpSessionOptions): Promise<McpSession> {
  let storeName = options.store ?? options.stores.defaultStore
  const privateFs = storeName ? undefined : await options.stores.createPrivate()
  let fs = privateFs ?? (await options.stores.open(storeName!))
  const storesTool: Tool = defineTool({
    name: 'stores',
    title: 'Workspaces',
    description:
      'List the shared workspaces (stores), or open one: after open, every other tool works on that shared workspace, which other sessions and people can see. A session starts in the store it was started with, else in a private workspace.',
    input: type({
      action: type("'list' | 'open'").describe('list the stores, or open the store called name'),
      'name?': type(/^[\w.-]{1,64}$/).describe('store name (letters, digits, . _ -)'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    async run(input) {
      if (input.action === 'open') {
        if (!input.name) throw new ToolError('EINVAL', "stores: action 'open' needs a name")
        fs = await options.stores.open(input.name)
        storeName = input.name
        registry = makeRegistry()
      }
      return { structured: { current: storeName ?? '(private)', stores: await options.stores.list() } }
    },
  })
  // One activity session per MCP session, across `stores` switches; who is the client's name,
  // else the name the session was opened under (its token's).
  const activity = {
    session: randomUUID(),
    who: () => server.getClientVersion()?.name || options.who,
  }
  const makeRegistry = (): ToolRegistry =>
    createToolRegistry(fs, {
      activity,
      ...options.registry,
      extraTools: [storesTool],
      ...(options.stores.searcherOf?.(fs) ? { searcher: options.stores.searcherOf(fs) } : {}),
    })
  let registry = makeRegistry()

  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      'yfs workspace tools. Paths are vfs:/// URLs (vfs:///src/a.ts). Use bash for grep/find/sed pipelines, read_file with line ranges for big files, edit_file for precise edits, checkpoint before risky changes.',
  })
  // A session's bash calls come seconds apart: each would otherwise start a cold worker.
  const releaseWorkers = keepShellWorkersWarm()
  server.onclose = () => {
    releaseWorkers()
    privateFs?.destroy()
  }
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: registry.list() }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const ranOn = fs
    // A client's notifications/cancelled aborts the call (bash stops its script).
    const result = await registry.execute(request.params.name, request.params.arguments ?? {}, {
      signal: extra.signal,
    })
    try {
      await options.stores.settle?.(ranOn)
    } catch (error) {
      // The call did run; say its changes may not be stored yet (the stores retry on close).
      const note = `warning: the changes are not stored yet: ${(error as Error).message}`
      return { ...result, content: [...result.content, { type: 'text' as const, text: note }] }
    }
    return { ...result }
  })
  return { server, storeName: () => storeName, fs: () => fs, session: activity.session }
}
