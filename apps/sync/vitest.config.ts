import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'sync',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
