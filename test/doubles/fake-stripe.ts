/**
 * TEST DOUBLE: a fake Stripe API on 127.0.0.1, driven by the real `stripe` SDK through
 * `STRIPE_API_URL` / `createStripePayments({ apiUrl })`. Not a mock of our code: an HTTP server that
 * behaves like the parts of Stripe Leadline uses.
 *
 * Stripe behaviours it models:
 * - `POST /v1/checkout/sessions`, form-encoded with Stripe's bracket notation
 *   (`line_items[0][price_data][unit_amount]=12500`); `200` with a Checkout Session as Stripe
 *   returns it (`cs_test_…`, `url` on checkout.stripe.com, `expires_at` 24 hours on, `status: open`).
 * - Bearer auth against the configured secret key (`401`); `Stripe-Account` naming an account the
 *   platform cannot reach (`403`, `account_invalid`) when `connectedAccounts` is given.
 * - Idempotency as Stripe does it, per account and `Idempotency-Key`: the same key and parameters
 *   replay the first answer (`Idempotent-Replayed: true`), other parameters are `400`
 *   `idempotency_error`, a key still in flight is `409` (which the SDK retries).
 * - Checks: `mode=payment`, one line item with `price_data`, a positive integer `unit_amount`, USD
 *   amounts of at least 50 cents (`amount_too_small`).
 * - Errors use Stripe's body `{error: {type, code, message, param, doc_url}}` and a `Request-Id` header.
 * Faults, programmed for the next request(s): any status with a Stripe error body (429 rate limit,
 * 500 api_error, 402 card_error …), a delay before answering, or destroying the socket after the
 * session was created (Stripe did it, no answer came back: the SDK retries with the same key).
 * Helpers build Checkout Session events (`checkout.session.completed`, …) as Stripe sends them to a
 * Connect webhook, signed with the SDK's `webhooks.generateTestHeaderString`.
 *
 * Not modelled: other resources, GET, expansion, pagination, Stripe-Context.
 */
import { createHash, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'

export const FAKE_STRIPE_SECRET_KEY = 'sk_test_fakeLeadline0123456789abcdef'
export const FAKE_STRIPE_WEBHOOK_SECRET = 'whsec_fakeLeadlineSigningSecret0123456789'
export const FAKE_CONNECTED_ACCOUNT = 'acct_1FakeConnected01'

export interface StripeRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  /** The form body as sent: bracket keys (`line_items[0][price_data][currency]`) → values. */
  form: Record<string, string>
  raw: string
  receivedAt: number
  /** What the fake did: created a session, replayed one, or answered an error. */
  outcome: 'created' | 'replayed' | 'error' | 'fault'
  status?: number
  sessionId?: string
}

export type FakeStripeFault =
  | { kind: 'status'; status: number; type?: string; code?: string; message?: string; headers?: Record<string, string> }
  | { kind: 'delay'; ms: number }
  | { kind: 'destroy' }

export type CheckoutSession = Record<string, unknown> & { id: string; url: string; expires_at: number; metadata: Record<string, string> }

export interface FakeStripe {
  /** STRIPE_API_URL for the SDK. */
  readonly url: string
  readonly secretKey: string
  requests(): StripeRequest[]
  /** Requests that reached `POST /v1/checkout/sessions`. */
  sessionRequests(): StripeRequest[]
  /** Sessions created, in order (replays are not new sessions). */
  sessions(): CheckoutSession[]
  failNext(fault: FakeStripeFault, times?: number): void
  close(): Promise<void>
}

export interface FakeStripeOptions {
  secretKey?: string
  /** When given, a `Stripe-Account` outside this list is refused (403 account_invalid). */
  connectedAccounts?: readonly string[]
}

interface Remembered {
  paramsHash: string
  status: number
  body: string
}

