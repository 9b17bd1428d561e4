// Vite build of the web app. `yfs serve` serves `dist/` on the same port as sync (no dev server needed).
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vite'

export default defineConfig({
  plugins: [svelte()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022' },
})
