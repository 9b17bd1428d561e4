// Vercel's bash-tool (`createBashTool`, the AI SDK's bash tool) on a yfs workspace: a just-bash
// `Bash` on a `YjsFileSystem` is its sandbox, with nothing of ours around the shell. An agent that
// reads a file, and rewrites it with a heredoc while a person types in it on another replica, keeps
// the person's edit (issue 22: the filesystem holds the truncation of `> f` until the write).
import type { YjsFileSystem } from '@yfs/core'
import { createReplicaNetwork, typeInto } from '@yfs/core/testing'
import { createBashTool } from 'bash-tool'
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'

const BASE = 'one\ntwo\nthree\nfour\nfive\n'

describe('createBashTool on a YjsFileSystem', () => {
  it("keeps a person's edit made between the agent's cat and its heredoc rewrite", async () => {
    const net = createReplicaNetwork(2)
    const [agent, person] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    try {
      await agent.mkdir('/workspace')
      await agent.writeFile('/workspace/notes.txt', BASE)
      await net.syncAll()
      const { tools } = await createBashTool({
        sandbox: new Bash({ fs: agent, cwd: '/workspace' }),
        destination: '/workspace',
      })
      // The AI SDK calls `execute` with the model's input; the result is the tool's CommandResult.
      const run = async (command: string) =>
        (await tools.bash.execute!({ command }, { toolCallId: 'call', messages: [], context: {} })) as {
          stdout: string
          exitCode: number
        }
      expect((await run('cat notes.txt')).stdout).toBe(BASE)
      await typeInto(person, '/workspace/notes.txt', 'four', ' (typed by a person)')
      await net.syncAll()
      const rewrite = await run("cat > notes.txt <<'EOF'\none\nTWO (agent)\nthree\nfour\nfive\nEOF")
      expect(rewrite.exitCode).toBe(0)
      await net.syncAll()
      const want = 'one\nTWO (agent)\nthree\nfour (typed by a person)\nfive\n'
      expect(await agent.readFile('/workspace/notes.txt')).toBe(want)
      expect(await person.readFile('/workspace/notes.txt')).toBe(want)
      // And plain redirections keep their POSIX results through it.
      expect((await run(': > notes.txt; wc -c < notes.txt')).stdout.trim()).toBe('0')
      expect((await run('echo x > new.txt; cat new.txt')).stdout).toBe('x\n')
    } finally {
      net.destroy()
    }
  })
})
