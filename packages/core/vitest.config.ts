import { defineProject } from 'vitest/config'

// Property tests run hundreds of cases: on a busy 2-core machine 5 s (the default) is too tight.
export default defineProject({
  test: { name: 'core', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 30_000 },
})
