/**
 * The operator's credential for what only an operator reads: `/metrics` and the details of
 * `/readyz` (log positions, lag). A token is random and prefixed like every other secret, shown once
 * by `leadline operator-token`, and the server is given only its SHA-256 (LEADLINE_OPERATOR_TOKEN_HASH).
 */
import type { FastifyRequest } from 'fastify'
import { hashSecret, newSecret, sameHash } from '../../domain/shared/ids.ts'
import { bearerToken } from '../bearer-token.ts'

export const OPERATOR_TOKEN_PREFIX = 'llop_'
const MAX_TOKEN_LENGTH = 128

/** A new operator token and the hash to configure; the token is shown once and stored nowhere. */
export function issueOperatorToken(): { readonly token: string; readonly hash: string } {
  const token = newSecret(OPERATOR_TOKEN_PREFIX)
  return { token, hash: hashSecret(token) }
}

/** `granted`: a configured operator token; `none`: no Authorization header; `refused`: any other credential. */
export type OperatorAccess = 'granted' | 'none' | 'refused'

export function operatorAccess(request: FastifyRequest, hashes: readonly string[]): OperatorAccess {
  if (request.headers.authorization === undefined) return 'none'
  const token = bearerToken(request)
  if (token === undefined || !token.startsWith(OPERATOR_TOKEN_PREFIX) || token.length > MAX_TOKEN_LENGTH) return 'refused'
  const hash = hashSecret(token)
  // Every configured hash is compared, in constant time, so timing tells nothing of which matched.
  let granted = false
  for (const configured of hashes) granted = sameHash(configured, hash) || granted
  return granted ? 'granted' : 'refused'
}
