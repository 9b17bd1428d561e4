/**
 * Web app benchmarks (issue 10), in Chromium against a real `yfs serve` on loopback, each beside a
 * reference measured in the same run, interleaved, after a warm-up:
 *
 *   time to interactive, 5,000 files, cold and warm   vs a Node @yfs/client connecting + readdir
 *   JavaScript loaded before the first file is opened  vs the 400 KB budget
 *   opening a 1 MB file in CodeMirror                  vs opening a 1 KB file the same way
 *   keystroke → other browser latency (p95)            vs Node client → Node client on the same server
 *   the Activity panel with 10,000 entries opening     vs the same panel with 10 entries
 *
 * Times are taken inside the pages (performance.now(), MutationObservers), not by Playwright's
 * polling. Writes its section of docs/benchmarks.md (between `<!-- web:start -->` and
 * `<!-- web:end -->`, after core's analysis, which core's own run keeps) and prints it.
 * `YFS_BENCH_RUNS` sets the number of timed runs (default 5).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { type ActivityEntry, attachActivityLog, createFileId, TEXT_KEY } from '@yfs/core'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { personContext } from '../test/app-helpers.js'
import {
  browserUnavailable,
  launchBrowser,
  REPO_ROOT,
  startServer,
  type TestServer,
  type TestWorkspace,
  watchErrors,
} from '../test/harness.js'
import { measureScripts, recordScripts, totalGzip } from '../test/page-scripts.js'

const RUNS = Number(process.env.YFS_BENCH_RUNS ?? 5)
const FILES = 5_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ------------------------------------------------------------------ statistics

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}
const ms = (x: number) => (x >= 100 ? `${Math.round(x)} ms` : `${x.toFixed(1)} ms`)
const spread = (xs: number[]) => `${ms(median(xs))} (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

interface Row {
  measure: string
  web: string
  reference: string
  ratio: string
  goal: string
  met: boolean
}

// ------------------------------------------------------------------ workspaces

/**
 * A named person's context. tsx compiles this file with esbuild's keepNames, which wraps named
 * functions inside `page.evaluate` callbacks in `__name(…)`; the page gets a no-op for it.
 */
async function benchContext(browser: Browser, who: string): Promise<BrowserContext> {
  const context = await personContext(browser, who)
  await context.addInitScript('window.__name = (f) => f')
  return context
}

/** 50 folders × 100 rows (empty files: the tree reads rows only) and a README at the root. */
async function bigWorkspace(server: TestServer): Promise<TestWorkspace> {
  const ws = await server.createWorkspace('bench-5000')
  const node = await ws.connect()
  await node.fs.writeFile('/README.md', '# 5,000 files\n')
  await node.fs.mkdir('/src')
  const now = Date.now()
  for (let f = 0; f < FILES / 100; f++) await node.fs.mkdir(`/src/pkg${String(f).padStart(2, '0')}`)
  node.fs.table.batch(() => {
    for (let f = 0; f < FILES / 100; f++) {
      const parentId = node.fs.index.lookup(`/src/pkg${String(f).padStart(2, '0')}`)!
      for (let i = 0; i < 100; i++) {
        node.fs.table.set({
          id: createFileId(),
          name: `module${String(i).padStart(3, '0')}.ts`,
          parentId,
          type: 'file',
          size: 0,
          createdAt: now,
          updatedAt: now,
          trashedAt: null,
        })
      }
    }
  })
  await node.flush()
  await node.close()
  return ws
}

/** Record, in the page, when the tree row named `name` first appears (ms since navigation). */
async function watchRow(context: BrowserContext, name: string): Promise<void> {
  await context.addInitScript((row) => {
    const w = window as unknown as { __ttiAt?: number }
    const seen = () => document.querySelector(`[role="treeitem"][aria-label="${row}"]`)
    const observer = new MutationObserver(() => {
      if (w.__ttiAt === undefined && seen()) {
        w.__ttiAt = performance.now()
        observer.disconnect()
      }
    })
    observer.observe(document, { childList: true, subtree: true })
  }, name)
}

/** Where a page's start-up time went: navigation timing and the app's `yfs:` User Timing marks (ms since navigation). */
type Phases = Record<string, number>
const phases: { cold: Phases[]; warm: Phases[] } = { cold: [], warm: [] }

