/**
 * @yfs/markdown plugged into @yfs/core: bash on .md files, convert-on-switch
 * when a rename changes the kind, self-healing, row size upkeep and history.
 */
import { createFileSystem, docPlaintext, isFsError, TEXT_KEY, type YjsFileSystem } from '@yfs/core'
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { FRONTMATTER_KEY, markdownCodec, RICHTEXT_KEY } from '../src/index.js'

const make = () => createFileSystem({ codecs: [markdownCodec] })
const docOf = async (fs: YjsFileSystem, path: string) => {
  const h = await fs.pool.acquire(fs.index.lookup(path)!)
  h.release()
  return h.doc
}
const NOTE = '---\ntitle: Plan\n---\n# Plan\n\n- write the core\n- ship it\n'

describe('Markdown files in YjsFileSystem', () => {
  it('cat, grep and sed -i behave as on plain text', async () => {
    const fs = make()
    const bash = new Bash({ fs, cwd: '/' })
    await fs.writeFile('/plan.md', NOTE)
    let r = await bash.exec('cat /plan.md; grep -n ship /plan.md; grep -c "^- " /plan.md')
    expect(r.stdout).toBe(`${NOTE}7:- ship it\n2\n`)
    r = await bash.exec("sed -i 's/ship it/ship it today/' /plan.md && tail -1 /plan.md && wc -l < /plan.md")
    expect(r.stdout).toBe('- ship it today\n7\n')
    const doc = await docOf(fs, '/plan.md')
    expect(doc.getXmlFragment(RICHTEXT_KEY).length).toBe(2) // heading + list: rich text, not Y.Text
    expect(doc.getMap(FRONTMATTER_KEY).get('title')).toBe('Plan')
    expect(doc.share.has(TEXT_KEY)).toBe(false)
    expect((await fs.stat('/plan.md')).size).toBe(
      new TextEncoder().encode(await fs.readFile('/plan.md')).byteLength,
    )
  })

  it('renaming .txt → .md → .ts → .md converts the content each time, and same-kind renames do not', async () => {
    const fs = make()
    await fs.writeFile('/notes.txt', NOTE)
    await fs.mv('/notes.txt', '/notes.md')
    let doc = await docOf(fs, '/notes.md')
    expect(doc.getXmlFragment(RICHTEXT_KEY).length).toBe(2)
    expect(doc.getMap(FRONTMATTER_KEY).toJSON()).toEqual({ title: 'Plan' })
    expect(await fs.readFile('/notes.md')).toBe(NOTE)
    await fs.mv('/notes.md', '/notes.ts')
    doc = await docOf(fs, '/notes.ts')
    expect(doc.getText(TEXT_KEY).toString()).toBe(NOTE)
    await fs.writeFile('/notes.ts', `${NOTE}\nMore text.\n`)
    await fs.mv('/notes.ts', '/renamed.md')
    expect(await fs.readFile('/renamed.md')).toBe(`${NOTE}\nMore text.\n`)
    const before = (await docOf(fs, '/renamed.md')).getXmlFragment(RICHTEXT_KEY).toArray()
    await fs.mv('/renamed.md', '/again.markdown') // same kind: nothing converted
    expect((await docOf(fs, '/again.markdown')).getXmlFragment(RICHTEXT_KEY).toArray()).toEqual(before)
  })

  it('a converting rename changes the doc in one update: the new kind and its version together', async () => {
    const fs = make()
    await fs.writeFile('/one.txt', NOTE)
    const h = await fs.pool.acquire(fs.index.lookup('/one.txt')!)
    const updates: Uint8Array[] = []
    h.doc.on('update', (u: Uint8Array) => updates.push(u))
    const versions = (await fs.history('/one.txt')).length
    await fs.mv('/one.txt', '/one.md')
    expect(updates).toHaveLength(1)
    expect((await fs.history('/one.md')).length).toBe(versions + 1)
    // A peer applying that one update holds the rich text.
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(h.doc))
    expect(peer.getXmlFragment(RICHTEXT_KEY).length).toBe(2)
    h.release()
  })

  it('heals a file whose active keys are empty while the other kind holds content', async () => {
    const fs = make()
    await fs.writeFile('/crashed.txt', '# Title\n\nbody\n')
    // A peer renamed the row but died before converting the content.
    const id = fs.index.lookup('/crashed.txt')!
    fs.table.update(id, { name: 'crashed.md' })
    fs.index.plaintext.delete(id)
    // The server's search index reads it through the other kind too (without writing).
    expect(docPlaintext(await docOf(fs, '/crashed.md'), 'crashed.md', [markdownCodec])).toBe(
      '# Title\n\nbody\n',
    )
    expect(await fs.readFile('/crashed.md')).toBe('# Title\n\nbody\n')
    expect((await docOf(fs, '/crashed.md')).getXmlFragment(RICHTEXT_KEY).length).toBe(2)
  })

  it("a converting rename empties the old kind's keys: the content moves, it is not copied", async () => {
    const fs = make()
    await fs.writeFile('/a.md', NOTE)
    await fs.mv('/a.md', '/a.txt')
    let doc = await docOf(fs, '/a.txt')
    expect(doc.getText(TEXT_KEY).toString()).toBe(NOTE)
    // Emptied as the codec empties a file: no front matter, one empty paragraph.
    expect(markdownCodec.read(doc)).toBe('')
    expect(doc.getMap(FRONTMATTER_KEY).size).toBe(0)
    expect(doc.getXmlFragment(RICHTEXT_KEY).toString()).toBe('<paragraph></paragraph>')
    await fs.mv('/a.txt', '/b.md')
    doc = await docOf(fs, '/b.md')
    expect(doc.getText(TEXT_KEY).length).toBe(0)
    expect(await fs.readFile('/b.md')).toBe(NOTE)
  })

  for (const [from, to] of [
    ['/k.md', '/k.txt'],
    ['/k.txt', '/k.md'],
  ] as const)
    it(`a file emptied after a converting rename (${from} → ${to}) stays empty, on another replica too`, async () => {
      // It came back with its old content: the reader took the old kind's keys for an
      // interrupted conversion and healed the file from them.
      const a = make()
      const bash = new Bash({ fs: a, cwd: '/' })
      const r = await bash.exec(`echo alpha > ${from}; mv ${from} ${to}; : > ${to}; cat ${to}`)
      expect(r.stdout).toBe('')
      const id = a.index.lookup(to)!
      a.index.plaintext.delete(id) // read the doc, not the cache
      expect(await a.readFile(to)).toBe('')
      const b = make()
      Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
      const hb = await b.pool.acquire(id)
      Y.applyUpdate(hb.doc, Y.encodeStateAsUpdate(await docOf(a, to)))
      hb.release()
      expect(await b.readFile(to)).toBe('')
      expect((await b.stat(to)).size).toBe(0)
    })

  it("a file emptied under its own kind is not healed from another kind's keys (a doc converted by a copy)", async () => {
    // Docs converted before the conversion emptied the old keys hold both kinds.
    const fs = make()
    await fs.writeFile('/old.md', 'old text\n')
    await fs.mv('/old.md', '/old.txt')
    const id = fs.index.lookup('/old.txt')!
    const h = await fs.pool.acquire(id)
    markdownCodec.write(h.doc, 'old text\n')
    h.release()
    await fs.writeFile('/old.txt', '')
    await fs.flushTruncations() // a truncation is held until a command ends (held-truncations.ts)
    fs.index.plaintext.delete(id)
    expect(await fs.readFile('/old.txt')).toBe('')
    // Not healed: the doc's text is the emptied file's, and the old rich text stays where it was.
    const doc = await docOf(fs, '/old.txt')
    expect(doc.getText(TEXT_KEY).length).toBe(0)
    expect(markdownCodec.read(doc)).toBe('old text\n')
    // The server's search index reads stored docs the same way.
    expect(docPlaintext(doc, 'old.txt', [markdownCodec])).toBe('')
  })

  it("a person's edit on another replica updates that replica's row size, which syncs", async () => {
    const a = make()
    const b = make()
    await a.writeFile('/doc.md', 'Hello world.\n')
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    const id = a.index.lookup('/doc.md')!
    const hb = await b.pool.acquire(id)
    Y.applyUpdate(hb.doc, Y.encodeStateAsUpdate(await docOf(a, '/doc.md')))
    const paragraph = hb.doc.getXmlFragment(RICHTEXT_KEY).get(0) as Y.XmlElement
    ;(paragraph.get(0) as Y.XmlText).insert(5, ', dear')
    await Promise.resolve()
    hb.release()
    expect(await b.readFile('/doc.md')).toBe('Hello, dear world.\n')
    expect((await b.stat('/doc.md')).size).toBe(19)
    Y.applyUpdate(a.doc, Y.encodeStateAsUpdate(b.doc))
    expect((await a.stat('/doc.md')).size).toBe(19)
  })

  it('history survives convert-on-switch and reads each version with the codec it had', async () => {
    const fs = make()
    await fs.writeFile('/h.txt', '- plain dash list\n')
    await fs.mv('/h.txt', '/h.md')
    await fs.writeFile('/h.md', '- plain dash list\n- more\n')
    const versions = await fs.history('/h.md')
    expect(versions.map((v) => v.codec)).toEqual(['text', 'markdown', 'markdown'])
    expect(await fs.readVersion('/h.md', versions[0]!.id)).toBe('- plain dash list\n')
    expect(await fs.readVersion('/h.md', versions[1]!.id)).toBe('- plain dash list\n')
    expect(await fs.diff('/h.md', versions[1]!.id)).toContain('+- more')
  })

  it('a peer created without the Markdown codec never reads a rich-text .md as empty and never writes Y.Text into it', async () => {
    const rich = make()
    const plain = createFileSystem() // no codecs: a peer set up without @yfs/markdown
    await rich.writeFile('/plan.md', NOTE)
    await rich.writeFile('/empty.md', '')
    Y.applyUpdate(plain.doc, Y.encodeStateAsUpdate(rich.doc))
    for (const path of ['/plan.md', '/empty.md']) {
      const id = rich.index.lookup(path)!
      const h = await plain.pool.acquire(id)
      Y.applyUpdate(h.doc, Y.encodeStateAsUpdate(await docOf(rich, path)))
      h.release()
    }
    expect((await plain.stat('/plan.md')).size).toBe(NOTE.length)
    const read = await plain.readFile('/plan.md').then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isFsError(read, 'ENOSYS')).toBe(true)
    expect((read as Error).message).toBe(
      "ENOSYS: content is in the 'markdown' format and this filesystem has no 'markdown' codec (createFileSystem({ codecs: [markdownCodec] }) from @yfs/markdown), open '/plan.md'",
    )
    await expect(plain.writeFile('/plan.md', 'overwritten\n')).rejects.toMatchObject({ code: 'ENOSYS' })
    await expect(plain.appendFile('/plan.md', 'more\n')).rejects.toMatchObject({ code: 'ENOSYS' })
    const doc = await docOf(plain, '/plan.md')
    expect(doc.share.has(TEXT_KEY) && doc.getText(TEXT_KEY).length > 0).toBe(false)
    // An empty Markdown file is empty for everyone; a new .md on the plain peer is plain text as before.
    expect(await plain.readFile('/empty.md')).toBe('')
    await plain.writeFile('/new.md', '# new\n')
    expect(await plain.readFile('/new.md')).toBe('# new\n')
    expect(await rich.readFile('/plan.md')).toBe(NOTE)
    // Its history is not empty text either.
    const [version] = await plain.history('/plan.md')
    await expect(plain.readVersion('/plan.md', version!.id)).rejects.toMatchObject({ code: 'ENOSYS' })
  })
})
