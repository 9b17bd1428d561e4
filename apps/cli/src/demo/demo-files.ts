/**
 * The demo workspace `pnpm start` creates on first start: a README with
 * front matter, a small TypeScript project under `src/`, notes with a task
 * list, and a PNG, so every part of the app (tree, code editor, rich-text
 * editor with its front-matter form, image preview) has something real to
 * show. `seedDemo` writes only files that are missing, so it never undoes a
 * person's or an agent's edits and can run again after an interrupted start.
 */
import type { YjsFileSystem } from '@yfs/core'
import { encodePng } from './png.js'

/** A 96×96 logo: a rounded blue tile with a white folder, drawn pixel by pixel. */
export function demoLogo(): Uint8Array {
  const size = 96
  const rgba = new Uint8Array(size * size * 4)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4
      // Rounded corners: outside a radius-16 arc at each corner is transparent.
      const cx = Math.min(Math.max(x, 16), size - 17)
      const cy = Math.min(Math.max(y, 16), size - 17)
      const inside = (x - cx) ** 2 + (y - cy) ** 2 <= 16 ** 2
      if (!inside) continue
      const folder = (x >= 22 && x <= 74 && y >= 34 && y <= 72) || (x >= 22 && x <= 44 && y >= 28 && y < 34)
      const shade = Math.round(40 * (y / size))
      rgba.set(folder ? [255, 255, 255, 255] : [47 - shade / 2, 93 - shade, 138 - shade, 255], i)
    }
  }
  return encodePng(size, size, rgba)
}

/** Path → content of every demo file. */
export function demoFiles(): Map<string, string | Uint8Array> {
  return new Map<string, string | Uint8Array>([
    [
      '/README.md',
      `---
title: Demo workspace
owner: you
tags:
  - yfs
  - demo
---

# Welcome to yfs

This workspace is one filesystem that **people**, **agents** and **tools** use at the same time.
Edit this file here while an agent edits it through \`yfs mcp\`: both changes stay.

- \`src/\` is a small TypeScript project (open \`src/main.ts\` in the code editor).
- \`notes/todo.md\` has a task list; tick the boxes.
- \`assets/logo.png\` is an image.

Deleted files go to the Trash, where they can be restored.
`,
    ],
    [
      '/src/main.ts',
      `import { greet } from './greet.js'
import { sum } from './lib/math.js'

// TODO: read names from notes/people.md
const names = ['Ada', 'Grace', 'Linus']

for (const name of names) console.log(greet(name))
console.log(\`\${names.length} people, \${sum([1, 2, 3])} tasks\`)
`,
    ],
    [
      '/src/greet.ts',
      `/** A greeting for \`name\`. */
export function greet(name: string): string {
  return \`Hello, \${name}!\`
}
`,
    ],
    [
      '/src/lib/math.ts',
      `/** The sum of \`values\` (0 for none). */
export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

/** The mean of \`values\`; NaN for none. */
export function mean(values: readonly number[]): number {
  return sum(values) / values.length
}
`,
    ],
    [
      '/notes/todo.md',
      `# To do

- [x] Start yfs
- [ ] Open \`README.md\` and edit it
- [ ] Ask an agent to add a test for \`src/lib/math.ts\`
- [ ] Rename a file with F2
`,
    ],
    [
      '/notes/meeting-2026-03-02.md',
      `# Meeting, 2 March

Present: Ada, Grace.

1. Agents write to \`src/\`, people review in the browser.
2. The disk mirror keeps \`~/yfs/demo\` in sync for editors and git.

> Decision: keep notes in Markdown, one file per meeting.
`,
    ],
    ['/assets/logo.png', demoLogo()],
  ])
}

/** Write every demo file that does not exist yet (folders as needed); returns the paths written. */
export async function seedDemo(fs: YjsFileSystem): Promise<string[]> {
  const written: string[] = []
  for (const [path, content] of demoFiles()) {
    if (await fs.exists(path)) continue
    const parent = path.slice(0, path.lastIndexOf('/'))
    if (parent) await fs.mkdir(parent, { recursive: true })
    await fs.writeFile(path, content)
    written.push(path)
  }
  return written
}
