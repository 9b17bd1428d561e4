// Tool-call overhead over MCP stdio (issue 6): read_file of a 2 KB file and grep over
// 1,000 files, through the official SDK client and a real child process. p50/p99.
// Run: pnpm --filter @yfs/agent bench
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const bin = fileURLToPath(new URL('../bin/yfs.mjs', import.meta.url))
const client = new Client({ name: 'bench', version: '1.0.0' })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'] }))

const body = `${'const value = 42 // some code on a line\n'.repeat(50)}`.slice(0, 2048)
await client.callTool({ name: 'write_file', arguments: { path: 'vfs:///one.ts', content: body } })
// 1,000 files for grep, written through one bash call (fast), one needle in every 50th file.
await client.callTool({
  name: 'bash',
  arguments: {
    script:
      'for i in $(seq 1 1000); do mkdir -p /src/d$((i % 20)); if [ $((i % 50)) -eq 0 ]; then echo "needle $i" > /src/d$((i % 20))/f$i.ts; else echo "hay $i" > /src/d$((i % 20))/f$i.ts; fi; done',
    timeout_ms: 120000,
  },
})

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
async function measure(
  label: string,
  runs: number,
  args: { name: string; arguments: Record<string, unknown> },
  check: (r: unknown) => void,
) {
  const times: number[] = []
  for (let i = 0; i < runs + 5; i++) {
    const t = performance.now()
    const r = await client.callTool(args)
    const ms = performance.now() - t
    check(r)
    if (i >= 5) times.push(ms)
    if (i % 20 === 0) process.stderr.write(`\r${label}: ${i}/${runs + 5}`)
  }
  process.stderr.write('\n')
  return `| ${label} | ${runs} | ${percentile(times, 50).toFixed(2)} ms | ${percentile(times, 99).toFixed(2)} ms |`
}

const rows = [
  await measure('read_file, 2 KB', 300, { name: 'read_file', arguments: { path: 'vfs:///one.ts' } }, (r) => {
    if ((r as { isError?: boolean }).isError) throw new Error('read failed')
  }),
  await measure(
    'grep over 1,000 files',
    100,
    { name: 'grep', arguments: { pattern: 'needle', path: 'vfs:///src' } },
    (r) => {
      const count = (r as { structuredContent: { count: number } }).structuredContent.count
      if (count !== 20) throw new Error(`grep found ${count}, expected 20`)
    },
  ),
]
console.log('| tool call over stdio | calls | p50 | p99 |\n|---|---|---|---|')
console.log(rows.join('\n'))
await client.close()