async function timeToInteractive(page: Page, url: string): Promise<{ tti: number; phases: Phases }> {
  await page.goto(url)
  const handle = await page.waitForFunction(() => (window as unknown as { __ttiAt?: number }).__ttiAt, null, {
    timeout: 60_000,
    polling: 50,
  })
  const tti = (await handle.jsonValue()) as number
  const marks = await page.evaluate(() => {
    const out: Record<string, number> = {}
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined
    if (nav) {
      out['html received'] = nav.responseEnd
      out['DOM content loaded'] = nav.domContentLoadedEventEnd
    }
    for (const m of performance.getEntriesByType('mark'))
      if (m.name.startsWith('yfs:')) out[m.name] = m.startTime
    return out
  })
  return { tti, phases: { ...marks, 'first tree row': tti } }
}

/** Median of each phase over the runs, in the order they happen. */
function phaseTable(runs: Phases[]): string {
  const names = new Set(runs.flatMap((r) => Object.keys(r)))
  const rows = [...names]
    .map((name) => ({
      name,
      at: median(runs.map((r) => r[name]).filter((x): x is number => x !== undefined)),
    }))
    .sort((a, b) => a.at - b.at)
  return rows.map((r) => `${r.name} ${ms(r.at)}`).join(' → ')
}

// ------------------------------------------------------------------ benchmarks

async function ttiAndBudget(server: TestServer, browser: Browser): Promise<Row[]> {
  const ws = await bigWorkspace(server)
  const cold: number[] = []
  const warm: number[] = []
  const node: number[] = []
  let scripts: Awaited<ReturnType<typeof measureScripts>> = []
  for (let run = 0; run <= RUNS; run++) {
    // Reference: a Node client connects (main doc synced) and lists the root and one folder.
    const t0 = performance.now()
    const conn = await ws.connect()
    await conn.fs.readdir('/')
    await conn.fs.readdir('/src/pkg00')
    const nodeMs = performance.now() - t0
    await conn.close()

    const context = await benchContext(browser, 'Bench')
    await watchRow(context, 'README.md')
    const first = await context.newPage()
    const errors = watchErrors(first)
    const recorded = recordScripts(first)
    const coldRun = await timeToInteractive(first, ws.appUrl())
    const coldMs = coldRun.tti
    // Let the first visit finish storing the workspace in IndexedDB before the warm visit.
    await sleep(1500)
    await first.close()
    const second = await context.newPage()
    const secondErrors = watchErrors(second)
    const warmRun = await timeToInteractive(second, ws.appUrl())
    const warmMs = warmRun.tti
    errors.assertNone()
    secondErrors.assertNone()
    await context.close()
    if (run === 0) {
      scripts = await measureScripts(recorded.paths)
      continue // warm-up
    }
    node.push(nodeMs)
    phases.cold.push(coldRun.phases)
    phases.warm.push(warmRun.phases)
    cold.push(coldMs)
    warm.push(warmMs)
  }
  const gz = totalGzip(scripts)
  const raw = scripts.reduce((n, s) => n + s.bytes, 0)
  return [
    {
      measure: `time to interactive, ${FILES.toLocaleString('en')} files, cold (no IndexedDB)`,
      web: spread(cold),
      reference: `Node client connect + 2 readdir: ${spread(node)}`,
      ratio: `${(median(cold) / median(node)).toFixed(2)}×`,
      goal: '≤ 1.5 s',
      met: median(cold) <= 1500,
    },
    {
      measure: `time to interactive, ${FILES.toLocaleString('en')} files, warm (IndexedDB, cached app)`,
      web: spread(warm),
      reference: `Node client: ${ms(median(node))}`,
      ratio: `${(median(warm) / median(node)).toFixed(2)}×`,
      goal: '≤ 0.5 s',
      met: median(warm) <= 500,
    },
    {
      measure: 'JavaScript before the first file is opened',
      web: `${kb(gz)} gzipped (${kb(raw)} raw, ${scripts.length} files)`,
      reference: 'budget 400 KB',
      ratio: `${(gz / (400 * 1024)).toFixed(2)}×`,
      goal: '≤ 400 KB gz',
      met: gz <= 400 * 1024,
    },
  ]
}

/** Click the tree row `name` inside the page and return ms until `marker` shows in the editor. */
async function openTimed(page: Page, name: string, marker: string): Promise<number> {
  const t0 = await page.evaluate((row) => {
    const el = document.querySelector<HTMLElement>(`[role="treeitem"][aria-label="${row}"]`)
    if (!el) throw new Error(`no row ${row}`)
    const start = performance.now()
    el.click()
    return start
  }, name)
  const handle = await page.waitForFunction(
    (m) => {
      const content = document.querySelector('.cm-content')
      return content?.textContent?.includes(m) ? performance.now() : false
    },
    marker,
    { timeout: 60_000, polling: 'raf' },
  )
  return ((await handle.jsonValue()) as number) - t0
}

