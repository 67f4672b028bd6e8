/**
 * The Facebook Graph API, as Leadline uses it: one lead by its leadgen id, with the page access
 * token (`GET {graph}/{version}/{leadgen_id}?access_token=…&appsecret_proof=…`). Every failure is a
 * GraphError of one kind, so the fetcher knows what passes (unavailable, timeout, rate limited:
 * retried) from what needs a person (refused: an expired token, a missing permission). The token
 * never appears in an error: the request URL is never logged or thrown, and Facebook's own message
 * is cleared of it before it is kept.
 */
import { createHmac } from 'node:crypto'

/** The lead as the Graph API answers it: `field_data` is what the person filled in. */
export interface GraphLead {
  readonly id: string
  readonly created_time?: string
  readonly field_data: ReadonlyArray<{ readonly name: string; readonly values: readonly unknown[] }>
  readonly [member: string]: unknown
}

export type GraphFailure = 'unavailable' | 'timeout' | 'rate_limited' | 'refused'

export class GraphError extends Error {
  constructor(
    readonly failure: GraphFailure,
    message: string,
    readonly httpStatus: number | null = null,
    readonly graphCode: number | null = null,
  ) {
    super(message)
    this.name = 'GraphError'
  }

  /** Passing failures: asking again later may work. */
  get passing(): boolean {
    return this.failure !== 'refused'
  }
}

export interface FacebookGraph {
  fetchLead(leadgenId: string, pageToken: string): Promise<GraphLead>
}

export interface FacebookGraphOptions {
  /** FACEBOOK_GRAPH_URL (https://graph.facebook.com; a fake server in tests). */
  readonly graphUrl: string
  /** FACEBOOK_GRAPH_VERSION, such as v24.0. */
  readonly version: string
  /** FACEBOOK_APP_SECRET: signs each request's appsecret_proof. */
  readonly appSecret: string
  readonly timeoutMs?: number
}

/** A lead is a few KiB; an answer past this is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024
export const DEFAULT_GRAPH_TIMEOUT_MS = 10_000
/** Graph error codes that mean "too many calls" (application, user, page and business use-case limits). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014])
/** Graph error codes for a passing failure on Facebook's side ("unknown error", "service temporarily unavailable"). */
const PASSING_CODES = new Set([1, 2])

export function createFacebookGraph(options: FacebookGraphOptions): FacebookGraph {
  const base = options.graphUrl.replace(/\/+$/, '')
  const timeoutMs = options.timeoutMs ?? DEFAULT_GRAPH_TIMEOUT_MS
  return {
    async fetchLead(leadgenId, pageToken) {
      const clean = (text: string) => (pageToken === '' ? text : text.split(pageToken).join('[REDACTED]'))
      const proof = createHmac('sha256', options.appSecret).update(pageToken).digest('hex')
      const url = `${base}/${encodeURIComponent(options.version)}/${encodeURIComponent(leadgenId)}?access_token=${encodeURIComponent(pageToken)}&appsecret_proof=${proof}`
      let response: Response
      let text: string
      try {
        response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } })
        text = await readBounded(response)
      } catch (error) {
        if (error instanceof GraphError) throw error
        const name = (error as { name?: unknown }).name
        if (name === 'TimeoutError' || name === 'AbortError') throw new GraphError('timeout', `the Graph API did not answer within ${timeoutMs} ms`)
        const cause = (error as { cause?: { code?: unknown } }).cause?.code
        throw new GraphError('unavailable', `the Graph API could not be reached${typeof cause === 'string' ? ` (${cause})` : ''}`)
      }
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = null
      }
      if (response.ok) {
        if (!isLead(body)) throw new GraphError('unavailable', 'the Graph API answered 200 without a lead (no field_data)', response.status)
        return body
      }
      const error = (body as { error?: { message?: unknown; code?: unknown; is_transient?: unknown } } | null)?.error
      const code = typeof error?.code === 'number' ? error.code : null
      const message = clean(typeof error?.message === 'string' ? error.message.slice(0, 300) : `HTTP ${response.status}`)
      if (response.status === 429 || (code !== null && RATE_LIMIT_CODES.has(code))) throw new GraphError('rate_limited', message, response.status, code)
      if (response.status >= 500 || error?.is_transient === true || (code !== null && PASSING_CODES.has(code))) throw new GraphError('unavailable', message, response.status, code)
      throw new GraphError('refused', message, response.status, code)
    },
  }
}

async function readBounded(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length'))
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel()
    throw new GraphError('unavailable', `the Graph API's answer is larger than ${MAX_ANSWER_BYTES} bytes`, response.status)
  }
  const text = await response.text()
  if (text.length > MAX_ANSWER_BYTES) throw new GraphError('unavailable', `the Graph API's answer is larger than ${MAX_ANSWER_BYTES} bytes`, response.status)
  return text
}

function isLead(body: unknown): body is GraphLead {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Array.isArray((body as { field_data?: unknown }).field_data)
}
