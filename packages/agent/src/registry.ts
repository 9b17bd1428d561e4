/**
 * The tool registry: lists tool definitions (JSON Schema from arktype) and
 * executes calls — validating input once, running the tool, turning any
 * failure into an `isError` result, and capping output. Calls may run
 * concurrently: tools keep no state between calls and the filesystem orders
 * its own mutations.
 */
import { type Searcher, searchIndexOf, type YjsFileSystem } from '@yfs/core'
import { type } from 'arktype'
import { capText } from './cap-text.js'
import { errorResult } from './errors.js'
import { createJustBashBackend, type ExecBackend, type JustBashLimits } from './exec-backend.js'
import type { Tool, ToolDefinition, ToolOptions, ToolResult } from './tool.js'
import { allTools } from './tools/index.js'

export interface ToolRegistryOptions extends Partial<ToolOptions> {
  exec?: ExecBackend
  execLimits?: Partial<JustBashLimits>
  /** Extra tools (e.g. the MCP server's `stores`). */
  extraTools?: Tool[]
  /**
   * What answers `search`: default the filesystem's in-process index (core `searchIndexOf`,
   * built on the first search); a connected client passes the server's (`remoteSearcher`).
   */
  searcher?: Searcher
}

export interface ToolRegistry {
  list(): ToolDefinition[]
  execute(name: string, args: unknown): Promise<ToolResult>
}

export const DEFAULT_TOOL_OPTIONS: ToolOptions = {
  maxOutputChars: 30_000,
  maxReadBytes: 256 * 1024,
  maxResults: 500,
}

export function createToolRegistry(fs: YjsFileSystem, options: ToolRegistryOptions = {}): ToolRegistry {
  const toolOptions: ToolOptions = { ...DEFAULT_TOOL_OPTIONS, ...options }
  const exec = options.exec ?? createJustBashBackend(fs, options.execLimits)
  const searcher: Searcher = options.searcher ?? { search: (request) => searchIndexOf(fs).search(request) }
  const tools = new Map<string, Tool>()
  for (const t of [...allTools, ...(options.extraTools ?? [])]) tools.set(t.name, t)
  const definitions = [...tools.values()].map(
    (t): ToolDefinition => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.input.toJsonSchema() as Record<string, unknown>,
      annotations: { title: t.title, ...t.annotations },
    }),
  )
  return {
    list: () => definitions,
    async execute(name, args) {
      const tool = tools.get(name)
      if (!tool)
        return errorResult(new Error(`unknown tool '${name}'; available: ${[...tools.keys()].join(', ')}`))
      const input = tool.input(args ?? {})
      if (input instanceof type.errors) return errorResult(input)
      try {
        const out = await tool.run(input, { fs, exec, searcher, options: toolOptions })
        const text = capText(out.text ?? JSON.stringify(out.structured, null, 2), toolOptions.maxOutputChars)
        return { content: [{ type: 'text', text }], structuredContent: out.structured }
      } catch (error) {
        return errorResult(error)
      }
    },
  }
}
