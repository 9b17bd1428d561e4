import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Memory bounds in the hostile-client tests measure the live heap after a collection.
    execArgv: ['--expose-gc'],
  },
})
