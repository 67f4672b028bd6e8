/**
 * Sealed secrets: a secret Leadline must use again later (an outbound signing secret, a page access
 * token) is kept on the log encrypted, as a string that begins with SEALED_PREFIX
 * (src/integrations/secrets/ seals and opens it). Such a string never leaves: the audit export, the
 * history, the tool answers and the console drop every member or element that holds one, at any
 * depth, whatever its name, so a new event that seals a secret is covered without a list to update.
 */
import { DROP, filterArray } from './shared/copy-on-write.ts'

/** How every sealed value begins: a version, so the format can change without guessing. */
export const SEALED_PREFIX = 'llsealed1.'

/** True for a string that is a sealed secret. */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SEALED_PREFIX)
}


// Copy on write, like the recordings filter: a value holding nothing sealed comes back as it is.
function filter(value: unknown): unknown {
  if (typeof value === 'string') return value.startsWith(SEALED_PREFIX) ? DROP : value
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return filterArray(value, filter)
  const object = value as Record<string, unknown>
  const names = Object.keys(object)
  let kept: Record<string, unknown> | null = null
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    const member = object[name]
    const filtered = filter(member)
    if (kept === null) {
      if (filtered === member) continue
      kept = {}
      for (let j = 0; j < i; j++) Object.defineProperty(kept, names[j] as string, { value: object[names[j] as string], enumerable: true, writable: true, configurable: true })
    }
    if (filtered !== DROP) Object.defineProperty(kept, name, { value: filtered, enumerable: true, writable: true, configurable: true })
  }
  return kept ?? object
}

/** The value with every sealed secret removed (members and elements); a value that is one becomes undefined. */
export function withoutSealedSecrets(value: unknown): unknown {
  const filtered = filter(value)
  return filtered === DROP ? undefined : filtered
}
