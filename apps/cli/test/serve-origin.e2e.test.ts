/**
 * `yfs serve --public-url --allow-origin`: the flags reach the server's `/mcp`
 * guard (a foreign Origin gets 403, the public URL and an allowed origin work;
 * the guard itself: apps/server/test/mcp-origin.e2e.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { agentWorks, rawMcp } from '@yfs/server/testing'
import { describe, expect, it } from 'vitest'
import { adminSetup, spawnServer } from './spawn-server.js'

describe('yfs serve --public-url --allow-origin', () => {
  it('the flags reach /mcp', async () => {
    const admin = 'admin-token-for-origin-test'
    const data = mkdtempSync(join(tmpdir(), 'yfs-origin-'))
    const server = await spawnServer([
      '--data',
      data,
      '--admin-token',
      admin,
      '--public-url',
      'https://yfs.example.com',
      '--allow-origin',
      'http://app.example',
      '--allow-origin',
      'http://other.example',
    ])
    try {
      const token = await adminSetup(server.http, admin, 'team')
      const auth = { authorization: `Bearer ${token}` }
      const evil = await rawMcp(server.port, 'POST', {
        host: `127.0.0.1:${server.port}`,
        origin: 'http://evil.example',
        ...auth,
      })
      expect(evil.status).toBe(403)
      const pub = await rawMcp(server.port, 'POST', { host: 'yfs.example.com', ...auth })
      expect(pub.status).toBe(200)
      await agentWorks(server.port, token, 'http://other.example')
    } finally {
      await server.stop('SIGTERM')
      rmSync(data, { recursive: true, force: true })
    }
  })
})
