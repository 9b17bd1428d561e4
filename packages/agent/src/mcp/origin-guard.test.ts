/**
 * The Origin/Host policy of MCP over HTTP, case by case: loopback on the
 * listening port, the public URL, explicitly allowed origins; everything
 * else (another port, a rebound name, `Origin: null`, garbage) refused with
 * the header named.
 */
import { describe, expect, it } from 'vitest'
import { checkOriginAndHost, normalizeOrigin } from './origin-guard.js'

const PORT = 8787
const check = (host: string | undefined, origin?: string, policy = {}) =>
  checkOriginAndHost({ host, ...(origin === undefined ? {} : { origin }) }, PORT, policy)

describe('checkOriginAndHost', () => {
  it('accepts loopback names on the listening port, with or without a loopback Origin', () => {
    for (const host of ['localhost:8787', '127.0.0.1:8787', '[::1]:8787', 'LOCALHOST:8787'])
      expect(check(host), host).toEqual({ ok: true })
    for (const origin of ['http://localhost:8787', 'http://127.0.0.1:8787', 'http://[::1]:8787'])
      expect(check('127.0.0.1:8787', origin), origin).toEqual({ ok: true })
  })

  it('refuses a Host that is not this server: rebound names, other ports, garbage, none', () => {
    for (const host of ['evil.example:8787', 'evil.example', 'localhost:9999', 'localhost', 'a@b:8787', ''])
      expect(check(host), host).toMatchObject({ ok: false, header: 'Host' })
    expect(check(undefined)).toMatchObject({ ok: false, header: 'Host' })
    const v = check('evil.example:8787')
    expect(!v.ok && v.message).toContain('Host "evil.example:8787"')
  })

  it('refuses an Origin that is not loopback on this port, allowed or public', () => {
    for (const origin of [
      'http://evil.example',
      'http://evil.example:8787',
      'http://localhost:3000',
      'null',
      'garbage',
      'file://',
    ])
      expect(check('localhost:8787', origin), origin).toMatchObject({ ok: false, header: 'Origin' })
    const v = check('localhost:8787', 'http://evil.example')
    expect(!v.ok && v.message).toContain('Origin "http://evil.example"')
  })

  it('checks Host before Origin: a rebinding page fails on Host even with a loopback Origin', () => {
    expect(check('evil.example:8787', 'http://localhost:8787')).toMatchObject({ ok: false, header: 'Host' })
  })

  it('allows origins added explicitly, in any spelling of the same origin', () => {
    const policy = { allowedOrigins: ['https://App.Example.com/', 'http://localhost:6274'] }
    expect(check('localhost:8787', 'https://app.example.com', policy)).toEqual({ ok: true })
    expect(check('localhost:8787', 'https://app.example.com:443', policy)).toEqual({ ok: true })
    expect(check('localhost:8787', 'http://localhost:6274', policy)).toEqual({ ok: true })
    expect(check('localhost:8787', 'https://other.example.com', policy)).toMatchObject({ header: 'Origin' })
    // An allowed origin is not an allowed Host.
    expect(check('app.example.com', 'https://app.example.com', policy)).toMatchObject({ header: 'Host' })
  })

  it('allows the public URL as Host and Origin', () => {
    const policy = { publicUrl: 'https://yfs.example.com' }
    expect(check('yfs.example.com', 'https://yfs.example.com', policy)).toEqual({ ok: true })
    expect(check('yfs.example.com:443', undefined, policy)).toEqual({ ok: true })
    expect(check('yfs.example.com:8443', undefined, policy)).toMatchObject({ header: 'Host' })
    expect(check('yfs.example.com', 'http://yfs.example.com', policy)).toMatchObject({ header: 'Origin' })
    const ported = { publicUrl: 'http://10.0.0.5:4321' }
    expect(check('10.0.0.5:4321', 'http://10.0.0.5:4321', ported)).toEqual({ ok: true })
    expect(check('10.0.0.5', undefined, ported)).toMatchObject({ header: 'Host' })
  })
})

describe('normalizeOrigin', () => {
  it('gives scheme://host[:port] and refuses what is not an http(s) origin', () => {
    expect(normalizeOrigin('HTTPS://App.Example.com:443/path')).toBe('https://app.example.com')
    expect(normalizeOrigin('http://localhost:6274')).toBe('http://localhost:6274')
    expect(() => normalizeOrigin('app.example.com')).toThrow(/not an origin/)
    expect(() => normalizeOrigin('ftp://x')).toThrow(/not an http\(s\) origin/)
  })
})
