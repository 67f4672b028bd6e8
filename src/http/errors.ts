/**
 * Every HTTP error Leadline answers, in one place. `error` is the stable text callers match on
 * (spec §7.2: `phone required`); `code` names the same error in logs, docs and JSON-RPC `data.code`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import Negotiator from 'negotiator'
import { z } from 'zod'

export const HTTP_ERRORS = {
  phone_required: { status: 400, error: 'phone required' },
  phone_invalid: { status: 400, error: 'phone invalid' },
  body_not_object: { status: 400, error: 'body must be an object' },
  invalid_json: { status: 400, error: 'invalid json' },
  invalid_request: { status: 400, error: 'invalid request' },
  invalid_stripe_signature: { status: 400, error: 'invalid signature' },
  invalid_token: { status: 401, error: 'invalid token' },
  invalid_google_key: { status: 401, error: 'invalid google key' },
  invalid_signature: { status: 403, error: 'invalid signature' },
  invalid_verify_token: { status: 403, error: 'invalid verify token' },
  not_found: { status: 404, error: 'not found' },
  method_not_allowed: { status: 405, error: 'method not allowed' },
  phone_conflict: { status: 409, error: 'phone conflict' },
  payload_too_large: { status: 413, error: 'payload too large' },
  unsupported_media_type: { status: 415, error: 'unsupported media type' },
  rate_limited: { status: 429, error: 'rate limited' },
  sign_in_failed: { status: 401, error: 'wrong email or password' },
  form_expired: { status: 403, error: 'form expired' },
  link_expired: { status: 410, error: 'link expired' },
  internal_error: { status: 500, error: 'internal error' },
  store_unavailable: { status: 503, error: 'store unavailable' },
} as const

export type HttpErrorCode = keyof typeof HTTP_ERRORS

export function isHttpErrorCode(code: string): code is HttpErrorCode {
  return Object.hasOwn(HTTP_ERRORS, code)
}

/** Every error's body, as routes declare it in their response schemas (and /docs/openapi.json shows it). */
export const errorBodySchema = z.object({
  error: z.string().describe('The stable error text callers match on (docs/errors.md), e.g. `phone required`'),
  detail: z.string().optional().describe('What happened, for people; absent when `error` says it all'),
}).describe('An error: `{"error": …}`, with `detail` when there is more to say')

/** The body for an error: `{error}` alone for spec'd errors, plus `detail` when there is more to say. */
export function errorBody(code: HttpErrorCode, detail?: string): { error: string; detail?: string } {
  const { error } = HTTP_ERRORS[code]
  return detail === undefined || detail === error ? { error } : { error, detail }
}

export function sendError(reply: FastifyReply, code: HttpErrorCode, detail?: string): FastifyReply {
  return reply.code(HTTP_ERRORS[code].status).type('application/json; charset=utf-8').send(errorBody(code, detail))
}

/**
 * Whether the client names one of `types` (for pages for people: `text/html`) in its Accept header,
 * read by negotiator (q-values, parameters, case; `;q=0` refuses a type). A
 * browser names text/html when it navigates or posts a form; an API client, curl and a monitor do
 * not, and get the JSON error every other route answers.
 */
function accepts(request: FastifyRequest, types: readonly string[]): boolean {
  // Named, not matched: `*/*` (curl's, and what a missing header means) asks for no page in particular.
  return new Negotiator(request.raw).mediaTypes().some((type) => types.includes(type.toLowerCase()))
}

/** A page for people, and the media types a client names in Accept to be given it. */
export interface PeoplePage {
  readonly type: string
  readonly body: string
  readonly acceptedAs: readonly string[]
}

/** What a failed page is to any other client: its stable error, and what happened. */
export interface PageFailure {
  readonly error: HttpErrorCode
  readonly detail: string
}

/** An HTML page, as the console and the pay page send theirs. */
export function htmlPage(body: string): PeoplePage {
  return { type: 'text/html; charset=utf-8', body, acceptedAs: ['text/html'] }
}

/**
 * A page for people (the console, the docs, the pay page) that failed: the page to a browser, and to
 * any other client the JSON error body every route answers, so no 4xx or 5xx is ever a page a
 * program has to scrape.
 */
export function sendErrorPage(reply: FastifyReply, status: number, page: PeoplePage, failure: PageFailure): FastifyReply {
  if (accepts(reply.request, page.acceptedAs)) return reply.code(status).type(page.type).send(page.body)
  return reply.code(status).type('application/json; charset=utf-8').send(errorBody(failure.error, failure.detail))
}
