/**
 * Security at the tool boundary, checked over every tool rather than a few:
 * every path argument refuses NUL bytes and non-vfs forms, nothing climbs
 * above the workspace root, every output stays within its cap, hostile
 * scripts end within the execution limits, and no error shows a host path
 * or a stack trace.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from './testing/tool-harness.js'
import type { ToolResult } from './tool.js'

type JsonSchema = {
  type?: string
  description?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
}

/** Minimal valid arguments for a tool, from its JSON Schema. */
function minimalArgs(schema: JsonSchema): Record<string, unknown> {
  const args: Record<string, unknown> = {}
  for (const key of schema.required ?? []) {
    const prop = schema.properties![key]!
    if (prop.description?.startsWith('vfs:///')) args[key] = 'vfs:///x'
    else if (prop.type === 'integer' || prop.type === 'number') args[key] = 1
    else if (prop.type === 'boolean') args[key] = false
    else args[key] = 'x'
  }
  return args
}

const leaks = (r: ToolResult) => {
  const text = `${r.content[0]!.text}\n${JSON.stringify(r.structuredContent)}`
  return /\/work\/|node_modules|\n\s+at |file:\/\/|\.ts:\d+/.test(text)
}

describe('tool boundary security', () => {
  it('every argument is described, and every path argument is a vfs:/// URL', () => {
    const { tools } = setupTools()
    let pathArgs = 0
    for (const t of tools.list()) {
      const schema = t.inputSchema as JsonSchema
      for (const [key, prop] of Object.entries(schema.properties ?? {})) {
        expect(prop.description, `${t.name}.${key}`).toBeTruthy()
        if (/^(path|source|destination)$/.test(key)) {
          expect(prop.description!.startsWith('vfs:///'), `${t.name}.${key}`).toBe(true)
          pathArgs++
        }
      }
    }
    expect(pathArgs).toBeGreaterThanOrEqual(19)
  })

  it('every path argument of every tool refuses NUL bytes, bare paths and relative paths', async () => {
    const { tools, call } = setupTools()
    for (const t of tools.list()) {
      const schema = t.inputSchema as JsonSchema
      for (const [key, prop] of Object.entries(schema.properties ?? {})) {
        if (!prop.description?.startsWith('vfs:///')) continue
        const base = minimalArgs(schema)
        for (const [bad, says] of [
          ['vfs:///a\0b', 'NUL'],
          ['/etc/passwd', "use 'vfs:///etc/passwd'"],
          ['../../etc/passwd', "use 'vfs:///etc/passwd'"],
        ] as const) {
          const r = await call(t.name, { ...base, [key]: bad })
          expect(r.isError, `${t.name}.${key} = ${JSON.stringify(bad)}`).toBe(true)
          const error = r.structuredContent.error as { code: string; message: string }
          expect(error.code, `${t.name}.${key}`).toBe('EINVAL')
          expect(error.message, `${t.name}.${key}`).toContain(says)
          expect(leaks(r)).toBe(false)
        }
      }
    }
  })

  it('.. stays inside the workspace, for the tools and inside bash', async () => {
    const { ok } = setupTools()
    await ok('write_file', { path: 'vfs:///a/b/../../../../top.txt', content: 'x' })
    expect((await ok('glob', { pattern: '**' })).structuredContent.matches).toEqual(['vfs:///top.txt'])
    const r = await ok('bash', { script: 'cd /; cd ../../..; pwd; cat ../../top.txt; ls ../..' })
    expect(r.structuredContent.stdout).toMatch(/^\/\nx/)
    expect(r.structuredContent.stdout).toContain('top.txt')
  })

  it('bash sees neither the host environment nor host files', async () => {
    const { ok } = setupTools()
    const marker = 'yfs-host-secret-4711'
    process.env.YFS_TEST_SECRET = marker
    try {
      const r = await ok('bash', {
        script: 'env; printenv; cat /etc/passwd /proc/self/environ ~/.bashrc 2>&1; ls /home /root /tmp 2>&1',
      })
      const out = `${r.structuredContent.stdout}${r.structuredContent.stderr}`
      expect(out).not.toContain(marker)
      expect(out).not.toContain(process.cwd())
      expect(out).not.toMatch(/root:x:0:0/)
    } finally {
      delete process.env.YFS_TEST_SECRET
    }
  })

  it('every output stays within the cap, with a note saying it was cut', async () => {
    const max = 2000
    const { ok, fs } = setupTools({ maxOutputChars: max, maxResults: 40 })
    for (let i = 0; i < 200; i++)
      await fs.writeFile(`/f${String(i).padStart(3, '0')}.txt`, `match line ${i}\n`)
    await fs.writeFile('/big.txt', `${'match a long line of text\n'.repeat(2000)}`)
    const calls: [string, Record<string, unknown>][] = [
      ['bash', { script: 'seq 1 9000' }],
      ['bash', { script: 'seq 1 9000 >&2' }],
      ['read_file', { path: 'vfs:///big.txt' }],
      ['grep', { pattern: 'match' }],
      ['grep', { pattern: 'match', context_before: 3, context_after: 3 }],
      ['grep', { pattern: 'match', count_only: true }],
      ['glob', { pattern: '**' }],
      ['list_directory', { path: 'vfs:///' }],
      ['tree', { path: 'vfs:///' }],
      ['restore', {}],
    ]
    for (const [name, args] of calls) {
      const r = await ok(name, args)
      const text = r.content[0]!.text
      expect(text.length, `${name} ${JSON.stringify(args)}`).toBeLessThanOrEqual(max + 200)
      if (name !== 'restore') expect(text, `${name} ${JSON.stringify(args)}`).toMatch(/cut|not shown|more/)
    }
  })

  it('hostile scripts end within the execution limits and the workspace stays usable', async () => {
    const { ok } = setupTools()
    // Endless: stopped by a limit, with a non-zero exit code.
    const endless = [
      'while true; do :; done',
      'until false; do echo y; done | head -c 10',
      'f() { f; }; f',
      'x=a; while true; do x=$x$x; done',
      'for i in $(seq 1 100000000); do :; done',
    ]
    // Huge but finite: just-bash caps the expansion, so the output stays bounded.
    const huge = ['echo {1..100000000} | wc -c', 'printf "%0100000000d" 0 | wc -c']
    for (const script of [...endless, ...huge]) {
      const r = await ok('bash', { script, timeout_ms: 10_000 })
      if (endless.includes(script)) expect(r.structuredContent.exit_code, script).not.toBe(0)
      expect(r.structuredContent.timed_out ?? false, script).toBe(false)
      expect((r.structuredContent.stdout as string).length, script).toBeLessThan(100_000)
      expect(leaks(r), script).toBe(false)
    }
    await ok('write_file', { path: 'vfs:///still.txt', content: 'fine' })
    expect((await ok('read_file', { path: 'vfs:///still.txt' })).structuredContent.content).toBe('fine')
  })
})
