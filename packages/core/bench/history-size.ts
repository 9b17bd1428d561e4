// Bytes per version: a 10 KB file edited 1,000 times through fs.writeFile (one version
// per write), stored as the full content-doc state and after compactContentState.
// Run: pnpm --filter @yfs/core exec tsx bench/history-size.ts [edits]
import { compactContentState, createFileSystem } from '../src/index.js'

const edits = Number(process.argv[2] ?? 1000)
const fs = createFileSystem()
const words = Array.from({ length: 1700 }, (_, i) => `w${i}`)
let text = words.join(' ').slice(0, 10_240)
await fs.writeFile('/doc.txt', text)
const t0 = performance.now()
for (let i = 0; i < edits; i++) {
  // A realistic edit: replace a short word somewhere, sometimes insert a sentence, sometimes delete one.
  const at = (i * 7919) % (text.length - 40)
  if (i % 3 === 0) text = `${text.slice(0, at)}edit${i} ${text.slice(at)}`
  else if (i % 3 === 1) text = `${text.slice(0, at)}${text.slice(at + 6)}`
  else text = `${text.slice(0, at)}REPL${text.slice(at + 4)}`
  await fs.writeFile('/doc.txt', text)
  if (i % 100 === 99) process.stderr.write(`\r${i + 1}/${edits} edits`)
}
process.stderr.write('\n')
const ms = performance.now() - t0
const id = fs.index.lookup('/doc.txt')!
const versions = (await fs.history('/doc.txt')).length
const full = fs.pool.encodeState(id)!
const compacted = compactContentState(full)
const content = new TextEncoder().encode(await fs.readFile('/doc.txt')).byteLength
const row = (label: string, bytes: number) =>
  `| ${label} | ${bytes.toLocaleString('en')} | ${(bytes / versions).toFixed(1)} | ${(bytes / content).toFixed(2)}× |`
console.log(
  `| state (${edits} edits, ${versions} versions, ${content} B of text) | bytes | bytes/version | × content |`,
)
console.log('|---|---|---|---|')
console.log(row('full content doc (gc: false)', full.byteLength))
console.log(row('after compactContentState', compacted.byteLength))
console.log(`\n${edits} writes in ${ms.toFixed(0)} ms (${(ms / edits).toFixed(2)} ms/write incl. version)`)

// Scenario B: a person typing in an editor (keystrokes straight on the Y.Text, a typo fixed
// every few keys); a version at most every 50 keystrokes (historyIntervalMs on a fake clock).
{
  let t = 0
  const fsB = createFileSystem({ clock: () => t, historyIntervalMs: 50 })
  await fsB.writeFile('/typed.txt', 'x'.repeat(10_240))
  const h = await fsB.pool.acquire(fsB.index.lookup('/typed.txt')!)
  const ytext = h.doc.getText('text')
  for (let i = 0; i < edits; i++) {
    t++
    const at = 5000 + (i % 400)
    ytext.insert(at, 'typo')
    ytext.delete(at, 4) // fixed before anyone versioned it
    ytext.insert(at, String.fromCharCode(97 + (i % 26)))
    await Promise.resolve()
  }
  h.release()
  const versionsB = (await fsB.history('/typed.txt')).length
  const fullB = fsB.pool.encodeState(fsB.index.lookup('/typed.txt')!)!
  const compactB = compactContentState(fullB)
  console.log(`\n| typing: ${edits} keystroke edits, ${versionsB} versions | bytes | bytes/version |`)
  console.log('|---|---|---|')
  console.log(
    `| full content doc (gc: false) | ${fullB.byteLength.toLocaleString('en')} | ${(fullB.byteLength / versionsB).toFixed(1)} |`,
  )
  console.log(
    `| after compactContentState | ${compactB.byteLength.toLocaleString('en')} | ${(compactB.byteLength / versionsB).toFixed(1)} |`,
  )
}
