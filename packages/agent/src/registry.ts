/**
 * The tool registry: lists tool definitions (JSON Schema from arktype) and
 * executes calls — validating input once, running the tool, turning any
 * failure into an `isError` result, and capping output. Calls may run
 * concurrently: tools keep no state between calls and the filesystem orders
 * its own mutations.
 *
 * Every call (bash runs included) appends one entry to the workspace's
 * activity log (core activity-log.ts): who, which session, the arguments
 * summarised, the outcome, the duration and the files it changed with their
 * versions before and after (activity/call-recorder.ts). A read-only
 * filesystem logs nothing (it cannot write the log).
 */
import { randomUUID } from 'node:crypto'
import {
  type ActivityEntry,
  attachActivityLog,
  createFileId,
  type Searcher,
  searchIndexOf,
  type YjsFileSystem,
} from '@yfs/core'
import { type } from 'arktype'
import { type CallRecorder, startCall } from './activity/call-recorder.js'
import { summarizeArgs } from './activity/summarize-args.js'
import { capText } from './cap-text.js'
import { errorResult } from './errors.js'
import { createJustBashBackend, type ExecBackend, type JustBashLimits } from './exec-backend.js'
import type { Tool, ToolDefinition, ToolOptions, ToolResult } from './tool.js'
import { allTools } from './tools/index.js'

/** Who and which session a registry's calls are logged as. */
export interface ActivityIdentity {
  /** Session id (default: a random one per registry). */
  session?: string
  /** Who is calling, asked at each call (an MCP client's name is known only after initialize); default "agent". */
  who?: () => string | undefined
}

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
  /** How calls are logged in the activity log; `false`: not at all (benchmark baselines). */
  activity?: ActivityIdentity | false
}

/** Per-call options of `execute`. */
export interface ExecuteOptions {
  /**
   * Abort the call: `bash` stops its script (keeping what it printed; exit code 130, `interrupted`);
   * other tools finish (they are short) or see it before they start.
   */
  signal?: AbortSignal
}

export interface ToolRegistry {
  list(): ToolDefinition[]
  execute(name: string, args: unknown, options?: ExecuteOptions): Promise<ToolResult>
  /** The session this registry's calls are logged under. */
  readonly session: string
}

export const DEFAULT_TOOL_OPTIONS: ToolOptions = {
  maxOutputChars: 30_000,
  maxReadBytes: 256 * 1024,
  maxResults: 500,
}

/** The error code of a failed result (errorResult's structured `error.code`). */
const codeOf = (r: ToolResult) => (r.structuredContent.error as { code?: string } | undefined)?.code ?? 'EIO'

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
  const identity = options.activity === false ? undefined : (options.activity ?? {})
  const session = identity?.session ?? randomUUID()
  const log = attachActivityLog(fs.doc)
  const logging = identity !== undefined && !fs.readOnly
  // One exec per call: its runs report their events to the call's recorder.
  const recordedExec = (recorder: CallRecorder): ExecBackend => ({
    async run(command, args, opts) {
      const r = await exec.run(command, args, { ...opts, beforeChange: recorder.beforeChange })
      // A backend of another kind may not report its events: the recorder then goes by paths.
      if (r.events) recorder.adopt(r.events)
      return r
    },
    dispose: () => exec.dispose(),
  })
  const run = async (
    name: string,
    args: unknown,
    recorder: CallRecorder | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult> => {
    const tool = tools.get(name)
    if (!tool)
      return errorResult(new Error(`unknown tool '${name}'; available: ${[...tools.keys()].join(', ')}`))
    const input = tool.input(args ?? {})
    if (input instanceof type.errors) return errorResult(input)
    try {
      // One write batch per call: the rows it writes reach the main doc (and peers) together.
      const out = await fs.batch(() =>
        tool.run(input, {
          fs: recorder?.fs ?? fs,
          exec: recorder ? recordedExec(recorder) : exec,
          searcher,
          options: toolOptions,
          activity: { log, session },
          ...(signal ? { signal } : {}),
        }),
      )
      const text = capText(out.text ?? JSON.stringify(out.structured, null, 2), toolOptions.maxOutputChars)
      return { content: [{ type: 'text', text }], structuredContent: out.structured }
    } catch (error) {
      return errorResult(error)
    }
  }
  return {
    session,
    list: () => definitions,
    async execute(name, args, { signal } = {}) {
      if (!logging) return run(name, args, undefined, signal)
      const time = Date.now()
      const started = performance.now()
      const recorder = startCall(fs)
      let result: ToolResult | undefined
      try {
        result = await run(name, args, recorder, signal)
        return result
      } finally {
        // What the call changed is read now (before another call changes it); the entry is built
        // and appended after the result is on its way (`enqueue`: batched, off the call's path).
        const files = await recorder.finish()
        const entry: Omit<ActivityEntry, 'args' | 'id'> = {
          time,
          session,
          who: identity?.who?.() || 'agent',
          tool: name,
          status: result?.isError || !result ? 'error' : 'ok',
          ...(result?.isError ? { error: codeOf(result) } : {}),
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          files,
        }
        // The arguments are the caller's, parsed from JSON, and not changed after the call.
        // The id: a nanoid from core's pooled generator (`randomBytes` per call cost more than the rest).
        log.enqueue(() => ({ id: createFileId() as string, ...entry, args: summarizeArgs(args) }))
      }
    },
  }
}
