import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'cli',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
})