async function openLargeFile(server: TestServer, browser: Browser): Promise<Row> {
  const ws = await server.createWorkspace('bench-open')
  const node = await ws.connect()
  const line = 'const value = "0123456789abcdef0123456789abcdef0123456789abcdef"; // padding\n'
  const lines = Math.ceil((1024 * 1024) / line.length)
  for (let i = 0; i <= RUNS; i++) {
    await node.fs.writeFile(`/big-${i}.ts`, `// big file ${i}\n${line.repeat(lines)}`)
    await node.fs.writeFile(`/small-${i}.ts`, `// small file ${i}\n${line.repeat(12)}`)
  }
  await node.flush()
  await node.close()
  const context = await benchContext(browser, 'Bench')
  const page = await context.newPage()
  const errors = watchErrors(page)
  await page.goto(ws.appUrl())
  await page.locator(`[role="treeitem"][aria-label="big-${RUNS}.ts"]`).waitFor()
  const big: number[] = []
  const small: number[] = []
  for (let i = 0; i <= RUNS; i++) {
    // Interleaved, each file opened for the first time (its content doc is fetched from the server).
    const s = await openTimed(page, `small-${i}.ts`, `// small file ${i}`)
    const b = await openTimed(page, `big-${i}.ts`, `// big file ${i}`)
    if (i === 0) continue // warm-up
    small.push(s)
    big.push(b)
  }
  errors.assertNone()
  await context.close()
  return {
    measure: 'open a 1 MB text file in CodeMirror (click → first lines shown)',
    web: spread(big),
    reference: `1 KB file: ${spread(small)}`,
    ratio: `${(median(big) / median(small)).toFixed(1)}×`,
    goal: '≤ 500 ms',
    met: median(big) <= 500,
  }
}

/** A workspace whose activity log holds `count` entries (appended directly, as a replica's). */
async function activityWorkspace(server: TestServer, count: number): Promise<TestWorkspace> {
  const ws = await server.createWorkspace(`bench-activity-${count}`)
  const node = await ws.connect()
  const start = Date.now() - count * 1000
  const entries: ActivityEntry[] = Array.from({ length: count }, (_, i) => ({
    id: `e${String(i).padStart(11, '0')}`,
    time: start + i * 1000,
    session: `s${i % 7}`,
    who: i % 2 ? 'agent-a' : 'agent-b',
    tool: 'write_file',
    args: {},
    status: 'ok',
    durationMs: 1,
    files: [{ id: 'x', type: 'file', path: `/f${i % 50}.txt` }],
  }))
  attachActivityLog(node.fs.doc).append(entries)
  await node.flush()
  await node.close()
  return ws
}

/** Click on the Activity button → its first entry in the DOM, in the page's own clock. */
async function openActivityTimed(page: Page): Promise<number> {
  const t0 = await page.evaluate(() => {
    const button = Array.from(document.querySelectorAll<HTMLButtonElement>('button')).find(
      (b) => b.textContent?.trim() === 'Activity',
    )
    if (!button) throw new Error('no Activity button')
    const start = performance.now()
    button.click()
    return start
  })
  const handle = await page.waitForFunction(
    () => (document.querySelector('[aria-label="Activity entries"] li') ? performance.now() : false),
    undefined,
    { timeout: 60_000, polling: 'raf' },
  )
  return ((await handle.jsonValue()) as number) - t0
}

async function activityPanel(server: TestServer, browser: Browser): Promise<Row> {
  const big = await activityWorkspace(server, 10_000)
  const small = await activityWorkspace(server, 10)
  const context = await benchContext(browser, 'Bench')
  const workspaces = { big, small }
  const times: Record<'big' | 'small', number[]> = { big: [], small: [] }
  // Each run a fresh page: the panel's first open (its module loaded, the log read and listed).
  for (let i = 0; i <= RUNS; i++)
    for (const which of ['small', 'big'] as const) {
      const page = await context.newPage()
      const errors = watchErrors(page)
      await page.goto(workspaces[which].appUrl())
      await page.getByRole('button', { name: 'Activity', exact: true }).waitFor()
      const t = await openActivityTimed(page)
      errors.assertNone()
      await page.close()
      if (i > 0) times[which].push(t)
    }
  await context.close()
  return {
    measure: 'open the Activity panel with 10,000 entries (click → first entry shown)',
    web: spread(times.big),
    reference: `10 entries: ${spread(times.small)}`,
    ratio: `${(median(times.big) / median(times.small)).toFixed(1)}×`,
    goal: '≤ 300 ms',
    met: median(times.big) <= 300,
  }
}

