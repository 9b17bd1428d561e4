import { defineProject } from 'vitest/config'

// Integration tests of the client against a real server live in apps/server/test (packages never import apps).
export default defineProject({
  test: { name: 'client', include: ['src/**/*.test.ts'], passWithNoTests: true },
})
