/**
 * The MCP client of the activity benchmark's round-trip rows, as its own
 * program (MCP clients are: an agent, an IDE), so the server's event loop is
 * not also the client's. Connects to the servers in BENCH_SERVERS (JSON:
 * `{ servers: [{ url, token }], runs, warmup }`), calls write_file on each in
 * turn (order alternating), checks that every server answered the same, and
 * prints the round-trip times (ms) per server as JSON on stdout.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { writeFileBody } from './write-file-body.js'

interface Plan {
  servers: { url: string; token: string }[]
  runs: number
  warmup: number
}
const plan = JSON.parse(process.env.BENCH_SERVERS ?? '') as Plan
const clients: Client[] = []
for (const s of plan.servers) {
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(s.url), {
      requestInit: { headers: { authorization: `Bearer ${s.token}` } },
    }),
  )
  clients.push(client)
}
const times: number[][] = clients.map(() => [])
for (let i = 0; i < plan.runs + plan.warmup; i++) {
  const order = clients.map((_, k) => k)
  if (i % 2) order.reverse()
  const answers: string[] = []
  for (const k of order) {
    const t = performance.now()
    const r = await clients[k]!.callTool({
      name: 'write_file',
      arguments: { path: 'vfs:///src/one.ts', content: writeFileBody(i) },
    })
    const dt = performance.now() - t
    if (r.isError) throw new Error(JSON.stringify(r.content))
    answers.push(JSON.stringify(r.structuredContent))
    if (i >= plan.warmup) times[k]!.push(dt)
  }
  if (new Set(answers).size !== 1) throw new Error(`results differ: ${answers.join(' / ')}`)
}
for (const client of clients) await client.close()
process.stdout.write(JSON.stringify(times))
