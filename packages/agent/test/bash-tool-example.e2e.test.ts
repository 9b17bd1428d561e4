/**
 * examples/bash-tool.ts stays runnable: its agent run (bash-tool on a YjsFileSystem through
 * the AI SDK, the scripted model) edits the workspace, and the file runs as a script
 * (`npx tsx examples/bash-tool.ts`, as the README says) and prints the result.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { runBashToolExample } from '../examples/bash-tool.js'

const EXAMPLE = fileURLToPath(new URL('../examples/bash-tool.ts', import.meta.url))
const PACKAGE = fileURLToPath(new URL('..', import.meta.url))

describe('examples/bash-tool.ts', () => {
  it("runs the agent's bash commands on the yfs workspace", async () => {
    const { text, fs } = await runBashToolExample()
    try {
      expect(text).toContain('write the docs')
      expect(await fs.readFile('/workspace/notes.md')).toBe('# Notes\n\n- [x] write the docs\n- [ ] ship\n')
      expect((await fs.history('/workspace/notes.md')).length).toBeGreaterThanOrEqual(2)
    } finally {
      fs.destroy()
    }
  })

  it('runs as a script', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', EXAMPLE], {
      cwd: PACKAGE,
      env: { ...process.env, YFS_EXAMPLE_MODEL: '' },
    })
    expect(stdout).toContain('- [x] write the docs')
    expect(stdout).toContain('versions in its history')
  })
})
