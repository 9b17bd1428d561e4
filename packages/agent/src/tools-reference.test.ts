import { readFileSync } from 'node:fs'
import { createFileSystem } from '@yfs/core'
import { expect, it } from 'vitest'
import { createToolRegistry } from './registry.js'
import { renderToolsReference } from './tools-reference.js'

it('docs/mcp-tools.md is what the registry renders (run `pnpm docs:tools` after changing a tool)', () => {
  const definitions = createToolRegistry(createFileSystem()).list()
  const rendered = renderToolsReference(definitions)
  const stored = readFileSync(new URL('../../../docs/mcp-tools.md', import.meta.url), 'utf8')
  expect(stored).toBe(rendered)
  // Every tool and every argument is in it.
  for (const d of definitions) {
    expect(rendered).toContain(`## ${d.name}\n`)
    for (const arg of Object.keys((d.inputSchema as { properties?: object }).properties ?? {}))
      expect(rendered).toContain(`| \`${arg}\` |`)
  }
})
