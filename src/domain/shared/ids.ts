/** Identifiers and secrets. Ids are random and carry a prefix that says what they name. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz' // Crockford's alphabet, lower case

function base32(bytes: Buffer): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31]
  return out
}

/** A new random id such as `acc_5v1q…` (80 random bits: unguessable enough for ids, never used as secrets). */
export function newId(prefix: string): string {
  return `${prefix}_${base32(randomBytes(10))}`
}

export const API_KEY_PREFIX = 'll_live_'
export const WEBHOOK_TOKEN_PREFIX = 'llwh_'

/** A new secret: the prefix and 160 random bits. Shown once; only its hash is stored. */
export function newSecret(prefix: string): string {
  return prefix + base32(randomBytes(20))
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/** What may be shown of a secret after creation: its prefix and first four characters. */
export function secretHint(secret: string): string {
  const prefix = secret.startsWith(API_KEY_PREFIX) ? API_KEY_PREFIX : secret.startsWith(WEBHOOK_TOKEN_PREFIX) ? WEBHOOK_TOKEN_PREFIX : ''
  return `${secret.slice(0, prefix.length + 4)}…`
}
