/**
 * The web app on the sync port: files, SPA fallback, cache headers, the
 * Content-Security-Policy on every app response, and hostile paths that must
 * never read outside the app folder (raw requests, since fetch normalises
 * `..` away). A real server on port 0 serves a temp folder next to a secret.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../test/helpers.js'
import { contentSecurityPolicy, toAppPath } from './web-app.js'

const SECRET = 'top-secret-do-not-serve'
const INDEX = '<!doctype html><title>yfs</title><div id="app"></div>'

/** A raw GET (or `method`) with the path sent exactly as given. */
function raw(port: number, path: string, method = 'GET') {
  return new Promise<{
    status: number
    headers: Record<string, string | string[] | undefined>
    body: string
  }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('web app serving', () => {
  let root: string
  let t: TestServer
  let unbuilt: TestServer

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'yfs-webapp-'))
    const dist = join(root, 'dist')
    mkdirSync(join(dist, 'assets'), { recursive: true })
    writeFileSync(join(dist, 'index.html'), INDEX)
    writeFileSync(join(dist, 'assets', 'index-AbC123.js'), 'console.log(1)')
    writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    writeFileSync(join(dist, '.env'), SECRET)
    writeFileSync(join(root, 'secret.txt'), SECRET)
    symlinkSync(root, join(dist, 'escape'))
    symlinkSync(join(root, 'secret.txt'), join(dist, 'assets', 'leak.js'))
    t = await startTestServer({ appDir: dist })
    unbuilt = await startTestServer({ appDir: join(root, 'not-built') })
  })
  afterAll(async () => {
    await t?.close()
    await unbuilt?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('serves index.html at / with the CSP and revalidation', async () => {
    const res = await raw(t.port, '/')
    expect(res.status).toBe(200)
    expect(res.body).toBe(INDEX)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['cache-control']).toBe('no-cache')
    const csp = String(res.headers['content-security-policy'])
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "object-src 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "img-src 'self' blob: data:",
      `connect-src 'self' ws://127.0.0.1:${t.port} wss://127.0.0.1:${t.port}`,
    ]) {
      expect(csp.split('; ')).toContain(directive)
    }
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/)
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['referrer-policy']).toBe('no-referrer')
  })

  it('serves hashed assets as immutable and other files as no-cache, with types', async () => {
    const js = await raw(t.port, '/assets/index-AbC123.js')
    expect(js.status).toBe(200)
    expect(js.body).toBe('console.log(1)')
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(js.headers['content-security-policy']).toBeDefined()
    const svg = await raw(t.port, '/favicon.svg?v=1')
    expect(svg.headers['content-type']).toBe('image/svg+xml')
    expect(svg.headers['cache-control']).toBe('no-cache')
  })

  it('falls back to index.html for app routes, never for missing files or assets', async () => {
    for (const path of ['/w/demo', '/some/deep/route?x=1', '/index']) {
      const res = await raw(t.port, path)
      expect([path, res.status, res.body]).toEqual([path, 200, INDEX])
      expect(res.headers['content-security-policy']).toBeDefined()
    }
    for (const path of ['/missing.js', '/assets/index-gone.js', '/assets/gone', '/a/b.css']) {
      const res = await raw(t.port, path)
      expect([path, res.status]).toEqual([path, 404])
      expect(res.headers['content-security-policy']).toBeDefined()
    }
  })

  it('answers HEAD without a body and leaves other methods and the server routes alone', async () => {
    const head = await raw(t.port, '/', 'HEAD')
    expect(head.status).toBe(200)
    expect(head.body).toBe('')
    expect(Number(head.headers['content-length'])).toBe(INDEX.length)
    expect((await raw(t.port, '/', 'POST')).status).toBe(404)
    expect(JSON.parse((await raw(t.port, '/healthz')).body).status).toBe('ok')
    expect((await raw(t.port, '/api/workspaces')).status).toBe(401)
  })

  it('never serves anything outside the app folder, dot-files or malformed paths', async () => {
    const hostile = [
      '/../secret.txt',
      '/../../../../etc/passwd',
      '/%2e%2e/secret.txt',
      '/%2E%2E/secret.txt',
      '/%2e%2e%2fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/..%5csecret.txt',
      '/%5c..%5csecret.txt',
      '/escape/secret.txt',
      '/assets/leak.js',
      '/.env',
      '/%2eenv',
      '/assets/.%2e/.env',
      '/index.html%00.js',
      '/%E0%A4%A',
      '//etc/passwd',
      `/${encodeURIComponent(join(root, 'secret.txt'))}`,
    ]
    for (const path of hostile) {
      const res = await raw(t.port, path)
      expect(res.body).not.toContain(SECRET)
      expect(res.body).not.toContain('root:')
      expect([path, res.status === 404 || (res.status === 200 && res.body === INDEX)]).toEqual([path, true])
    }
  })

  it('random mixes of dots, slashes and escapes never leave the folder (property)', async () => {
    const part = fc.constantFrom(
      '..',
      '.',
      '%2e',
      '%2E',
      '%2f',
      '%5c',
      '/',
      'assets',
      'secret.txt',
      'escape',
      '%00',
      'a',
    )
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 8 }), async (parts) => {
        const res = await raw(t.port, `/${parts.join('')}`)
        expect(res.body).not.toContain(SECRET)
        expect([200, 404]).toContain(res.status)
        expect(res.headers['content-security-policy']).toBeDefined()
      }),
      { seed: 10, numRuns: 300 },
    )
  })

  it('says how to build the app when the folder is missing; serves no app without a folder', async () => {
    const res = await raw(unbuilt.port, '/')
    expect(res.status).toBe(503)
    expect(res.body).toContain('pnpm --filter @yfs/web build')
    expect(res.headers['content-security-policy']).toBeDefined()
    const bare = await startTestServer()
    expect((await raw(bare.port, '/')).status).toBe(404)
    expect((await raw(bare.port, '/')).headers['content-security-policy']).toBeUndefined()
    await bare.close()
  })

  it('maps request paths conservatively', () => {
    expect(toAppPath('/')).toBe('')
    expect(toAppPath('/assets/x.js')).toBe('assets/x.js')
    expect(toAppPath('//a//b')).toBe('a/b')
    expect(toAppPath('/a/%2e%2e/b')).toBeUndefined()
    expect(toAppPath('/%ZZ')).toBeUndefined()
    expect(toAppPath('/a\\b')).toBeUndefined()
    expect(contentSecurityPolicy('evil; script-src *')).not.toContain('evil')
  })
})
