// Presence updates: checked (size, depth, JSON) and re-encoded; a connection sets only its own ids.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import {
  type AwarenessEntry,
  encodeAwarenessEntries,
  jsonDepth,
  ownEntries,
  readAwarenessUpdate,
} from './awareness-guard.js'
import { DEFAULT_LIMITS } from './limits.js'
import { Refusal } from './refusal.js'

const refusalOf = (run: () => unknown): { code: number; reason: string } | undefined => {
  try {
    run()
    return undefined
  } catch (error) {
    if (error instanceof Refusal) return { code: error.code, reason: error.reason }
    throw error
  }
}

describe('readAwarenessUpdate', () => {
  it('reads what y-protocols writes and re-encodes it to the same states (property)', () => {
    const json = fc.jsonValue({ maxDepth: 6 })
    fc.assert(
      fc.property(json, (state) => {
        const source = new Awareness(new Y.Doc())
        // y-protocols types states as objects; any JSON value goes on the wire.
        source.setLocalState(state as Record<string, unknown> | null)
        const update = encodeAwarenessUpdate(source, [source.clientID])
        const entries = readAwarenessUpdate(update, DEFAULT_LIMITS)
        // Applying the re-encoded update gives what applying the original gives.
        const direct = new Awareness(new Y.Doc())
        applyAwarenessUpdate(direct, update, 'test')
        const checked = new Awareness(new Y.Doc())
        applyAwarenessUpdate(checked, encodeAwarenessEntries(entries), 'test')
        expect([...checked.getStates()].filter(([id]) => id === source.clientID)).toEqual(
          [...direct.getStates()].filter(([id]) => id === source.clientID),
        )
      }),
    )
  })

  it('refuses states over the size bound, nested too deep, or not JSON, and truncated updates', () => {
    const one = (state: string) => encodeAwarenessEntries([{ clientID: 1, clock: 1, json: state }])
    expect(refusalOf(() => readAwarenessUpdate(one(`"${'x'.repeat(70_000)}"`), DEFAULT_LIMITS))).toEqual({
      code: 4413,
      reason: 'presence state too large',
    })
    expect(
      refusalOf(() => readAwarenessUpdate(one(`${'['.repeat(33)}${']'.repeat(33)}`), DEFAULT_LIMITS)),
    ).toEqual({
      code: 4413,
      reason: 'presence state nested too deep',
    })
    // 32 levels is the bound itself: fine.
    expect(readAwarenessUpdate(one(`${'['.repeat(32)}${']'.repeat(32)}`), DEFAULT_LIMITS)).toHaveLength(1)
    expect(refusalOf(() => readAwarenessUpdate(one('{"a":'), DEFAULT_LIMITS))?.reason).toBe(
      'invalid presence update',
    )
    const whole = one('{"a":1}')
    expect(refusalOf(() => readAwarenessUpdate(whole.slice(0, -2), DEFAULT_LIMITS))?.code).toBe(4400)
    expect(refusalOf(() => readAwarenessUpdate(new Uint8Array([...whole, 7]), DEFAULT_LIMITS))?.code).toBe(
      4400,
    )
  })

  it('counts depth outside strings only, without recursion', () => {
    expect(jsonDepth('{"a":"[[[[[["}', 32)).toBe(1)
    expect(jsonDepth('["\\"[["]', 32)).toBe(1)
    expect(jsonDepth('[{"a":[1]}]', 32)).toBe(3)
    // A million levels: answered at once (stops past the limit), no stack overflow.
    expect(jsonDepth('['.repeat(1_000_000), 32)).toBe(33)
  })
})

describe('ownEntries', () => {
  const entry = (clientID: number, clock = 1): AwarenessEntry => ({ clientID, clock, json: '{}' })

  it('keeps ids the connection owns or that have no state; drops relays of others', () => {
    const owned = new Set<number>([1])
    const states = new Set([1, 2, 3])
    const kept = ownEntries([entry(1), entry(2, 9), entry(4)], owned, (id) => states.has(id), 8)
    expect(kept.map((e) => e.clientID)).toEqual([1, 4])
    expect([...owned].sort()).toEqual([1, 4])
  })

  it('refuses a connection that would own more ids than the bound', () => {
    const owned = new Set<number>()
    const entries = Array.from({ length: 9 }, (_, k) => entry(100 + k))
    expect(refusalOf(() => ownEntries(entries, owned, () => false, 8))).toEqual({
      code: 4429,
      reason: 'too many presence ids',
    })
  })
})
