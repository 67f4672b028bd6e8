/** Identifiers and secrets. Ids are random and carry a prefix that says what they name. */
import { randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto'
import { sha256Hex } from './sha256.ts'

const BASE32 = Buffer.from('0123456789abcdefghjkmnpqrstvwxyz', 'latin1') // Crockford's alphabet, lower case
/** Where base32 writes its digits: read back as one string (appending a digit at a time made a string per digit). */
const digits = Buffer.alloc(64)

function base32(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const needed = Math.ceil(((end - start) * 8) / 5)
  const out = needed <= digits.length ? digits : Buffer.alloc(needed)
  let length = 0
  let buffer = 0
  let bits = 0
  for (let i = start; i < end; i++) {
    buffer = ((buffer << 8) | (bytes[i] as number)) & 0xfff
    bits += 8
    while (bits >= 5) {
      out[length++] = BASE32[(buffer >>> (bits - 5)) & 31] as number
      bits -= 5
    }
  }
  if (bits > 0) out[length++] = BASE32[(buffer << (5 - bits)) & 31] as number
  return out.toString('latin1', 0, length)
}

const ID_BYTES = 10
// Ids take their randomness from a pool refilled 4 KiB at a time (as randomUUID does): a
// randomBytes call per id would cost more than the rest of making the id.
const pool = Buffer.alloc(4100)
let pooled = 0

/** Where the next `bytes` unused random bytes start in the pool, refilling it when it runs out. */
function draw(bytes: number): number {
  if (pooled < bytes) {
    randomFillSync(pool)
    pooled = pool.length
  }
  pooled -= bytes
  return pooled
}

/** A new random id such as `acc_5v1q…` (80 random bits: unguessable enough for ids, never used as secrets). */
export function newId(prefix: string): string {
  const at = draw(ID_BYTES)
  return `${prefix}_${base32(pool, at, at + ID_BYTES)}`
}

/** Where newLeadId writes the milliseconds, most significant digit first. */
const timeDigits = Buffer.alloc(10)

/**
 * A new lead id, `ld_` then 26 digits of Crockford base32: 10 of `now` (milliseconds since 1970,
 * the commands' clock), then 80 random bits. The digits sort as their values do, so ids made later sort later: the read models'
 * index of lead ids grows at its end, where random ids would each change a different page of it on
 * every batch (docs/performance.md). Ids made before are 16 random digits and stay valid.
 */
export function newLeadId(now: number): string {
  let rest = now
  for (let i = timeDigits.length - 1; i >= 0; i--) {
    timeDigits[i] = BASE32[rest % 32] as number
    rest = Math.floor(rest / 32)
  }
  const at = draw(ID_BYTES)
  return `ld_${timeDigits.toString('latin1')}${base32(pool, at, at + ID_BYTES)}`
}

let stampedAt = -1
let stamp = ''

// Event ids take their 74 random bits from the same pool, 10 bytes an id, written out as hex by
// Buffer's native encoder: randomUUID's formatting builds each id out of some twenty short strings.
const EVENT_ID_BYTES = 10
/** RFC 9562's variant: the two high bits of the fourth group are 10, the next two random. */
const VARIANT = ['8', '9', 'a', 'b'] as const

/**
 * A new event id: a UUID of version 7 (RFC 9562), the milliseconds since 1970 then 74 random bits.
 * Ids of the same moment sort together, so the log's index of ids grows at its end; random ids land
 * on a different index page each, and every commit would rewrite that many pages.
 */
export function newEventId(now: number = Date.now()): string {
  if (now !== stampedAt) {
    const hex = now.toString(16).padStart(12, '0').slice(-12)
    stamp = `${hex.slice(0, 8)}-${hex.slice(8)}-7`
    stampedAt = now
  }
  const at = draw(EVENT_ID_BYTES)
  // 20 hex digits: 3 for rand_a, then (skipping the fourth) 15 more; the variant's two random bits
  // come from the last byte's low bits, whose digit is not used.
  const hex = pool.toString('hex', at, at + EVENT_ID_BYTES)
  const variant = VARIANT[(pool[at + EVENT_ID_BYTES - 1] as number) & 3]
  return `${stamp}${hex.slice(0, 3)}-${variant}${hex.slice(4, 7)}-${hex.slice(7, 19)}`
}

export const API_KEY_PREFIX = 'll_live_'
export const WEBHOOK_TOKEN_PREFIX = 'llwh_'

/** A new secret: the prefix and 160 random bits. Shown once; only its hash is stored. */
export function newSecret(prefix: string): string {
  return prefix + base32(randomBytes(20))
}

export function hashSecret(secret: string): string {
  return sha256Hex(secret)
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * A new credential: its id, and its secret twice over: `shown` (once, to whoever asked for it) and
 * `stored` (the hash and a hint, all the log ever holds).
 */
export function issueSecret(prefix: string, idPrefix: string) {
  const secret = newSecret(prefix)
  const id = newId(idPrefix)
  return { shown: { id, secret }, stored: { id, hash: hashSecret(secret), hint: secretHint(secret) } }
}

/** What may be shown of a secret after creation: its prefix and first four characters. */
export function secretHint(secret: string): string {
  const prefix = secret.startsWith(API_KEY_PREFIX) ? API_KEY_PREFIX : secret.startsWith(WEBHOOK_TOKEN_PREFIX) ? WEBHOOK_TOKEN_PREFIX : ''
  return `${secret.slice(0, prefix.length + 4)}…`
}
