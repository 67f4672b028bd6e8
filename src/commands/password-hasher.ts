/**
 * Passwords are kept only as scrypt hashes (memory-hard: each guess costs 128·N·r bytes of memory,
 * 32 MiB at the default N = 2^15, r = 8), with a random 16-byte salt, in a self-describing string
 * `scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64url), so a hash made with other parameters (a test's
 * cheaper N, or a stronger N later) still verifies. Comparison is constant-time.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { ConfigError } from '../config/config.ts'

export const DEFAULT_SCRYPT_LOG_N = 15
const R = 8
const P = 1
const KEY_LENGTH = 32
const SALT_LENGTH = 16
/** Longest password accepted: long enough for any passphrase, short enough not to be a cost lever. */
export const MAX_PASSWORD_LENGTH = 256
export const MIN_PASSWORD_LENGTH = 12
/**
 * Hashes computed at once. Each takes a libuv thread and a core for tens of milliseconds: a flood of
 * sign-ins must leave the webhook a core, and the pool's other threads to file and DNS work.
 */
export const HASH_CONCURRENCY = 1
/** Hashes that may wait for their turn; past that a sign-in is refused unchecked (PasswordHasherBusyError). */
export const HASH_QUEUE_LIMIT = 64

/** Too many passwords waiting to be hashed: nothing was checked, try again in a moment. */
export class PasswordHasherBusyError extends Error {
  constructor() {
    super('too many sign-ins at once: try again in a few seconds')
    this.name = 'PasswordHasherBusyError'
  }
}

/** LEADLINE_SCRYPT_LOG_N, checked like every other setting: a bad value stops start-up with a clear message. */
export function scryptLogNFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env.LEADLINE_SCRYPT_LOG_N?.trim()
  if (text === undefined || text === '') return DEFAULT_SCRYPT_LOG_N
  const logN = Number(text)
  if (!/^\d+$/.test(text) || logN < 10 || logN > 20) {
    throw new ConfigError([`LEADLINE_SCRYPT_LOG_N: must be a whole number from 10 to 20 (scrypt's N is 2 to this power; default ${DEFAULT_SCRYPT_LOG_N}), not "${text}"`])
  }
  return logN
}

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCallback(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))))
}

function options(logN: number, r: number, p: number): ScryptOptions {
  // Node refuses above 32 MiB by default; allow what these parameters need, with room.
  return { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 }
}

export class PasswordHasher {
  private running = 0
  private readonly waiting: Array<() => void> = []

  constructor(
    private readonly logN: number = DEFAULT_SCRYPT_LOG_N,
    private readonly bound: { readonly concurrency: number; readonly queueLimit: number } = { concurrency: HASH_CONCURRENCY, queueLimit: HASH_QUEUE_LIMIT },
  ) {
    if (!Number.isInteger(logN) || logN < 1 || logN > 20) throw new RangeError('scrypt log2(N) must be an integer from 1 to 20')
  }

  /** Hashes being computed now and waiting their turn. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.running, waiting: this.waiting.length }
  }

  /** Runs one scrypt when a slot is free; throws PasswordHasherBusyError when too many already wait. */
  private async scrypt(password: string, salt: Buffer, keyLength: number, params: ScryptOptions): Promise<Buffer> {
    if (this.running >= this.bound.concurrency) {
      if (this.waiting.length >= this.bound.queueLimit) throw new PasswordHasherBusyError()
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.running++
    }
    try {
      return await scrypt(password, salt, keyLength, params)
    } finally {
      // The slot passes straight to the next in line, so `running` never exceeds the bound.
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LENGTH)
    const key = await this.scrypt(password, salt, KEY_LENGTH, options(this.logN, R, P))
    return `scrypt$ln=${this.logN},r=${R},p=${P}$${salt.toString('base64url')}$${key.toString('base64url')}`
  }

  /** True when `password` is the one hashed in `stored`; false for a wrong password or a malformed hash. */
  async verify(password: string, stored: string): Promise<boolean> {
    const match = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored)
    if (!match) return false
    const [logN, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
    if (logN < 1 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false
    const expected = Buffer.from(match[5] as string, 'base64url')
    const key = await this.scrypt(password, Buffer.from(match[4] as string, 'base64url'), expected.length, options(logN, r, p))
    return key.length === expected.length && timingSafeEqual(key, expected)
  }

  /** Spends what a real check costs, for an unknown email, so timing does not tell which emails exist. */
  async burn(password: string): Promise<void> {
    await this.scrypt(password, randomBytes(SALT_LENGTH), KEY_LENGTH, options(this.logN, R, P))
  }
}
