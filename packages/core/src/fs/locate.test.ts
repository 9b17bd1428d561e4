/**
 * isSystemPath: the in-place comparison against the system roots equals
 * slicing out the top-level name and looking it up.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SYSTEM_ROOTS } from './local-layer.js'
import { isSystemPath } from './locate.js'

function reference(path: string): boolean {
  if (path === '/') return false
  const end = path.indexOf('/', 1)
  return SYSTEM_ROOTS.includes(end === -1 ? path.slice(1) : path.slice(1, end))
}

describe('isSystemPath', () => {
  it('says yes for the system roots and what lies below them only', () => {
    expect(isSystemPath('/tmp')).toBe(true)
    expect(isSystemPath('/proc/self')).toBe(true)
    expect(isSystemPath('/tmpx')).toBe(false)
    expect(isSystemPath('/tm')).toBe(false)
    expect(isSystemPath('/a/tmp')).toBe(false)
    expect(isSystemPath('/')).toBe(false)
  })
  it('equals the top-level-name lookup for any normalised path', () => {
    const part = fc.constantFrom(...SYSTEM_ROOTS, 'tm', 'tmpp', 'bi', 'usrx', 'proc2', 'a', 'x')
    const path = fc.array(part, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`)
    fc.assert(
      fc.property(path, (p) => {
        expect(isSystemPath(p)).toBe(reference(p))
      }),
      { seed: 15, numRuns: 1000 },
    )
  })
})
