// Service worker: keeps the app itself (index.html and its hashed assets) on this device, so the app
// opens when the server is down and then shows the workspace from IndexedDB (y-indexeddb).
// Only the app's own files are cached: never /api, /mcp, /yws or anything of another origin, and
// never workspace content (that lives in IndexedDB). Navigations go to the network first (a new
// build is picked up at once) and fall back to the cached index.html; hashed assets are immutable,
// so they are served from the cache first.
const CACHE = 'yfs-app-v1'
const SHELL = '/'

/** Fetch index.html and every asset of the build (app-files.json, lazy chunks included), and store them. */
async function cacheShell() {
  const cache = await caches.open(CACHE)
  const response = await fetch(SHELL, { cache: 'no-store' })
  if (!response.ok) return
  const html = await response.clone().text()
  await cache.put(SHELL, response)
  const linked = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1])
  const list = await fetch('/app-files.json', { cache: 'no-store' })
  const all = list.ok ? await list.json() : []
  const assets = new Set([...linked, ...all.filter((f) => typeof f === 'string' && f.startsWith('/assets/'))])
  // Skip what an earlier version already stored (hashed names never change content).
  const missing = []
  for (const asset of assets) if (!(await cache.match(asset))) missing.push(asset)
  await cache.addAll(missing)
  // Drop assets of older builds.
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname
    if (path.startsWith('/assets/') && !assets.has(path)) await cache.delete(request)
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil(cacheShell().then(() => self.skipWaiting()))
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  )
})

const isAppFile = (url) =>
  url.origin === self.location.origin && !/^\/(?:api|mcp|yws)(?:\/|$)/.test(url.pathname)

self.addEventListener('fetch', (event) => {
  const request = event.request
  const url = new URL(request.url)
  if (request.method !== 'GET' || !isAppFile(url)) return
  if (request.mode === 'navigate') {
    event.respondWith(
      fetch(request)
        .then(async (response) => {
          if (response.ok) await (await caches.open(CACHE)).put(SHELL, response.clone())
          return response
        })
        .catch(async () => (await caches.match(SHELL)) ?? Response.error()),
    )
    return
  }
  if (url.pathname.startsWith('/assets/')) {
    event.respondWith(
      caches.match(request).then(
        (hit) =>
          hit ??
          fetch(request).then(async (response) => {
            if (response.ok) await (await caches.open(CACHE)).put(request, response.clone())
            return response
          }),
      ),
    )
    return
  }
  event.respondWith(
    fetch(request)
      .then(async (response) => {
        if (response.ok) await (await caches.open(CACHE)).put(request, response.clone())
        return response
      })
      .catch(async () => (await caches.match(request)) ?? Response.error()),
  )
})
