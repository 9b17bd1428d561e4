// @yfs/agent — tools for agents on a yfs workspace, and an MCP server.

export type { PersonEdit } from './activity/people-edits.js'
export { peopleEdits } from './activity/people-edits.js'
export type { UndoAction, UndoConflict, UndoReport } from './activity/undo.js'
export { undoEntries } from './activity/undo.js'
export { keepShellWorkersWarm } from './bash-worker/run.js'
export { capText } from './cap-text.js'
export { errorResult, ToolError } from './errors.js'
export type {
  ExecBackend,
  ExecOptions,
  ExecResult,
  JustBashBackendOptions,
  JustBashLimits,
} from './exec-backend.js'
export { createJustBashBackend, DEFAULT_EXEC_LIMITS } from './exec-backend.js'
// The registry for agent frameworks: OpenAI here; AI SDK and LangChain at
// `@yfs/agent/ai-sdk` and `@yfs/agent/langchain` (their libraries are optional peers).
export type { OpenAiFunctionTool, OpenAiToolCall, OpenAiToolMessage } from './frameworks/openai-tools.js'
export { callWithJsonArguments, executeOpenAiToolCall, toOpenAiTools } from './frameworks/openai-tools.js'
export { bearerToken, generateToken, sameSecret } from './mcp/bearer.js'
export type {
  McpHttpHandler,
  McpHttpOptions,
  McpHttpServer,
  McpHttpSessionOptions,
  McpSessionResolver,
} from './mcp/http.js'
export {
  createMcpHttpHandler,
  DEFAULT_MCP_IDLE_TIMEOUT_MS,
  listenMcpHttp,
  McpHttpRefusal,
} from './mcp/http.js'
export type { OriginPolicy, OriginVerdict } from './mcp/origin-guard.js'
export { checkOriginAndHost, normalizeOrigin } from './mcp/origin-guard.js'
export type { McpSession, McpSessionOptions } from './mcp/server.js'
export { createMcpSession, SERVER_INFO } from './mcp/server.js'
export type { ServerStores, ServerStoresOptions } from './mcp/server-stores.js'
export { createServerStores } from './mcp/server-stores.js'
export type { StoreProvider } from './mcp/stores.js'
export { createMemoryStores } from './mcp/stores.js'
export type { ClosableStores, McpCommandOptions } from './mcp-command.js'
export { collectOrigins, createMcpCommand, originArgument } from './mcp-command.js'
export type { ActivityIdentity, ExecuteOptions, ToolRegistry, ToolRegistryOptions } from './registry.js'
export { createToolRegistry, DEFAULT_TOOL_OPTIONS } from './registry.js'
export { grepRequirement } from './search/grep-requirement.js'
export type { IndexedGrep } from './search/indexed-grep.js'
export { createIndexedGrep } from './search/indexed-grep.js'
export type {
  Tool,
  ToolAnnotations,
  ToolContext,
  ToolDefinition,
  ToolOptions,
  ToolOutput,
  ToolResult,
} from './tool.js'
export { defineTool } from './tool.js'
export { allTools } from './tools/index.js'
export { fromVfsPath, toVfsPath, VFS_SCHEME } from './vfs-path.js'
