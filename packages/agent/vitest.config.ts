import { defineProject } from 'vitest/config'

// The stdio MCP test spawns the CLI through tsx, which can take 20 s to start on a loaded machine.
export default defineProject({
  test: {
    name: 'agent',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
