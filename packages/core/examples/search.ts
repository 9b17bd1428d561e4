// The README's search example: `pnpm --filter @yfs/core example:search`.
import { createFileSystem, searchIndexOf } from '../src/index.js'

const fs = createFileSystem()
await fs.mkdir('/notes')
await fs.writeFile('/notes/plan.md', '# Plan\n\nShip the search index.\n')
const index = searchIndexOf(fs) // the filesystem's shared index, built now
const { hits, total } = await index.search({ query: 'search\\s+\\w+', regex: true, include: ['*.md'] })
console.log(total, hits[0]!.path, hits[0]!.matches[0])
// 1 /notes/plan.md { line: 3, column: 10, length: 12, snippet: 'Ship the search index.', mark: [ 9, 21 ] }
index.destroy()
