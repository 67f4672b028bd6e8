/**
 * SHA-256 as lower-case hex, in one call: Node's one-shot `crypto.hash` (every Node line `engines`
 * names has it), much quicker than `createHash(…).update(…).digest()` on short inputs. The webhook
 * hashes its token on every request and the store's writer every event it appends.
 */
import { hash } from 'node:crypto'

export const sha256Hex = (data: string | Uint8Array): string => hash('sha256', data, 'hex')
