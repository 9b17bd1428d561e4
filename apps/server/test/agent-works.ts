/** A real MCP agent against a server's `/mcp`, for the tests of its guards. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { expect } from 'vitest'

/** A real MCP client with this token (and Origin) writes a file and reads it back with bash. */
export async function agentWorks(port: number, token: string, origin?: string): Promise<void> {
  const client = new Client({ name: 'test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...(origin ? { origin } : {}) } },
  })
  await client.connect(transport)
  try {
    await client.callTool({ name: 'write_file', arguments: { path: 'vfs:///o.txt', content: 'ok' } })
    const r = (await client.callTool({ name: 'bash', arguments: { script: 'cat /o.txt' } })) as unknown as {
      structuredContent: { stdout: string }
    }
    expect(r.structuredContent.stdout).toBe('ok')
  } finally {
    await transport.terminateSession()
    await client.close()
  }
}
