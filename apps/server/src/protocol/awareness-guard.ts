/**
 * Presence (awareness) updates from clients, checked and re-encoded before
 * any document's awareness sees them.
 *
 * An awareness update is `varUint(n)` then, per client, `varUint(clientID)
 * varUint(clock) varString(JSON state)` (y-protocols/awareness). The states
 * are stored on the document and re-stringified for every client that joins
 * later, so one hostile state could lock a workspace: a state nested 100,000
 * levels deep parses, but `JSON.stringify` then overflows the stack on each
 * new connection. So each state is bounded in bytes and nesting depth
 * (measured by scanning the text, without recursion), must be JSON, and is
 * re-encoded from its parsed value: what reaches the document is exactly
 * what a well-behaved client would send.
 *
 * `ownEntries` decides which client ids a connection may set (its own), so
 * no connection can replace another's presence and each is charged only for
 * the ids it adds. What it does not do: look at what the states mean.
 */
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import type { ServerLimits } from './limits.js'
import { CLOSE_MALFORMED, CLOSE_TOO_LARGE, CLOSE_TOO_MANY, Refusal } from './refusal.js'

export type AwarenessLimits = Pick<ServerLimits, 'maxAwarenessStateBytes' | 'maxAwarenessDepth'>

/** One client's entry of an awareness update, checked: `json` is the re-encoded state (`'null'`: removed). */
export interface AwarenessEntry {
  clientID: number
  clock: number
  json: string
}

const OPEN_BRACKET = 0x5b
const OPEN_BRACE = 0x7b
const CLOSE_BRACKET = 0x5d
const CLOSE_BRACE = 0x7d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Deepest `[`/`{` nesting of a JSON text, ignoring brackets inside strings; stops counting past `limit`. */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--
  }
  return deepest
}

/**
 * Decode and check one awareness update; each state is parsed and
 * re-stringified. Throws `Refusal`: 4400 when it does not decode or a state
 * is not JSON, 4413 for a state over `maxAwarenessStateBytes` or nested
 * deeper than `maxAwarenessDepth`.
 */
export function readAwarenessUpdate(update: Uint8Array, limits: AwarenessLimits): AwarenessEntry[] {
  const decoder = decoding.createDecoder(update)
  const entries: AwarenessEntry[] = []
  try {
    const count = decoding.readVarUint(decoder)
    for (let k = 0; k < count; k++) {
      const clientID = decoding.readVarUint(decoder)
      const clock = decoding.readVarUint(decoder)
      // Bound the state by its declared length before decoding it.
      if (decoding.peekVarUint(decoder) > limits.maxAwarenessStateBytes)
        throw new Refusal(CLOSE_TOO_LARGE, 'presence state too large')
      const text = decoding.readVarString(decoder)
      if (jsonDepth(text, limits.maxAwarenessDepth) > limits.maxAwarenessDepth)
        throw new Refusal(CLOSE_TOO_LARGE, 'presence state nested too deep')
      entries.push({ clientID, clock, json: JSON.stringify(JSON.parse(text)) })
    }
    if (decoding.hasContent(decoder)) throw new Refusal(CLOSE_MALFORMED, 'invalid presence update')
  } catch (error) {
    if (error instanceof Refusal) throw error
    // Truncated varints, bad UTF-8 or text that is not JSON.
    throw new Refusal(CLOSE_MALFORMED, 'invalid presence update')
  }
  return entries
}

/** The awareness update carrying `entries` (the y-protocols layout). */
export function encodeAwarenessEntries(entries: readonly AwarenessEntry[]): Uint8Array {
  const out = encoding.createEncoder()
  encoding.writeVarUint(out, entries.length)
  for (const { clientID, clock, json } of entries) {
    encoding.writeVarUint(out, clientID)
    encoding.writeVarUint(out, clock)
    encoding.writeVarString(out, json)
  }
  return encoding.toUint8Array(out)
}

/**
 * Which entries of an update a connection may apply, and which client ids it
 * claims by them. Clients relay the states of everyone they know, and any
 * entry with a newer clock would replace its owner's state, so a connection
 * may set only ids it added itself or ids with no state on the document
 * (new, or left and back); the others are dropped (a relay is a no-op for
 * the document anyway). Throws `Refusal` 4429 when the connection would own
 * more than `maxClients` ids.
 */
export function ownEntries(
  entries: readonly AwarenessEntry[],
  owned: Set<number>,
  hasState: (clientID: number) => boolean,
  maxClients: number,
): AwarenessEntry[] {
  const kept = entries.filter((e) => owned.has(e.clientID) || !hasState(e.clientID))
  for (const e of kept) owned.add(e.clientID)
  if (owned.size > maxClients) throw new Refusal(CLOSE_TOO_MANY, 'too many presence ids')
  return kept
}