/** Record in the page when the editor's text reaches each length (epoch ms, comparable across pages). */
async function recordLengths(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __lengths: Record<number, number> }
    w.__lengths = {}
    const content = document.querySelector('.cm-content')!
    const note = () => {
      // The document's length as shown: the lines' text outside widgets (remote cursors are
      // contenteditable=false widgets with a name label and word joiners).
      let length = 0
      for (const line of Array.from(content.querySelectorAll('.cm-line'))) {
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT)
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (!node.parentElement?.closest('[contenteditable="false"]'))
            length += node.textContent?.length ?? 0
        }
        length += 1
      }
      w.__lengths[length] ??= performance.timeOrigin + performance.now()
    }
    new MutationObserver(note).observe(content, { childList: true, subtree: true, characterData: true })
    note()
  })
}

const lengths = (page: Page) =>
  page.evaluate(() => (window as unknown as { __lengths: Record<number, number> }).__lengths)

async function keystrokeLatency(server: TestServer, browser: Browser): Promise<Row> {
  const ws = await server.createWorkspace('bench-keys')
  const seed = await ws.connect()
  await seed.fs.writeFile('/typing.ts', 'export const typed = ""\n')
  await seed.fs.writeFile('/typing-node.ts', 'export const typed = ""\n')
  await seed.flush()
  await seed.close()

  const open = async (who: string) => {
    const context = await benchContext(browser, who)
    const page = await context.newPage()
    const errors = watchErrors(page)
    await page.goto(ws.appUrl())
    await page.locator('[role="treeitem"][aria-label="typing.ts"]').click()
    await page.locator('.cm-content').waitFor()
    await page.getByText('export const typed').waitFor()
    return { context, page, errors }
  }
  const a = await open('Ana')
  const b = await open('Ben')
  await a.page.locator('.cm-line').first().click()
  await a.page.keyboard.press('End')
  await recordLengths(a.page)
  await recordLengths(b.page)

  // The reference: two Node clients on the same server, one inserting into the file's Y.Text.
  const nodeA = await ws.connect()
  const nodeB = await ws.connect()
  const id = nodeA.fs.index.lookup('/typing-node.ts')!
  const handleA = await nodeA.fs.pool.acquire(id)
  const handleB = await nodeB.fs.pool.acquire(id)
  const textA = handleA.doc.getText(TEXT_KEY)
  const textB = handleB.doc.getText(TEXT_KEY)

  const browserLatency: number[] = []
  const nodeLatency: number[] = []
  const perBlock = 25
  const blocks = Math.max(2, RUNS + 1)
  const startLength = Math.min(...Object.keys(await lengths(a.page)).map(Number))
  let typed = 0
  for (let block = 0; block < blocks; block++) {
    for (let k = 0; k < perBlock; k++) {
      await a.page.keyboard.type(String.fromCharCode(97 + (typed % 26)))
      typed++
      await sleep(40) // about 25 keys a second: a fast typist
    }
    for (let k = 0; k < perBlock; k++) {
      const arrived = new Promise<number>((resolve) => {
        const observer = () => {
          textB.unobserve(observer)
          resolve(performance.now())
        }
        textB.observe(observer)
      })
      const t0 = performance.now()
      textA.insert(textA.length - 2, 'x')
      const latency = (await arrived) - t0
      if (block > 0) nodeLatency.push(latency)
      await sleep(40)
    }
  }
  await sleep(500)
  const sent = await lengths(a.page)
  const received = await lengths(b.page)
  // Keystroke n makes the text `startLength + n` long; skip the first block (warm-up).
  for (let n = perBlock + 1; n <= typed; n++) {
    const at = sent[startLength + n]
    const got = received[startLength + n]
    if (at !== undefined && got !== undefined) browserLatency.push(got - at)
  }
  handleA.release()
  handleB.release()
  await nodeA.close()
  await nodeB.close()
  a.errors.assertNone()
  b.errors.assertNone()
  await a.context.close()
  await b.context.close()
  if (browserLatency.length < typed / 2) {
    throw new Error(`only ${browserLatency.length} of ${typed} keystrokes were seen in the other browser`)
  }
  const p95 = percentile(browserLatency, 95)
  return {
    measure: `keystroke → other browser, loopback (${browserLatency.length} keys at 25/s)`,
    web: `p95 ${ms(p95)} (p50 ${ms(median(browserLatency))}, max ${ms(Math.max(...browserLatency))})`,
    reference: `Node → Node p95 ${ms(percentile(nodeLatency, 95))} (p50 ${ms(median(nodeLatency))})`,
    ratio: `${(p95 / percentile(nodeLatency, 95)).toFixed(1)}×`,
    goal: 'p95 ≤ 100 ms',
    met: p95 <= 100,
  }
}

