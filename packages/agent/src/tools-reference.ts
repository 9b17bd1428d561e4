/**
 * The MCP tools reference (docs/mcp-tools.md), rendered from the registry's
 * own definitions: the same names, descriptions and JSON Schemas a client
 * gets from `tools/list`, so the document cannot say anything the tools do
 * not. `scripts/tools-reference.ts` writes it; a test fails when the file in
 * the repository is not what this renders.
 */
import type { ToolDefinition } from './tool.js'

interface PropertySchema {
  type?: string | string[]
  description?: string
  enum?: unknown[]
  const?: unknown
  items?: PropertySchema
  anyOf?: PropertySchema[]
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function typeOf(p: PropertySchema): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' \\| ')
  if (p.const !== undefined) return JSON.stringify(p.const)
  if (p.anyOf) return p.anyOf.map(typeOf).join(' \\| ')
  if (p.type === 'array') return `${p.items ? typeOf(p.items) : 'any'}[]`
  return Array.isArray(p.type) ? p.type.join(' \\| ') : (p.type ?? 'any')
}

function bounds(p: PropertySchema): string {
  const parts: string[] = []
  if (p.minimum !== undefined) parts.push(`≥ ${p.minimum}`)
  if (p.maximum !== undefined) parts.push(`≤ ${p.maximum}`)
  if (p.minLength !== undefined && p.minLength > 1) parts.push(`length ≥ ${p.minLength}`)
  if (p.maxLength !== undefined) parts.push(`length ≤ ${p.maxLength}`)
  return parts.join(', ')
}

function hints(d: ToolDefinition): string {
  const a = d.annotations
  const words = [a.readOnlyHint ? 'read-only' : 'writes']
  if (a.destructiveHint) words.push('destructive')
  if (a.idempotentHint) words.push('idempotent')
  return words.join(', ')
}

/** The whole reference as Markdown. */
export function renderToolsReference(definitions: readonly ToolDefinition[]): string {
  const out = [
    '# MCP tools reference',
    '',
    '<!-- Generated from the tool registry by `pnpm docs:tools` (packages/agent/scripts/tools-reference.ts).',
    '     Do not edit: a test fails when this file differs from what the registry renders. -->',
    '',
    'Every tool of `@yfs/agent`, as MCP clients see it (`yfs mcp`, `yfs mcp --http`, the server’s `/mcp`).',
    'Paths are `vfs:///` URLs. How the tools behave together (stale writes, errors, limits): [agent-tools.md](agent-tools.md).',
    '',
    '| tool | title | kind |',
    '| --- | --- | --- |',
    ...definitions.map((d) => `| [\`${d.name}\`](#${d.name}) | ${cell(d.title)} | ${hints(d)} |`),
    '',
  ]
  for (const d of definitions) {
    out.push(`## ${d.name}`, '', `**${cell(d.title)}** — ${hints(d)}.`, '', d.description, '')
    const schema = d.inputSchema as { properties?: Record<string, PropertySchema>; required?: string[] }
    const properties = Object.entries(schema.properties ?? {})
    if (properties.length === 0) {
      out.push('No arguments.', '')
      continue
    }
    const required = new Set(schema.required ?? [])
    // Required arguments first, each group in the schema's order.
    properties.sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)))
    out.push('| argument | type | required | description |', '| --- | --- | --- | --- |')
    for (const [name, p] of properties) {
      const limit = bounds(p)
      const text = [p.description ?? '', limit && `(${limit})`].filter(Boolean).join(' ')
      out.push(`| \`${name}\` | ${typeOf(p)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(text)} |`)
    }
    out.push('')
  }
  return out.join('\n')
}
