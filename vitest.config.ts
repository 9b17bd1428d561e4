import { defineConfig } from 'vitest/config'

// One Vitest run over every package and app: each folder with a vitest.config.ts is a project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'test/*'],
  },
})
