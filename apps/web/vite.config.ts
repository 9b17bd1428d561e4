// Vite build of the web app. `yfs serve` serves `dist/` on the same port as sync (no dev server needed).
//
// The page bundles @yfs/client, @yfs/core and @yfs/markdown, which are written for Node and browsers
// alike; the two Node-only imports they keep behind feature tests are aliased to small browser
// shims (src/shims/), so nothing is "externalized for browser compatibility" and no Node built-in
// reaches the page (test/budget.test.ts checks that and the size budget).
import { fileURLToPath } from 'node:url'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig, type Plugin } from 'vite'

const shim = (name: string) => fileURLToPath(new URL(`./src/shims/${name}.ts`, import.meta.url))

/**
 * Emits `app-files.json`: every hashed asset of the build, lazy chunks included, so the service worker
 * (public/sw.js) can keep all of the app for offline use and not only what index.html links.
 */
function appFileList(): Plugin {
  return {
    name: 'yfs-app-file-list',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = Object.keys(bundle)
        .filter((name) => name.startsWith('assets/'))
        .map((name) => `/${name}`)
        .sort()
      this.emitFile({ type: 'asset', fileName: 'app-files.json', source: `${JSON.stringify(files)}\n` })
    },
  }
}

export default defineConfig({
  plugins: [svelte(), appFileList()],
  resolve: {
    alias: [
      { find: /^node:async_hooks$/, replacement: shim('async-hooks') },
      { find: /^ws$/, replacement: shim('ws') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // The budget is checked by test/budget.test.ts (JS before the first file opens ≤ 400 KB gzipped).
    chunkSizeWarningLimit: 1024,
  },
})
