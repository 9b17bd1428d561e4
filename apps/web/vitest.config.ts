import { defineProject } from 'vitest/config'

// Browser tests: a real `yfs serve` child and Chromium per file, so files run one after another
// (the machine has 2 cores) with long timeouts.
export default defineProject({
  test: {
    name: 'web',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
})
