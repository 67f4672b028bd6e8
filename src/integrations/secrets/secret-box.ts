/**
 * The secret box: seals a secret Leadline must use again later (an outbound events signing secret, a
 * Facebook page access token) so the log holds only ciphertext, and opens it when it is needed.
 * AES-256-GCM from node:crypto, a fresh 96-bit nonce per seal; the purpose (which record the secret
 * belongs to) is authenticated data, so a sealed value copied onto another record does not open.
 *
 * A sealed value: `llsealed1.<key id>.<nonce>.<ciphertext>.<tag>` (base64url parts). The key id is
 * the first 8 hex digits of SHA-256 of the key, so a value sealed under another key says so instead
 * of failing as "tampered".
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { SEALED_PREFIX } from '../../domain/sealed-secrets.ts'
import { sha256Hex } from '../../domain/shared/sha256.ts'

export interface SecretBox {
  /** Which key this box holds (8 hex digits of its SHA-256); sealed values carry it. */
  readonly keyId: string
  /** The secret, encrypted for `purpose` (such as `events-subscription:{accountId}:{subscriptionId}`). */
  seal(secret: string, purpose: string): string
  /** The secret a seal() made for the same purpose; SecretBoxError if the key, the purpose or a byte differs. */
  open(sealed: string, purpose: string): string
  /** A 32-byte key of its own for `purpose`, the same on every node holding this key (HKDF-SHA256). */
  derive(purpose: string): Buffer
}

export type SecretBoxErrorCode = 'not_sealed' | 'other_key' | 'does_not_open'

export class SecretBoxError extends Error {
  constructor(readonly code: SecretBoxErrorCode, message: string) {
    super(message)
    this.name = 'SecretBoxError'
  }
}

const KEY_BYTES = 32
const NONCE_BYTES = 12
const TAG_BYTES = 16

/** A box for this 32-byte key. */
export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== KEY_BYTES) throw new RangeError(`a secret box key is ${KEY_BYTES} bytes, not ${key.length}`)
  const keyBytes = Buffer.from(key)
  const keyId = sha256Hex(keyBytes).slice(0, 8)
  return {
    keyId,
    derive(purpose) {
      return Buffer.from(hkdfSync('sha256', keyBytes, Buffer.alloc(0), `leadline:${purpose}`, KEY_BYTES))
    },
    seal(secret, purpose) {
      const nonce = randomBytes(NONCE_BYTES)
      const cipher = createCipheriv('aes-256-gcm', keyBytes, nonce, { authTagLength: TAG_BYTES })
      cipher.setAAD(Buffer.from(purpose, 'utf8'))
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return `${SEALED_PREFIX}${keyId}.${nonce.toString('base64url')}.${ciphertext.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`
    },
    open(sealed, purpose) {
      if (!sealed.startsWith(SEALED_PREFIX)) throw new SecretBoxError('not_sealed', 'not a sealed secret')
      const parts = sealed.slice(SEALED_PREFIX.length).split('.')
      const [id, nonceText, ciphertextText, tagText] = parts
      if (parts.length !== 4 || id === undefined || nonceText === undefined || ciphertextText === undefined || tagText === undefined) {
        throw new SecretBoxError('not_sealed', 'a sealed secret has four parts after its prefix')
      }
      if (id !== keyId) {
        throw new SecretBoxError('other_key', `this secret was sealed with key ${id}, and this server holds key ${keyId}: set LEADLINE_SECRET_KEY (or the key file) back to the key it was sealed with, or issue the secret again`)
      }
      const nonce = Buffer.from(nonceText, 'base64url')
      const tag = Buffer.from(tagText, 'base64url')
      if (nonce.length !== NONCE_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('does_not_open', 'the sealed secret is damaged')
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyBytes, nonce, { authTagLength: TAG_BYTES })
        decipher.setAAD(Buffer.from(purpose, 'utf8'))
        decipher.setAuthTag(tag)
        return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString('utf8')
      } catch {
        throw new SecretBoxError('does_not_open', 'the sealed secret does not open: it was changed, or sealed for another purpose')
      }
    },
  }
}
