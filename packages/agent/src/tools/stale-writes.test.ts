/**
 * Stale writes through the agent tools (issue 11): the agent reads a file, a
 * person edits another part of it (straight on the content doc, as an editor
 * does), then the agent writes its older copy back through write_file,
 * edit_file, apply_patch or bash (heredoc or sed -i in a later exec call).
 * Both edits survive and the result says a merge happened; an overlap says
 * which lines and how to get the other version back.
 */
import { TEXT_KEY, type YjsFileSystem } from '@yfs/core'
import { describe, expect, it } from 'vitest'
import { setupTools } from '../testing/tool-harness.js'

const base = 'one\ntwo\nthree\nfour\nfive\n'

async function personTypes(fs: YjsFileSystem, path: string, after: string, text: string): Promise<void> {
  const handle = await fs.pool.acquire(fs.index.lookup(path)!)
  try {
    const t = handle.doc.getText(TEXT_KEY)
    handle.doc.transact(() => t.insert(t.toString().indexOf(after) + after.length, text), 'editor')
  } finally {
    handle.release()
  }
}

describe('stale writes through the tools', () => {
  it('bash: cat in one call, a person edits, a heredoc rewrite in a later call keeps both edits', async () => {
    const { ok, fs } = setupTools()
    await fs.writeFile('/f.txt', base)
    expect((await ok('bash', { script: 'cat /f.txt' })).structuredContent.stdout).toBe(base)
    await personTypes(fs, '/f.txt', 'four', ' (person)')
    const r = await ok('bash', {
      script: "cat > /f.txt <<'EOF'\none\nTWO (agent)\nthree\nfour\nfive\nEOF\ncat /f.txt",
    })
    const want = 'one\nTWO (agent)\nthree\nfour (person)\nfive\n'
    expect(r.structuredContent.stdout).toBe(want)
    expect(await fs.readFile('/f.txt')).toBe(want)
    expect(r.structuredContent.merges).toEqual([{ path: 'vfs:///f.txt', conflict: false }])
    expect(r.content[0]!.text).toContain('[merged] vfs:///f.txt had changed since you last read it')
  })

  it('bash: sed -i in a later call keeps the edit made in between', async () => {
    const { ok, fs } = setupTools()
    await fs.writeFile('/f.txt', base)
    await ok('bash', { script: 'cat /f.txt' })
    await personTypes(fs, '/f.txt', 'five', ' (person)')
    await ok('bash', { script: "sed -i 's/two/TWO/' /f.txt" })
    expect(await fs.readFile('/f.txt')).toBe('one\nTWO\nthree\nfour\nfive (person)\n')
  })

  it('bash: a truncation alone still empties the file, and > f with a read of f in one command reads it empty', async () => {
    const { ok, fs } = setupTools()
    await fs.writeFile('/f.txt', base)
    await ok('bash', { script: ': > /f.txt' })
    expect(await fs.readFile('/f.txt')).toBe('')
    await fs.writeFile('/g.txt', base)
    expect(
      (await ok('bash', { script: 'cat /g.txt > /g.txt; wc -c < /g.txt' })).structuredContent.stdout,
    ).toMatch(/^\s*0\n$/)
    await fs.writeFile('/h.txt', base)
    await ok('bash', { script: 'exec 3>/h.txt; echo x >&3; exec 3>&-' })
    expect(await fs.readFile('/h.txt')).toBe('x\n')
  })

  it('write_file says it merged; an overlap names the lines and the version that keeps the other text', async () => {
    const { ok, fs } = setupTools()
    await fs.writeFile('/f.txt', base)
    await ok('read_file', { path: 'vfs:///f.txt' })
    await personTypes(fs, '/f.txt', 'three', ' (person)')
    const r = await ok('write_file', {
      path: 'vfs:///f.txt',
      content: base.replace('three', 'THREE (agent)'),
    })
    expect(await fs.readFile('/f.txt')).toBe('one\ntwo\nTHREE (agent)\nfour\nfive\n')
    const merge = r.structuredContent.merge as { conflict: boolean; replaced_version: string }
    expect(merge).toMatchObject({ path: 'vfs:///f.txt', conflict: true })
    expect(r.content[0]!.text).toContain('both changed line 3: your version was kept there')
    expect(r.content[0]!.text).toContain(`from_version ${merge.replaced_version}`)
    await ok('checkout_version', { path: 'vfs:///f.txt', version: merge.replaced_version })
    expect(await fs.readFile('/f.txt')).toBe('one\ntwo\nthree (person)\nfour\nfive\n')
  })

  it('write_file with no concurrent change reports nothing extra', async () => {
    const { ok, fs } = setupTools()
    await fs.writeFile('/f.txt', base)
    await ok('read_file', { path: 'vfs:///f.txt' })
    const r = await ok('write_file', { path: 'vfs:///f.txt', content: 'x\n' })
    expect(r.structuredContent.merge).toBeUndefined()
  })

  it('apply_patch against an older read merges the change made since', async () => {
    const { ok, fs } = setupTools()
    await fs.writeFile('/f.txt', base)
    const patch = '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n'
    // The patch tool reads the file itself, so the edit must land between its read and its commit:
    // the person types while the transaction stages.
    const staged = fs.transaction.bind(fs)
    fs.transaction = async (ops) => {
      await personTypes(fs, '/f.txt', 'five', ' (person)')
      return staged(ops)
    }
    const r = await ok('apply_patch', { patch })
    expect(await fs.readFile('/f.txt')).toBe('ONE\ntwo\nthree\nfour\nfive (person)\n')
    expect(r.structuredContent.merges).toEqual([{ path: 'vfs:///f.txt', conflict: false }])
  })
})