// ------------------------------------------------------------------ report

function section(rows: Row[] | undefined, skipped?: string): string {
  const head = [
    '<!-- web:start -->',
    '## Web app (`apps/web/bench/run.ts`: Chromium against a real `yfs serve` on loopback)',
    '',
    `Run: ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ` +
      `Chromium headless, load average ${loadavg()[0]!.toFixed(1)} at the end; medians of ${RUNS} runs after a ` +
      'warm-up, (min–max); each reference is measured interleaved in the same run.',
    '',
  ]
  if (!rows) return [...head, `Skipped: ${skipped}.`, '<!-- web:end -->'].join('\n')
  const table = [
    '| measure | web app | reference | ratio | goal | met |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.measure} | ${r.web} | ${r.reference} | ${r.ratio} | ${r.goal} | ${r.met ? 'yes' : '**no**'} |`,
    ),
  ]
  const breakdown =
    phases.cold.length > 0
      ? [
          '',
          'Where start-up time goes (medians, ms since navigation; `yfs:` marks are User Timing marks the app sets):',
          '',
          `- cold: ${phaseTable(phases.cold)}`,
          `- warm: ${phaseTable(phases.warm)}`,
        ]
      : []
  const notes = [
    ...breakdown,
    '',
    'Reading: time to interactive runs from navigation to the first tree row in the DOM (a',
    'MutationObserver in the page), in a fresh browser context for "cold" and a second page of the same',
    'context for "warm" (app files from the service worker, workspace in IndexedDB). The reference is',
    'what any client pays to sync that main doc (a Node @yfs/client connecting and listing two folders),',
    'so the ratio is what the browser adds: page start-up, script evaluation, IndexedDB, rendering.',
    'A warm start opens the stored copy as soon as the server accepts the token and syncs behind it',
    '(`waitForSync: false`), so it does not wait for the main doc to come from the server; a cold start',
    'does, and stores it. What is left of a warm start is the page and its scripts, reading the main doc',
    'from IndexedDB and decoding it (Yjs), and building the index. The 1 MB open is timed from a click',
    "in the page to the file's first line in CodeMirror, including fetching its content doc; keystroke",
    "latency from the typing page's own echo to the other page's DOM (both in epoch time), at 25 keys/s,",
    'against one Node client inserting into the same kind of Y.Text and another observing it.',
    ...(loadavg()[0]! > 1.5
      ? [
          'Goals are absolute, but this machine was busy during the run (see the load average above), so',
          'absolute times are above what a quiet machine gives: read the ratios.',
        ]
      : []),
  ]
  return [...head, ...table, ...notes, '<!-- web:end -->'].join('\n')
}

function writeSection(text: string): void {
  const file = join(REPO_ROOT, 'docs/benchmarks.md')
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n'
  const start = existing.indexOf('<!-- web:start -->')
  const end = existing.indexOf('<!-- web:end -->')
  const next =
    start !== -1 && end !== -1
      ? `${existing.slice(0, start)}${text}${existing.slice(end + '<!-- web:end -->'.length)}`
      : `${existing.trimEnd()}\n\n${text}\n`
  writeFileSync(file, next)
}

async function main(): Promise<void> {
  const build = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/build-web.mjs')], { stdio: 'inherit' })
  if (build.status !== 0) throw new Error('building the web app failed')
  const reason = browserUnavailable()
  if (reason) {
    process.stdout.write(`web bench skipped: ${reason}\n`)
    return
  }
  const server = await startServer()
  const browser = await launchBrowser()
  try {
    const only = process.argv[2]
    const rows: Row[] = []
    if (!only || only === 'tti') rows.push(...(await ttiAndBudget(server, browser)))
    if (!only || only === 'open') rows.push(await openLargeFile(server, browser))
    if (!only || only === 'keys') rows.push(await keystrokeLatency(server, browser))
    if (!only || only === 'activity') rows.push(await activityPanel(server, browser))
    const text = section(rows)
    process.stdout.write(`${text}\n`)
    if (!only) writeSection(text)
  } finally {
    await browser.close()
    await server.stop()
  }
}

await main()
