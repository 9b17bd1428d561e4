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
    // A page under the full suite's load (two cores, a server and Chromium per file) can take
    // more than the default 1 s to show a state change (CI once missed 'offline' after
    // `setOffline(true)`); a poll still ends at its first match.
    expect: { poll: { timeout: 10_000 } },
  },
})
