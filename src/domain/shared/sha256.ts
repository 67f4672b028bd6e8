/**
 * SHA-256 as lower-case hex, in one call: Node's one-shot `crypto.hash` (Node 20.12 and later) where
 * it exists (much quicker than `createHash(…).update(…).digest()` on short inputs), and the streaming
 * form on older Node 20 releases. The webhook hashes its token on every request and the store's
 * writer every event it appends.
 */
import * as crypto from 'node:crypto'

type OneShot = (algorithm: string, data: string | Uint8Array, outputEncoding: 'hex') => string
const oneShot = (crypto as { hash?: OneShot }).hash

export const sha256Hex: (data: string | Uint8Array) => string =
  oneShot === undefined
    ? (data) => crypto.createHash('sha256').update(data).digest('hex')
    : (data) => oneShot('sha256', data, 'hex')
