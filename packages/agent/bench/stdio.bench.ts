// Tool-call overhead over MCP stdio (issue 6): read_file of a 2 KB file and grep over
// 1,000 files, through the official SDK client and a real child process, against the
// same call on an in-process registry (the reference: same tools, no MCP, no stdio).
// Calls alternate between the two sides after a warm-up; both must return the same
// structured result. Prints p50/p99 (and min/max) per side and the p50 ratio.
// Run: pnpm --filter @yfs/agent bench
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createFileSystem } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { createToolRegistry } from '../src/index.js'

const bin = fileURLToPath(new URL('../bin/yfs.mjs', import.meta.url))
const client = new Client({ name: 'bench', version: '1.0.0' })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'] }))
const local = createToolRegistry(createFileSystem({ codecs: [markdownCodec], author: 'agent' }))

type Call = { name: string; arguments: Record<string, unknown> }
type Result = { isError?: boolean; structuredContent?: Record<string, unknown> }
const viaStdio = async (c: Call) => (await client.callTool(c)) as Result
const inProcess = async (c: Call) => (await local.execute(c.name, c.arguments)) as Result

const body = `${'const value = 42 // some code on a line\n'.repeat(50)}`.slice(0, 2048)
// 1,000 files for grep, written through one bash call, one needle in every 50th file.
const setup: Call[] = [
  { name: 'write_file', arguments: { path: 'vfs:///one.ts', content: body } },
  {
    name: 'bash',
    arguments: {
      script:
        'for i in $(seq 1 1000); do mkdir -p /src/d$((i % 20)); if [ $((i % 50)) -eq 0 ]; then echo "needle $i" > /src/d$((i % 20))/f$i.ts; else echo "hay $i" > /src/d$((i % 20))/f$i.ts; fi; done',
      timeout_ms: 120000,
    },
  },
]
for (const c of setup)
  for (const side of [viaStdio, inProcess]) if ((await side(c)).isError) throw new Error(c.name)

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
const ms = (x: number) => `${x.toFixed(2)} ms`

async function measure(label: string, runs: number, c: Call, check: (r: Result) => void) {
  const times = { stdio: [] as number[], local: [] as number[] }
  const warmup = 10
  for (let i = 0; i < runs + warmup; i++) {
    // Alternate which side goes first, so neither always runs on a warmer cache.
    const order = i % 2 === 0 ? (['stdio', 'local'] as const) : (['local', 'stdio'] as const)
    const results: Partial<Record<'stdio' | 'local', Result>> = {}
    for (const side of order) {
      const t = performance.now()
      results[side] = await (side === 'stdio' ? viaStdio : inProcess)(c)
      if (i >= warmup) times[side].push(performance.now() - t)
    }
    check(results.stdio!)
    if (JSON.stringify(results.stdio!.structuredContent) !== JSON.stringify(results.local!.structuredContent))
      throw new Error(`${label}: stdio and in-process results differ`)
    if (i % 20 === 0) process.stderr.write(`\r${label}: ${i}/${runs + warmup}`)
  }
  process.stderr.write('\n')
  const row = (side: 'stdio' | 'local', name: string) =>
    `| ${label} | ${name} | ${runs} | ${ms(percentile(times[side], 50))} | ${ms(percentile(times[side], 99))} | ${ms(Math.min(...times[side]))} – ${ms(Math.max(...times[side]))} |`
  const ratio = percentile(times.stdio, 50) / percentile(times.local, 50)
  return [
    row('stdio', 'MCP over stdio'),
    row('local', 'in-process registry'),
    `| | stdio / in-process (p50) | | ${ratio.toFixed(1)}× | | |`,
  ]
}

const rows = [
  ...(await measure(
    'read_file, 2 KB',
    300,
    { name: 'read_file', arguments: { path: 'vfs:///one.ts' } },
    (r) => {
      if (r.isError) throw new Error('read failed')
    },
  )),
  ...(await measure(
    'grep over 1,000 files',
    100,
    { name: 'grep', arguments: { pattern: 'needle', path: 'vfs:///src' } },
    (r) => {
      const count = r.structuredContent?.count
      if (count !== 20) throw new Error(`grep found ${count}, expected 20`)
    },
  )),
]
console.log('| tool call | side | calls | p50 | p99 | min – max |\n|---|---|---|---|---|---|')
console.log(rows.join('\n'))
await client.close()
