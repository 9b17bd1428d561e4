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
  // Files of the site's root the page links (the favicon): fetched by the page before this worker
  // controls it, so they would miss the cache on the first offline start and fail there.
  const rootFiles = [...html.matchAll(/(?:src|href)="(\/[^"/]+\.(?:svg|png|ico|webmanifest))"/g)].map(
    (m) => m[1],
  )
  const list = await fetch('/app-files.json', { cache: 'no-store' })
  const all = list.ok ? await list.json() : []
  const assets = new Set([...linked, ...all.filter((f) => typeof f === 'string' && f.startsWith('/assets/'))])
  // Skip what an earlier version already stored (hashed names never change content).
  const missing = []
  for (const asset of assets) if (!(await cache.match(asset))) missing.push(asset)
  // Root files keep their name across builds: always fetched again.
  missing.push(...rootFiles)
  await cache.addAll(missing)
  // Drop assets of older builds.
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname
    if (path.startsWith('/assets/') && !assets.has(path)) await cache.delete(request)
  }
}

/**
 * Static routes (Chromium's Service Worker Static Routing API; ignored where missing): hashed assets
 * come straight from the cache and navigations race the network against this worker, so a warm start
 * does not wait for the worker to boot. The fetch handler below stays the fallback (offline, misses).
 */
async function addStaticRoutes(event) {
  if (typeof event.addRoutes !== 'function') return
  try {
    await event.addRoutes([
      { condition: { urlPattern: new URLPattern({ pathname: '/assets/*' }) }, source: { cacheName: CACHE } },
      { condition: { requestMode: 'navigate' }, source: 'race-network-and-fetch-handler' },
    ])
  } catch {
    // An older engine that knows addRoutes but not these sources: the fetch handler does it all.
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil(Promise.all([addStaticRoutes(event), cacheShell()]).then(() => self.skipWaiting()))
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    Promise.resolve(self.registration.navigationPreload?.enable())
      .catch(() => undefined)
      .then(() => caches.keys())
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
    // The response goes to the page at once; storing the copy happens after (waitUntil), off the
    // critical path. Navigation preload (enabled on activate) starts the request while this worker boots.
    event.respondWith(
      (async () => {
        try {
          const response = (await event.preloadResponse) ?? (await fetch(request))
          if (response.ok) {
            const copy = response.clone()
            event.waitUntil(caches.open(CACHE).then((cache) => cache.put(SHELL, copy)))
          }
          return response
        } catch {
          return (await caches.match(SHELL)) ?? Response.error()
        }
      })(),
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
