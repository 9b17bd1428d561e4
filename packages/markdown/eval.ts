import * as Y from 'yjs'
import { markdownCodec } from './src/index.js'
import { loadCorpus } from './test/corpus.js'

const docs = loadCorpus()
let ok = 0
const t0 = performance.now()
for (const d of docs) {
  const doc = new Y.Doc()
  try {
    markdownCodec.write(doc, d.text)
    const back = markdownCodec.read(doc)
    if (back === d.text) ok++
    else {
      let i = 0
      while (back[i] === d.text[i]) i++
      console.log(
        'DIFF',
        d.name,
        d.text.length,
        JSON.stringify(d.text.slice(Math.max(0, i - 60), i + 60)),
        '=>',
        JSON.stringify(back.slice(Math.max(0, i - 60), i + 60)),
      )
    }
  } catch (e) {
    console.log('ERR', d.name, (e as Error).message)
  }
}
console.log(ok, '/', docs.length, (performance.now() - t0).toFixed(0), 'ms')
