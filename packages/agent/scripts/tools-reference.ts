// Writes docs/mcp-tools.md from the tool registry (`pnpm docs:tools`).
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createFileSystem } from '@yfs/core'
import { createToolRegistry } from '../src/index.js'
import { renderToolsReference } from '../src/tools-reference.js'

const target = fileURLToPath(new URL('../../../docs/mcp-tools.md', import.meta.url))
writeFileSync(target, renderToolsReference(createToolRegistry(createFileSystem()).list()))
console.log(`wrote ${target}`)
