// Writes docs/cli.md from the `yfs` program's command definitions (`pnpm docs:cli`).
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createProgram } from '../src/cli.js'
import { renderCliReference } from '../src/cli-reference.js'

const target = fileURLToPath(new URL('../../../docs/cli.md', import.meta.url))
writeFileSync(
  target,
  renderCliReference(createProgram(), fileURLToPath(new URL('../../../', import.meta.url))),
)
console.log(`wrote ${target}`)
