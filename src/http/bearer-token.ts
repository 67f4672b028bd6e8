/** The credential of `Authorization: Bearer <token>` (RFC 6750), if a request carries one. */
import type { FastifyRequest } from 'fastify'

export function bearerToken(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1]
}