export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? FAKE_STRIPE_SECRET_KEY
  const recorded: StripeRequest[] = []
  const created: CheckoutSession[] = []
  const faults: FakeStripeFault[] = []
  const remembered = new Map<string, Remembered>()
  const inFlight = new Set<string>()
  const timers = new Set<NodeJS.Timeout>()

  const later = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        resolve()
      }, ms)
      timers.add(timer)
    })

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      void handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, stripeError('api_error', undefined, `fake stripe crashed: ${String(error)}`))
      })
    })
  })

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const entry: StripeRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      form: Object.fromEntries(new URLSearchParams(raw)),
      raw,
      receivedAt: Date.now(),
      outcome: 'error',
    }
    recorded.push(entry)
    const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
      entry.status = status
      send(res, status, body, headers)
    }

    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return answer(401, stripeError('invalid_request_error', undefined, `Invalid API Key provided: ${mask(req.headers.authorization ?? '')}`))
    }
    if (entry.method !== 'POST' || new URL(entry.path, 'http://fake').pathname !== '/v1/checkout/sessions') {
      return answer(404, stripeError('invalid_request_error', 'resource_missing', `Unrecognized request URL (${entry.method}: ${entry.path}).`))
    }
    const account = header(req, 'stripe-account')
    if (options.connectedAccounts && account !== undefined && !options.connectedAccounts.includes(account)) {
      return answer(403, stripeError('invalid_request_error', 'account_invalid', `The provided key 'sk_test_****' does not have access to account '${account}' (or that account does not exist). Application access may have been revoked.`))
    }

    const fault = faults.shift()
    if (fault?.kind === 'status') {
      entry.outcome = 'fault'
      return answer(fault.status, stripeError(fault.type ?? defaultType(fault.status), fault.code, fault.message ?? defaultMessage(fault.status)), fault.headers)
    }
    if (fault?.kind === 'delay') await later(fault.ms)

    const key = header(req, 'idempotency-key')
    const scope = key === undefined ? undefined : `${account ?? 'platform'}\u0000${key}`
    const paramsHash = createHash('sha256').update(raw).digest('hex')
    if (scope !== undefined) {
      const seen = remembered.get(scope)
      if (seen) {
        if (seen.paramsHash !== paramsHash) {
          return answer(400, stripeError('idempotency_error', undefined, `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`))
        }
        entry.outcome = 'replayed'
        entry.sessionId = (JSON.parse(seen.body) as { id?: string }).id
        return answer(seen.status, seen.body, { 'idempotent-replayed': 'true', 'original-request': `req_${randomBytes(7).toString('hex')}` })
      }
      if (inFlight.has(scope)) {
        return answer(409, stripeError('idempotency_error', undefined, `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`))
      }
      inFlight.add(scope)
    }
    try {
      const problem = checkSession(entry.form)
      const [status, body] = problem ? [400, stripeError('invalid_request_error', problem.code, problem.message, problem.param)] : [200, JSON.stringify(sessionJson(entry.form))]
      if (scope !== undefined) remembered.set(scope, { paramsHash, status, body })
      if (status === 200) {
        const session = JSON.parse(body) as CheckoutSession
        created.push(session)
        entry.outcome = 'created'
        entry.sessionId = session.id
      }
      if (fault?.kind === 'destroy') {
        entry.outcome = 'fault'
        req.socket.destroy()
        return
      }
      return answer(status, body)
    } finally {
      if (scope !== undefined) inFlight.delete(scope)
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    requests: () => [...recorded],
    sessionRequests: () => recorded.filter((r) => r.path.startsWith('/v1/checkout/sessions')),
    sessions: () => [...created],
    failNext(fault, times = 1) {
      for (let i = 0; i < times; i++) faults.push(fault)
    },
    async close() {
      for (const timer of timers) clearTimeout(timer)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function mask(authorization: string): string {
  const key = authorization.replace(/^Bearer\s+/i, '')
  return key.length > 8 ? `${key.slice(0, 8)}${'*'.repeat(8)}${key.slice(-4)}` : '****'
}

export function stripeError(type: string, code: string | undefined, message: string, param?: string): string {
  return JSON.stringify({
    error: {
      type,
      ...(code !== undefined ? { code, doc_url: `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}` } : {}),
      message,
      ...(param !== undefined ? { param } : {}),
      request_log_url: `https://dashboard.stripe.com/test/logs/req_${randomBytes(7).toString('hex')}`,
    },
  })
}

function defaultType(status: number): string {
  if (status === 402) return 'card_error'
  if (status === 429) return 'invalid_request_error'
  if (status >= 500) return 'api_error'
  return 'invalid_request_error'
}

function defaultMessage(status: number): string {
  if (status === 429) return 'Request rate limit exceeded. You can learn more about rate limits here https://stripe.com/docs/rate-limits.'
  if (status >= 500) return 'An unknown error occurred'
  return 'Invalid request'
}

function checkSession(form: Record<string, string>): { code: string; message: string; param: string } | null {
  if (form.mode !== 'payment') return { code: 'parameter_invalid_empty', message: 'Missing required param: mode.', param: 'mode' }
  const currency = form['line_items[0][price_data][currency]']
  const amount = form['line_items[0][price_data][unit_amount]']
  if (currency === undefined) return { code: 'parameter_missing', message: 'Missing required param: line_items[0][price_data][currency].', param: 'line_items[0][price_data][currency]' }
  if (amount === undefined || !/^\d+$/.test(amount) || Number(amount) <= 0) {
    return { code: 'parameter_invalid_integer', message: 'Invalid integer: line_items[0][price_data][unit_amount].', param: 'line_items[0][price_data][unit_amount]' }
  }
  if (form['line_items[0][price_data][product_data][name]'] === undefined) {
    return { code: 'parameter_missing', message: 'Missing required param: line_items[0][price_data][product_data][name].', param: 'line_items[0][price_data][product_data][name]' }
  }
  if (currency === 'usd' && Number(amount) * Number(form['line_items[0][quantity]'] ?? '1') < 50) {
    return { code: 'amount_too_small', message: 'The Checkout Session\'s total amount due must add up to at least $0.50 usd', param: 'line_items[0][price_data][unit_amount]' }
  }
  return null
}

/** `metadata[leadline_request_id]=pay_1` → `{leadline_request_id: 'pay_1'}`. */
function nested(form: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(form)) {
    const match = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')}\\[([^\\]]+)\\]$`).exec(key)
    if (match) out[match[1] as string] = value
  }
  return out
}

function sessionJson(form: Record<string, string>): CheckoutSession {
  const id = `cs_test_a1${randomBytes(28).toString('hex').slice(0, 56)}`
  const created = Math.floor(Date.now() / 1000)
  const amount = Number(form['line_items[0][price_data][unit_amount]']) * Number(form['line_items[0][quantity]'] ?? '1')
  return {
    id,
    object: 'checkout.session',
    amount_subtotal: amount,
    amount_total: amount,
    client_reference_id: form.client_reference_id ?? null,
    created,
    currency: form['line_items[0][price_data][currency]'],
    customer: null,
    expires_at: created + 24 * 60 * 60,
    livemode: false,
    metadata: nested(form, 'metadata'),
    mode: 'payment',
    payment_intent: null,
    payment_status: 'unpaid',
    status: 'open',
    success_url: form.success_url ?? null,
    ui_mode: 'hosted',
    url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0${randomBytes(6).toString('hex')}`,
  }
}

function send(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'request-id': `req_${randomBytes(7).toString('hex')}`,
    'stripe-version': Stripe.API_VERSION,
    ...headers,
  })
  res.end(body)
}

/** A Checkout Session event as Stripe posts it to a Connect webhook endpoint (`account` is the connected account). */
export function checkoutEvent(
  type: string,
  session: CheckoutSession,
  options: { account?: string | null; paid?: boolean; id?: string; created?: number } = {},
): Record<string, unknown> {
  const paid = options.paid ?? (type === 'checkout.session.completed' || type === 'checkout.session.async_payment_succeeded')
  return {
    id: options.id ?? `evt_1${randomBytes(12).toString('hex')}`,
    object: 'event',
    account: options.account === undefined ? FAKE_CONNECTED_ACCOUNT : options.account,
    api_version: Stripe.API_VERSION,
    created: options.created ?? Math.floor(Date.now() / 1000),
    data: {
      object: {
        ...session,
        status: type === 'checkout.session.expired' ? 'expired' : 'complete',
        payment_status: paid ? 'paid' : 'unpaid',
        payment_intent: type === 'checkout.session.expired' ? null : `pi_3${randomBytes(12).toString('hex')}`,
      },
    },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  }
}

/** The body and `Stripe-Signature` header for an event, signed as Stripe signs webhooks. */
export function signedEvent(event: unknown, secret = FAKE_STRIPE_WEBHOOK_SECRET, timestamp?: number): { body: string; signature: string } {
  const body = JSON.stringify(event)
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret, ...(timestamp !== undefined ? { timestamp } : {}) }) }
}

/** The environment that makes openPayments pick the Stripe adapter, aimed at this fake. */
export function stripeEnv(fake: Pick<FakeStripe, 'secretKey' | 'url'>): NodeJS.ProcessEnv {
  return { STRIPE_SECRET_KEY: fake.secretKey, STRIPE_WEBHOOK_SECRET: FAKE_STRIPE_WEBHOOK_SECRET, STRIPE_API_URL: fake.url }
}
