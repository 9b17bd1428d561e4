/**
 * A tool is data: a name, a title, a description written for a model, an
 * arktype input type (its JSON Schema is generated), MCP annotations, and a
 * `run` that returns a structured result. Tools never see raw arguments:
 * the registry validates them once, at the edge.
 */
import type { ActivityLog, Searcher, YjsFileSystem } from '@yfs/core'
import type { Type } from 'arktype'
import type { ExecBackend } from './exec-backend.js'

export interface ToolAnnotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint?: boolean
}

export interface ToolContext {
  fs: YjsFileSystem
  exec: ExecBackend
  /** Answers `search` (the filesystem's in-process index, or a server's). */
  searcher: Searcher
  options: ToolOptions
  /** The workspace's activity log and this call's session (`activity`, `undo`). */
  activity: ActivityContext
  /** Aborted when the caller gives up on the call (Ctrl+C at `yfs bash`): long tools stop early. */
  signal?: AbortSignal
}

export interface ActivityContext {
  log: ActivityLog
  /** Session of the calling registry (one MCP session, or one registry instance). */
  session: string
}

export interface ToolOptions {
  /** Largest text a tool returns, in characters (default 30,000); longer output is cut with a note. */
  maxOutputChars: number
  /** Largest file `read_file` returns whole, in bytes (default 256 KiB); use line ranges beyond. */
  maxReadBytes: number
  /** Result cap of `grep` and `glob` (default 500). */
  maxResults: number
}

/** What `run` returns: structured data, and optionally the text a model reads (default: the JSON). */
export interface ToolOutput {
  structured: Record<string, unknown>
  text?: string
}

export interface Tool<I = unknown> {
  /** snake_case verb, unique in a registry (`read_file`). */
  name: string
  /** Short human title (MCP `title` and `annotations.title`). */
  title: string
  /** Written for a model: what the tool does, its defaults, limits and how it fails. */
  description: string
  /** Input type; every field has a `.describe()` and paths are vfs:/// URLs. */
  input: Type<I>
  annotations: ToolAnnotations
  /**
   * Run with validated input. Paths in the result are vfs:/// URLs. Throw an
   * `FsError` or a `ToolError` for a failure the model should see and correct;
   * the registry turns any throw into an `isError` result (a non-errno throw
   * is reported as EIO, as a bug). Must be safe to run concurrently with any
   * other call on the same filesystem: keep no state between calls.
   */
  run(input: I, ctx: ToolContext): Promise<ToolOutput>
}

/** A tool as clients see it (MCP `tools/list`). */
export interface ToolDefinition {
  name: string
  title: string
  description: string
  inputSchema: Record<string, unknown>
  annotations: ToolAnnotations & { title: string }
}

/** A tool call's result (MCP `tools/call`). */
export interface ToolResult {
  isError?: boolean
  content: { type: 'text'; text: string }[]
  structuredContent: Record<string, unknown>
}

/** Define a tool with its input type inferred. */
export function defineTool<I>(tool: Tool<I>): Tool<unknown> {
  return tool as Tool<unknown>
}
