/**
 * Every HTTP error Leadline answers, in one place. `error` is the stable text callers match on
 * (spec §7.2: `phone required`); `code` names the same error in logs, docs and JSON-RPC `data.code`.
 */
import type { FastifyReply } from 'fastify'

export const HTTP_ERRORS = {
  phone_required: { status: 400, error: 'phone required' },
  phone_invalid: { status: 400, error: 'phone invalid' },
  body_not_object: { status: 400, error: 'body must be an object' },
  invalid_json: { status: 400, error: 'invalid json' },
  invalid_request: { status: 400, error: 'invalid request' },
  invalid_stripe_signature: { status: 400, error: 'invalid signature' },
  invalid_token: { status: 401, error: 'invalid token' },
  invalid_signature: { status: 403, error: 'invalid signature' },
  not_found: { status: 404, error: 'not found' },
  method_not_allowed: { status: 405, error: 'method not allowed' },
  payload_too_large: { status: 413, error: 'payload too large' },
  unsupported_media_type: { status: 415, error: 'unsupported media type' },
  rate_limited: { status: 429, error: 'rate limited' },
  internal_error: { status: 500, error: 'internal error' },
  store_unavailable: { status: 503, error: 'store unavailable' },
} as const

export type HttpErrorCode = keyof typeof HTTP_ERRORS

export function isHttpErrorCode(code: string): code is HttpErrorCode {
  return Object.hasOwn(HTTP_ERRORS, code)
}

/** The body for an error: `{error}` alone for spec'd errors, plus `detail` when there is more to say. */
export function errorBody(code: HttpErrorCode, detail?: string): { error: string; detail?: string } {
  const { error } = HTTP_ERRORS[code]
  return detail === undefined || detail === error ? { error } : { error, detail }
}

export function sendError(reply: FastifyReply, code: HttpErrorCode, detail?: string): FastifyReply {
  return reply.code(HTTP_ERRORS[code].status).type('application/json; charset=utf-8').send(errorBody(code, detail))
}
