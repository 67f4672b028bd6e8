/**
 * Cursors handed to callers: a value of the caller's own (a lead id, a revision) sealed with a check
 * over the scope it belongs to (an account, an account's lead), as base64url. A cursor from another
 * account, for another lead, or altered, opens to nothing, and none holds anything but the caller's
 * own data (never a position in the shared log, which would tell one account another's volume).
 *
 * The check is a digest, not a secret: it binds the cursor to its scope and catches changes. What
 * keeps accounts apart is that a cursor's value is looked up in the caller's account only.
 */
import { sha256Hex } from './sha256.ts'

const TAG_BYTES = 12
const MAX_VALUE_BYTES = 128

function tag(scope: string, value: string): Buffer {
  return Buffer.from(sha256Hex(`leadline-cursor\u0000${scope}\u0000${value}`).slice(0, TAG_BYTES * 2), 'hex')
}

/** The cursor for `value` within `scope`. */
export function sealCursor(scope: string, value: string): string {
  return Buffer.concat([Buffer.from(value, 'utf8'), tag(scope, value)]).toString('base64url')
}

/** The value a cursor sealed within `scope`, or null when it was sealed for another scope, altered or never one. */
export function openCursor(scope: string, cursor: string): string | null {
  const bytes = Buffer.from(cursor, 'base64url')
  // base64url decoding skips what it cannot read: only a cursor that encodes back to itself is one.
  if (bytes.length <= TAG_BYTES || bytes.length > MAX_VALUE_BYTES + TAG_BYTES || bytes.toString('base64url') !== cursor) return null
  const value = bytes.subarray(0, bytes.length - TAG_BYTES).toString('utf8')
  return tag(scope, value).equals(bytes.subarray(bytes.length - TAG_BYTES)) ? value : null
}
