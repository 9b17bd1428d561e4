/**
 * The person using this browser: a display name and a colour, kept in
 * localStorage so they name themselves once. The name becomes the
 * filesystem's `author` (`user:<name>`), so history versions they cause
 * carry it, and it is what other people see next to their presence.
 */

/** A person as others see them. */
export interface User {
  name: string
  color: string
}

const STORAGE_KEY = 'yfs.user'

// Distinct hues that keep ≥ 4.5:1 contrast with white text and on a white page.
const COLORS = ['#1d4ed8', '#b91c1c', '#047857', '#7c3aed', '#b45309', '#0e7490', '#be185d', '#4d7c0f']

/** Longest name accepted (longer input is cut). */
export const MAX_NAME_LENGTH = 40

/** A colour picked from the name, so one name keeps one colour across devices. */
export function colorFor(name: string): string {
  let h = 0
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0
  return COLORS[h % COLORS.length]!
}

/** Trim and cut a typed name; empty stays empty. */
export function cleanName(name: string): string {
  return name.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME_LENGTH)
}

/** The stored person, or `undefined` before they named themselves. */
export function loadUser(): User | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<User> | null
    const name = cleanName(typeof value?.name === 'string' ? value.name : '')
    if (!name) return undefined
    return { name, color: typeof value?.color === 'string' ? value.color : colorFor(name) }
  } catch {
    // Damaged entry: ask again.
    return undefined
  }
}

/** Store the person's name (its colour follows from it). Throws RangeError for an empty name. */
export function saveUser(name: string): User {
  const clean = cleanName(name)
  if (!clean) throw new RangeError('a name is required')
  const user = { name: clean, color: colorFor(clean) }
  localStorage.setItem(STORAGE_KEY, JSON.stringify(user))
  return user
}

/** The history author of a person. */
export function authorOf(user: User): string {
  return `user:${user.name}`
}
