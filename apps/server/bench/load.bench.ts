/**
 * Load benchmark: `clients` Hocuspocus clients (one socket each) edit `docs`
 * content docs for `durationSec`. Each edit writes a unique key
 * (`client:seq` → send time) into a Y.Map; every other client of that doc
 * records the latency when the key arrives. At the end all clients must hold
 * every key (lost = missing keys), and so must a fresh client loading the
 * doc from the server after everyone left (stored = durable).
 *
 * Clients run in this process; the server should run in another one (a
 * child process), so the two share the two cores like real deployments
 * would not: latency includes this process's event-loop lag.
 */
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import { connectWorkspace } from '@yfs/client'
import { asFileId } from '@yfs/core'
import { WebSocket } from 'ws'
import * as Y from 'yjs'

export interface LoadOptions {
  url: string
  workspace: string
  token: string
  clients: number
  docs: number
  durationSec: number
  /** Edits per second per client. */
  rate: number
}

export interface LoadResult {
  edits: number
  lost: number
  lostAfterReload: number
  latenciesMs: number[]
}

function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const deadline = Date.now() + timeoutMs
    const tick = () => {
      if (check()) return resolve(true)
      if (Date.now() > deadline) return resolve(false)
      setTimeout(tick, 20)
    }
    tick()
  })
}

export async function benchLoad(o: LoadOptions): Promise<LoadResult> {
  // Create the files (rows) the content docs belong to.
  const setup = await connectWorkspace({ url: o.url, workspace: o.workspace, token: o.token })
  const ids: string[] = []
  for (let d = 0; d < o.docs; d++) {
    await setup.fs.writeFile(`/load-${d}.txt`, '')
    ids.push(setup.fs.index.lookup(`/load-${d}.txt`)!)
  }
  await setup.flush(30_000)
  await setup.close()

  const latencies: number[] = []
  const sockets: HocuspocusProviderWebsocket[] = []
  const providers: HocuspocusProvider[] = []
  for (let i = 0; i < o.clients; i++) {
    const socket = new HocuspocusProviderWebsocket({ url: o.url, WebSocketPolyfill: WebSocket })
    const doc = new Y.Doc({ gc: false })
    const provider = new HocuspocusProvider({
      websocketProvider: socket,
      name: `${o.workspace}/${ids[i % o.docs]}`,
      document: doc,
      token: o.token,
      awareness: null,
    })
    provider.attach()
    doc.getMap<number>('m').observe((event, tr) => {
      if (tr.local) return
      const now = performance.now()
      for (const key of event.keysChanged) {
        const sent = event.target.get(key)
        if (typeof sent === 'number') latencies.push(now - sent)
      }
    })
    sockets.push(socket)
    providers.push(provider)
  }
  if (!(await waitUntil(() => providers.every((p) => p.isSynced), 60_000)))
    throw new Error('clients did not sync')

  const written = new Map<number, number>() // doc index → keys written
  let edits = 0
  const intervalMs = 1000 / o.rate
  const timers = providers.map((p, i) => {
    let seq = 0
    // Spread the clients over the interval so edits don't arrive in bursts.
    return setTimeout(
      () => {
        const tick = () => {
          p.document.getMap<number>('m').set(`${i}:${seq++}`, performance.now())
          edits++
          written.set(i % o.docs, (written.get(i % o.docs) ?? 0) + 1)
        }
        tick()
        timers[i] = setInterval(tick, intervalMs)
      },
      (i / o.clients) * intervalMs,
    )
  })
  await new Promise((r) => setTimeout(r, o.durationSec * 1000))
  for (const t of timers) clearInterval(t)
  for (const t of timers) clearTimeout(t)

  // Quiesce: every client of a doc holds every key written to it.
  const expectedFor = (i: number) => written.get(i % o.docs) ?? 0
  await waitUntil(
    () =>
      providers.every((p, i) => p.document.getMap('m').size === expectedFor(i) && p.unsyncedChanges === 0),
    60_000,
  )
  let lost = 0
  providers.forEach((p, i) => {
    lost += Math.max(0, expectedFor(i) - p.document.getMap('m').size)
  })
  for (const p of providers) p.destroy()
  for (const s of sockets) s.destroy()

  // Durability: a fresh client loads each doc from the server after everyone left.
  let lostAfterReload = 0
  const socket = new HocuspocusProviderWebsocket({ url: o.url, WebSocketPolyfill: WebSocket })
  for (let d = 0; d < o.docs; d++) {
    const doc = new Y.Doc({ gc: false })
    const p = new HocuspocusProvider({
      websocketProvider: socket,
      name: `${o.workspace}/${asFileId(ids[d]!)}`,
      document: doc,
      token: o.token,
      awareness: null,
    })
    p.attach()
    await waitUntil(() => p.isSynced, 30_000)
    lostAfterReload += Math.max(0, (written.get(d) ?? 0) - doc.getMap('m').size)
    p.destroy()
  }
  socket.destroy()
  return { edits, lost, lostAfterReload, latenciesMs: latencies }
}
