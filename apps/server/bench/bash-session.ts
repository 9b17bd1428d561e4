/**
 * An MCP session on a `yfs serve` child's `/mcp`, in a workspace of its own, for the benchmarks
 * that call its `bash` tool (mcp-bash.bench.ts, repeated-overwrites.bench.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { adminSetup, type ServerProcess } from '../../cli/test/spawn-server.js'
import { dropSchema, testSchema } from '../test/services.js'

/** What the `bash` tool gives back. */
export interface BashOutcome {
  stdout: string
  stderr: string
  exit_code: number
}

export interface BashSession {
  /** Run `script` (two minutes at most); rejects when the tool reports an error. */
  bash(script: string): Promise<BashOutcome>
  /** End the session and its connection. */
  close(): Promise<void>
}

/** A session on `target` in a new workspace `workspace` (made with the admin token `adminToken`). */
export async function openBashSession(
  target: ServerProcess,
  adminToken: string,
  workspace: string,
): Promise<BashSession> {
  const token = await adminSetup(target.http, adminToken, workspace)
  const client = new Client({ name: 'bench', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${target.http}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  return {
    async bash(script) {
      const res = (await client.callTool(
        { name: 'bash', arguments: { script, timeout_ms: 120_000 } },
        undefined,
        { timeout: 600_000 },
      )) as { isError?: boolean; structuredContent?: BashOutcome }
      if (res.isError || !res.structuredContent)
        throw new Error(`${script}: ${JSON.stringify(res.structuredContent).slice(0, 300)}`)
      return res.structuredContent
    },
    async close() {
      await transport.terminateSession().catch(() => undefined)
      await client.close()
    },
  }
}

/**
 * Where a benchmark's `yfs serve` stores: `dataDir` (SQLite), or with `postgres` a schema of its
 * own on that database; `drop` removes the schema once the server has stopped.
 */
export function benchStore(dataDir: string, postgres?: string): { args: string[]; drop(): Promise<void> } {
  if (postgres === undefined) return { args: ['--data', dataDir], drop: async () => undefined }
  const schema = testSchema('yfs_bench')
  return { args: ['--postgres', postgres, '--pg-schema', schema], drop: () => dropSchema(schema, postgres) }
}
