/**
 * Stale writes without a command scope (issue 22): just-bash opens `> f` by
 * truncating f, then writes the output. `new Bash({ fs })` on a
 * `YjsFileSystem` — the integration the design promises, with nothing of
 * ours around it — must not lose a person's edit made between the agent's
 * `cat f` and its heredoc rewrite of f; and `: > f`, `cat f > f`, `echo x > f`
 * and a long command with a redirect keep their POSIX results, for the agent
 * and for everyone else.
 */
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import { createFileSystem, type YjsFileSystem } from '../../src/index.js'
import { createReplicaNetwork, type ReplicaNetwork, typeInto } from '../../src/testing/index.js'

const BASE = 'one\ntwo\nthree\nfour\nfive\n'

async function twoReplicas(): Promise<{ net: ReplicaNetwork; agent: YjsFileSystem; person: YjsFileSystem }> {
  const net = createReplicaNetwork(2)
  const [agent, person] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
  await agent.writeFile('/notes.txt', BASE)
  await net.syncAll()
  return { net, agent, person }
}

describe('held truncations: new Bash({ fs }) with nothing of ours around it', () => {
  it("keeps a person's edit made between the agent's cat and its heredoc rewrite", async () => {
    const { net, agent, person } = await twoReplicas()
    try {
      const bash = new Bash({ fs: agent, cwd: '/' })
      expect((await bash.exec('cat /notes.txt')).stdout).toBe(BASE)
      await typeInto(person, '/notes.txt', 'four', ' (typed by a person)')
      await net.syncAll()
      // The agent rewrites the file from what it read, changing line two.
      const rewrite = await bash.exec("cat > /notes.txt <<'EOF'\none\nTWO (agent)\nthree\nfour\nfive\nEOF\n")
      expect(rewrite.exitCode).toBe(0)
      await net.syncAll()
      for (const fs of [agent, person])
        expect(await fs.readFile('/notes.txt')).toBe(
          'one\nTWO (agent)\nthree\nfour (typed by a person)\nfive\n',
        )
    } finally {
      net.destroy()
    }
  })

  it('peers never see the file empty in between: the truncation is held until the write', async () => {
    const { net, agent, person } = await twoReplicas()
    try {
      const seen: string[] = []
      // Sync after every change the agent makes, and record what the person reads each time.
      agent.doc.on('update', () => {
        net.send(0)
        net.receive(1)
        seen.push(person.table.get(person.index.lookup('/notes.txt')!)!.size.toString())
      })
      await new Bash({ fs: agent, cwd: '/' }).exec('echo replaced > /notes.txt')
      await net.syncAll()
      expect(await person.readFile('/notes.txt')).toBe('replaced\n')
      expect(seen).not.toContain('0')
    } finally {
      net.destroy()
    }
  })

  it(': > f empties f, for the agent at once and for everyone once the hold ends', async () => {
    const { net, agent, person } = await twoReplicas()
    try {
      await new Bash({ fs: agent, cwd: '/' }).exec(': > /notes.txt')
      // The agent sees it at once.
      expect(await agent.readFile('/notes.txt')).toBe('')
      await net.syncAll()
      expect(await person.readFile('/notes.txt')).toBe('')
    } finally {
      net.destroy()
    }
  })

  it(': > f alone reaches peers after the hold, with nobody reading on the agent side', async () => {
    const net = createReplicaNetwork(2)
    const [agent, person] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    try {
      await agent.writeFile('/notes.txt', BASE)
      await net.syncAll()
      await new Bash({ fs: agent, cwd: '/' }).exec(': > /notes.txt')
      await net.syncAll()
      // Held: the person still has the text, as with a slow network.
      expect(await person.readFile('/notes.txt')).toBe(BASE)
      await new Promise((resolve) => setTimeout(resolve, 1100))
      await net.syncAll()
      expect(await person.readFile('/notes.txt')).toBe('')
    } finally {
      net.destroy()
    }
  })

  it('cat f > f leaves f empty, as in POSIX', async () => {
    const { net, agent, person } = await twoReplicas()
    try {
      const r = await new Bash({ fs: agent, cwd: '/' }).exec(
        'cat /notes.txt > /notes.txt; cat /notes.txt | wc -c',
      )
      expect(r.stdout.trim()).toBe('0')
      await agent.flushTruncations()
      await net.syncAll()
      expect(await person.readFile('/notes.txt')).toBe('')
    } finally {
      net.destroy()
    }
  })

  it('echo x > f on a file this instance never read replaces it', async () => {
    const { net, person } = await twoReplicas()
    const fresh = net.replicas[0]!.fs
    try {
      await new Bash({ fs: fresh, cwd: '/' }).exec('echo x > /notes.txt; echo y >> /notes.txt')
      await net.syncAll()
      expect(await person.readFile('/notes.txt')).toBe('x\ny\n')
    } finally {
      net.destroy()
    }
  })

  it('a long command with a redirect: the truncation applies after the hold, the output when it comes', async () => {
    const { net, agent, person } = await twoReplicas()
    try {
      const run = new Bash({ fs: agent, cwd: '/' }).exec('{ sleep 1.5; echo late; } > /notes.txt')
      await new Promise((resolve) => setTimeout(resolve, 1200))
      await net.syncAll()
      // Past the hold: emptied for everyone, as POSIX does at the start of the command.
      expect(await person.readFile('/notes.txt')).toBe('')
      expect((await run).exitCode).toBe(0)
      await net.syncAll()
      expect(await person.readFile('/notes.txt')).toBe('late\n')
    } finally {
      net.destroy()
    }
  })

  it('looks at once (ls -l: the file and a symlink to it) all wait for the truncation being applied', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/d')
    await fs.writeFile('/d/f', 'two\n')
    await fs.symlink('/d/f', '/d/l')
    const bash = new Bash({ fs, cwd: '/' })
    await bash.exec(': > /d/f')
    // The first look starts applying the truncation; the others, through the link too, wait for it.
    const looks = await Promise.all([fs.stat('/d/f'), fs.stat('/d/l'), fs.readFile('/d/l')])
    expect(looks.map((s) => (typeof s === 'string' ? s.length : s.size))).toEqual([0, 0, 0])
    // A shell's `ls -l` stats a folder's entries at once: both show the file empty.
    await bash.exec('echo two > /d/f')
    await bash.exec(': > /d/f')
    expect((await bash.exec('ls -l /d | grep -c " 0 "')).stdout).toBe('2\n')
  })

  it('a stat or another change of the file applies the truncation first', async () => {
    const { net, agent } = await twoReplicas()
    try {
      await agent.writeFile('/notes.txt', '')
      expect((await agent.stat('/notes.txt')).size).toBe(0)
      await agent.writeFile('/notes.txt', 'again\n')
      await agent.writeFile('/notes.txt', '')
      await agent.mv('/notes.txt', '/moved.txt')
      expect(await agent.readFile('/moved.txt')).toBe('')
      await net.syncAll()
      expect(await net.replicas[1]!.fs.readFile('/moved.txt')).toBe('')
    } finally {
      net.destroy()
    }
  })

  it('in memory, a new file `> f` creates and then writes is created with the output: one version; `>>` adds one', async () => {
    const fs = createFileSystem()
    const bash = new Bash({ fs, cwd: '/' })
    await bash.exec(
      'echo "line 1" > /new.txt; printf "" > /empty.txt; echo a > /twice.txt; echo b >> /twice.txt',
    )
    expect((await fs.history('/new.txt')).map((v) => [v.reason, v.size])).toEqual([['write', 7]])
    expect(await fs.readFile('/new.txt')).toBe('line 1\n')
    // `>>` opens with an empty append, which changes nothing: the write's version, then the append's.
    expect((await fs.history('/twice.txt')).map((v) => v.size)).toEqual([2, 4])
    const before = await fs.stat('/twice.txt')
    await fs.appendFile('/twice.txt', '')
    expect((await fs.stat('/twice.txt')).mtime).toEqual(before.mtime)
    expect((await fs.history('/twice.txt')).length).toBe(2)
    expect(await fs.readFile('/twice.txt')).toBe('a\nb\n')
    expect(await fs.readFile('/empty.txt')).toBe('')
    // Opened once, a file's writes each keep their version again.
    await bash.exec('echo c > /new.txt')
    expect((await fs.history('/new.txt')).map((v) => v.size)).toEqual([7, 2])
  })
})
