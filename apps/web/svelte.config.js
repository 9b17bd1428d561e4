// Svelte compiler options shared by Vite and svelte-check.
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte'

export default { preprocess: vitePreprocess() }
