/**
 * What the fuzz tests (`test/fuzz/`, a short run in `npm test`) and the long run (`npm run fuzz`,
 * `bench/hostile-input.fuzz.ts`) share: a complete Leadline on a temp directory with Twilio and
 * Stripe configured (never reached: no account is set up to dial or to take payments), generators of hostile requests for the
 * four doors that take outside input, a mutation fuzzer over real captured request bodies, and the
 * invariants every answer must keep:
 *
 * - never a 5xx, never a hang (each request has a deadline), never a crash;
 * - every 4xx carries a JSON body with an `error` member;
 * - a refused request appends nothing to the event log (the store's head position is unchanged);
 * - the tool endpoint never answers `internal_error`, and a bad or stale callback signature is refused.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { parse as parseQuery } from 'fast-querystring'
import Stripe from 'stripe'
import twilio from 'twilio'
import type { FastifyInstance } from 'fastify'
import { openLeadline, type Leadline } from '../../src/leadline.ts'
import { createHttpServer } from '../../src/http/server.ts'
import { CORE_FIELD_ALIASES } from '../../src/domain/lead/intake/field-aliases.ts'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const PUBLIC_URL = 'http://leadline.test'
export const TWILIO_AUTH_TOKEN = 'fuzz-twilio-auth-token-0123456789'
export const STRIPE_WEBHOOK_SECRET = 'whsec_fuzzSigningSecret0123456789'
/** Twilio and Stripe are configured, so their callbacks are live; their APIs are a closed port, never called. */
export const FUZZ_ENV: NodeJS.ProcessEnv = {
  TWILIO_ACCOUNT_SID: `AC${'0123456789abcdef'.repeat(2)}`,
  TWILIO_AUTH_TOKEN,
  TWILIO_API_URL: 'http://127.0.0.1:9',
  STRIPE_SECRET_KEY: 'sk_test_fuzzLeadline0123456789',
  STRIPE_WEBHOOK_SECRET,
  STRIPE_API_URL: 'http://127.0.0.1:9',
  LEADLINE_SIMULATED_DELAY_MS: '5',
}

export const TARGETS = ['webhook', 'mcp', 'twilio', 'stripe'] as const
export type Target = (typeof TARGETS)[number]

const PATHS: Record<Target, string> = {
  webhook: '/api/ingest/lead',
  mcp: '/api/mcp',
  twilio: '/api/carrier/twilio/status',
  stripe: '/api/payments/stripe/webhook',
}

export interface FuzzRequest {
  readonly target: Target
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: Buffer
  /** The generator knows it must be refused with a 4xx (a forged or stale signature, whatever the body). */
  readonly refused?: boolean
  readonly note: string
}

export interface FuzzAnswer {
  readonly status: number
  readonly headers: Record<string, unknown>
  readonly body: string
}

export interface FuzzWorld {
  readonly token: string
  /** API keys of the account, every scope set, rotated so the per-key rate limit is rarely what answers. */
  readonly keys: readonly string[]
  readonly otherToken: string
  readonly leadIds: readonly string[]
  readonly phones: readonly string[]
}

export interface FuzzTarget {
  readonly app: FastifyInstance
  readonly leadline: Leadline
  readonly world: FuzzWorld
  /** Sends one request with a deadline; rejects on a hang. */
  send(request: FuzzRequest): Promise<FuzzAnswer>
  /** Sends it and checks every invariant; answers the problems found (empty when it held). */
  run(request: FuzzRequest): Promise<string[]>
  close(): Promise<void>
}

const SCOPE_SETS = [['read'], ['write'], ['dial'], ['read', 'write'], ['read', 'dial'], ['write', 'dial'], ['read', 'write', 'dial']]
const DEADLINE_MS = 10_000

/** A Leadline on `dir` with one account, keys of every scope set and a few leads; the webhook limit off. */
export async function openFuzzTarget(dir: string, options: { keysPerScopeSet?: number } = {}): Promise<FuzzTarget> {
  const leadline = await openLeadline({
    store: `sqlite:${path.join(dir, 'leadline.db')}`,
    viewsPath: path.join(dir, 'leadline.views.db'),
    publicUrl: PUBLIC_URL,
    env: FUZZ_ENV,
  })
  // Not started: no process manager appends on its own, so the log moves only when a request makes it.
  const app = await createHttpServer(leadline, { logger: false, publicUrl: PUBLIC_URL, webhookRateLimit: null })
  const operator = { actor: { kind: 'operator', id: 'fuzz' } } as const
  const { account, webhookToken } = await leadline.accounts.create('Fuzz Co', {}, operator)
  const other = await leadline.accounts.create('Other Co', {}, operator)
  const keys: string[] = []
  for (let i = 0; i < (options.keysPerScopeSet ?? 8); i++) {
    for (const scopes of SCOPE_SETS) keys.push((await leadline.accounts.createApiKey(account.accountId, scopes, null, operator)).key.secret)
  }
  const leadIds: string[] = []
  const phones: string[] = []
  for (const phone of ['3125550142', '3125550143', '4155550100']) {
    const answer = await app.inject({
      method: 'POST',
      url: PATHS.webhook,
      headers: { 'x-service-token': webhookToken.secret, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Known Lead', phone }),
    })
    leadIds.push((answer.json() as { leadId: string }).leadId)
    phones.push(phone)
  }
  await leadline.runner.catchUp()

  const send = async (request: FuzzRequest): Promise<FuzzAnswer> => {
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS} ms: ${describe(request)}`)), DEADLINE_MS)
    })
    try {
      const response = await Promise.race([
        app.inject({ method: 'POST', url: request.url, headers: request.headers, payload: request.body }),
        deadline,
      ])
      return { status: response.statusCode, headers: response.headers, body: response.body }
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    app,
    leadline,
    world: { token: webhookToken.secret, keys, otherToken: other.webhookToken.secret, leadIds, phones },
    send,
    async run(request) {
      const before = await leadline.store.headPosition()
      const answer = await send(request)
      const after = await leadline.store.headPosition()
      return checkAnswer(request, answer, after !== before)
    },
    async close() {
      await app.close()
      await leadline.close()
    },
  }
}

export function describe(request: FuzzRequest): string {
  const body = request.body.length > 300 ? `${request.body.subarray(0, 300).toString('latin1')}… (${request.body.length} bytes)` : request.body.toString('latin1')
  return `${request.target} [${request.note}] ${request.url} ${JSON.stringify(request.headers)} ${JSON.stringify(body)}`
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** Every invariant of one answer; `appended` says whether the log's head moved while it was made. */
export function checkAnswer(request: FuzzRequest, answer: FuzzAnswer, appended: boolean): string[] {
  const problems: string[] = []
  const { status } = answer
  if (status >= 500) problems.push(`answered ${status}: ${answer.body.slice(0, 300)}`)
  if (request.refused && (status < 400 || status >= 500)) problems.push(`must be refused, answered ${status}: ${answer.body.slice(0, 200)}`)
  if (status >= 400) {
    const body = jsonObject(answer.body)
    if (!String(answer.headers['content-type'] ?? '').startsWith('application/json')) problems.push(`a ${status} without a JSON content type`)
    if (!body || !('error' in body)) problems.push(`a ${status} whose body has no error member: ${answer.body.slice(0, 200)}`)
    if (appended) problems.push(`a refused request (${status}) appended to the log`)
  }
  if (request.target === 'mcp' && status === 200) {
    const body: unknown = (() => {
      try {
        return JSON.parse(answer.body)
      } catch {
        return undefined
      }
    })()
    if (body === undefined) problems.push(`a tool endpoint 200 that is not JSON: ${answer.body.slice(0, 200)}`)
    const messages = (Array.isArray(body) ? body : [body]) as Array<{ error?: { code?: number; data?: { code?: string } } } | undefined>
    if (messages.some((m) => m?.error?.data?.code === 'internal_error')) problems.push(`internal_error: ${answer.body.slice(0, 300)}`)
    // Only a tool that ran (and may record its outcome for idempotency) can append; every other refusal is before any write.
    if (appended && messages.every((m) => m?.error !== undefined && m.error.code !== -32603)) problems.push('a refused JSON-RPC request appended to the log')
  }
  if (request.target === 'mcp' && status === 202 && answer.body !== '') problems.push('a 202 with a body')
  return problems
}

// ---------------------------------------------------------------------------------------------------
// Values

const ALIASES = Object.values(CORE_FIELD_ALIASES).flat()
const POISON_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'field_data', 'values', 'name']

/** Strings that break things: lone surrogates, zero-width and RTL marks, NUL, look-alike digits, very long ones. */
const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000', '\uD800', '\uDFFF', 'a\uD83Dz', '\u202E3125550142', '\u200B', '\uFEFF', '٣١٢٥٥٥٠١٤٢', '３１２５５５０１４２', '𝟑𝟏𝟐𝟓𝟓𝟓𝟎𝟏𝟒𝟐', '1e400', '-0', 'NaN', 'null', '[object Object]', '%00', '\r\n\r\n'),
  fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)),
)

const phoneLike: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('(312) 555-0142', '+1 312 555 0142', '3125550142', '555-0142', '+44 20 7946 0958', '13125550142x12', '+', '0000000000', '9'.repeat(40)),
  fc.stringMatching(/^[+(]?[0-9 ().\-x#]{0,24}$/),
)

/** A JSON value, deep or wide on purpose: numbers as phones, phones as arrays. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    phoneLike,
    oddString,
    fc.integer(),
    fc.double(),
    fc.constantFrom(3125550142, 1e21, -1, 0, Number.MAX_SAFE_INTEGER, 3.125550142e9),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...ALIASES, ...POISON_KEYS), fc.string()), tie('value')), { maxLength: 5 }).map((entries) => rawObject(entries)),
  ),
})).value

/** Stands for an object whose JSON text is written as given: duplicate keys and `__proto__` included. */
class RawObject {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

function rawObject(entries: ReadonlyArray<readonly [string, unknown]>): RawObject {
  return new RawObject(entries)
}

/** JSON text that JSON.stringify cannot write: repeated keys, `__proto__` as an own key. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawObject) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`
  return JSON.stringify(value) ?? 'null'
}

function nested(depth: number, kind: 'array' | 'object', leaf = '1'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`
}

/** Percent-encodes bytes (not code points): a lone surrogate goes as the bytes of U+FFFD, never a throw. */
function formEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`)).join('')
}

/**
 * Valid phones spread over 10,000 leads, so a long run is many leads of a few updates each, as real
 * traffic is, rather than a few leads with thousands of updates each.
 */
const spreadPhone: fc.Arbitrary<string> = fc.integer({ min: 0, max: 9999 }).map((n) => `(312) 55${String(n).padStart(4, '0').slice(0, 1)}-${String(n).padStart(4, '0').slice(1)}0`)

const leadEntries = fc.array(
  fc.tuple(fc.oneof(fc.constantFrom(...ALIASES), fc.constantFrom(...POISON_KEYS), fc.string({ maxLength: 20 })), jsonValue),
  { maxLength: 12 },
)

/** A lead-shaped body, almost valid, as JSON text. */
const leadJson: fc.Arbitrary<string> = fc
  .tuple(fc.option(phoneLike, { nil: undefined }), leadEntries, fc.boolean())
  .map(([phone, entries, phoneFirst]) => {
    const withPhone = phone === undefined ? entries : phoneFirst ? [['phone', phone] as const, ...entries] : [...entries, ['phone', phone] as const]
    return toJsonText(rawObject(withPhone))
  })

/** A valid lead around one hostile member: deep nesting, a huge array, a long string. */
const validLeadWithHostileMember: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 1, max: 20_000 }).chain((d) => fc.constantFrom(nested(d, 'array'), nested(d, 'object'))),
      fc.integer({ min: 1, max: 30_000 }).map((n) => `[${Array.from({ length: n }, () => '1').join(',')}]`),
      fc.integer({ min: 900, max: 60_000 }).map((n) => JSON.stringify('é'.repeat(n))),
      fc.constant('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
    ),
    fc.constantFrom('extra', 'name', 'phone', '__proto__', 'field_data', 'dob', 'email'),
    spreadPhone,
  )
  .map(([member, key, phone]) => `{"phone":"${phone}",${JSON.stringify(key)}:${member}}`)

const formBody: fc.Arbitrary<string> = fc.tuple(leadEntries, spreadPhone).map(([entries, phone]) =>
  [['phone', phone] as const, ...entries]
    .flatMap(([k, v]) => (Array.isArray(v) ? v.map((item) => [k, item] as const) : [[k, v] as const]))
    .map(([k, v]) => `${formEncode(k)}=${formEncode(typeof v === 'string' ? v : toJsonText(v))}`)
    .join('&'),
)

function multipartBody(entries: ReadonlyArray<readonly [string, unknown]>, boundary: string): string {
  return (
    entries
      .map(([k, v], i) =>
        i % 3 === 2
          ? `--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="f${i}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${toJsonText(v)}\r\n`
          : `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${typeof v === 'string' ? v : toJsonText(v)}\r\n`,
      )
      .join('') + `--${boundary}--\r\n`
  )
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzzb',
  'multipart/form-data',
  'text/plain',
  'application/xml',
  'application/octet-stream',
  '',
  ';;;',
  'application/json, text/plain',
]

/** Raw bytes, some of them not UTF-8 at all. */
const rawBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 512 }).map((a) => Buffer.from(a)),
  fc.constantFrom(
    Buffer.from([0x7b, 0x22, 0x70, 0x68, 0x6f, 0x6e, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"phone":"\xff\xfe"}
    Buffer.concat([Buffer.from('{"phone":"3125550142","name":"'), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80, 0xf8, 0x88]), Buffer.from('"}')]),
    Buffer.concat([Buffer.from('phone=3125550142&name='), Buffer.from([0xc0, 0xaf, 0xff]), Buffer.from('%C3%28%ZZ%')]),
    Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // a BOM, then {}
    Buffer.from('\u0000'.repeat(64)),
  ),
)

// ---------------------------------------------------------------------------------------------------
// Captured requests: the mutation fuzzer's corpus

/** Real bodies: every JSON and form body of the docs' curl examples, and what Twilio and Stripe send. */
export function corpus(): Record<Target, Buffer[]> {
  const bodies: Record<Target, Buffer[]> = { webhook: [], mcp: [], twilio: [], stripe: [] }
  for (const page of ['webhook.md', 'mcp.md', 'list-leads.md', 'get-lead.md', 'get-lead-history.md', 'get-next-actions.md', 'mark-do-not-call.md', 'place-call.md', 'request-payment.md', 'README.md']) {
    const file = path.join(ROOT, 'docs', page)
    if (!fs.existsSync(file)) continue
    const text = fs.readFileSync(file, 'utf8')
    for (const match of text.matchAll(/-d '([^']*)'/g)) {
      const body = match[1] as string
      ;(body.includes('"jsonrpc"') ? bodies.mcp : bodies.webhook).push(Buffer.from(body))
    }
    const form = [...text.matchAll(/--data-urlencode "([^"]*)"/g)].map((m) => formEncode((m[1] as string).split('=')[0] as string) + '=' + formEncode((m[1] as string).split('=').slice(1).join('=')))
    if (form.length > 0) bodies.webhook.push(Buffer.from(form.join('&')))
  }
  bodies.twilio.push(
    Buffer.from(
      new URLSearchParams({
        AccountSid: FUZZ_ENV.TWILIO_ACCOUNT_SID as string, ApiVersion: '2010-04-01', CallSid: 'CA0123456789abcdef0123456789abcdef', CallStatus: 'completed',
        CallbackSource: 'call-progress-events', Called: '+13125550142', Caller: '+13125550100', Direction: 'outbound-api', From: '+13125550100', To: '+13125550142',
        SequenceNumber: '3', Timestamp: 'Mon, 16 Nov 2026 14:05:00 +0000', CallDuration: '30', AnsweredBy: 'human',
      }).toString(),
    ),
    Buffer.from('CallSid=CA1&CallStatus=no-answer&RecordingUrl=https%3A%2F%2Fapi.twilio.com%2F2010-04-01%2FAccounts%2FAC1%2FRecordings%2FRE1&TranscriptionText=hello'),
  )
  const session = {
    id: 'cs_test_a1b2c3', object: 'checkout.session', url: 'https://checkout.stripe.com/c/pay/cs_test_a1b2c3', expires_at: 1_900_000_000, amount_total: 12_500, currency: 'usd',
    payment_status: 'paid', status: 'complete', payment_intent: 'pi_3abc',
    metadata: { leadline_lead_stream: 'lead-acc_0000000000000000-3125550142', leadline_request_id: 'pay_0000000000000000', leadline_account_id: 'acc_0000000000000000', leadline_lead_id: 'ld_0000000000000000' },
  }
  for (const type of ['checkout.session.completed', 'checkout.session.expired', 'checkout.session.async_payment_failed', 'customer.created']) {
    bodies.stripe.push(
      Buffer.from(JSON.stringify({ id: 'evt_1abc', object: 'event', account: 'acct_1Fuzz', api_version: Stripe.API_VERSION, created: 1_800_000_000, data: { object: session }, livemode: false, type })),
    )
  }
  return bodies
}

/** One edit of a captured body; positions are fractions of its length, so an edit fits any body. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), text: fc.oneof(fc.constantFrom('"', '{', '}', '[', ']', ',', ':', '\\', '%', '&', '=', '\u0000', '\\u0000', '\\ud800', '"__proto__":{"a":1},', '"constructor":{"prototype":{"a":1}},', '"phone":["3125550142"],', '"phone":3125550142,', '1e999', '-', '\r\n--fuzzb--\r\n'), fc.string({ maxLength: 8 })) }),
  fc.record({ kind: fc.constant('bytes' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('repeat' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 40 }), times: fc.integer({ min: 2, max: 2000 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), from: fc.nat(), start: fc.double({ min: 0, max: 1, noNaN: true }) }),
)
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never

export function mutate(body: Buffer, edits: readonly Mutation[], others: readonly Buffer[]): Buffer {
  let out = body
  for (const edit of edits) {
    const at = Math.min(out.length, Math.floor(edit.at * (out.length + 1)))
    switch (edit.kind) {
      case 'flip':
        if (out.length > 0) {
          out = Buffer.from(out)
          out[Math.min(at, out.length - 1)] = edit.byte
        }
        break
      case 'insert':
        out = Buffer.concat([out.subarray(0, at), Buffer.from(edit.text), out.subarray(at)])
        break
      case 'bytes':
        out = Buffer.concat([out.subarray(0, at), Buffer.from(edit.bytes), out.subarray(at)])
        break
      case 'delete':
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + edit.length)])
        break
      case 'repeat': {
        const piece = out.subarray(at, at + edit.length)
        out = Buffer.concat([out.subarray(0, at), ...Array.from({ length: edit.times }, () => piece), out.subarray(at + edit.length)])
        break
      }
      case 'truncate':
        out = out.subarray(0, at)
        break
      case 'splice': {
        const other = others[edit.from % Math.max(1, others.length)] ?? Buffer.alloc(0)
        out = Buffer.concat([out.subarray(0, at), other.subarray(Math.floor(edit.start * other.length))])
        break
      }
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------------
// Requests

function signTwilio(url: string, body: Buffer): string {
  const params = parseQuery(body.toString('utf8')) as Record<string, string | string[]>
  const defined: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(params)) if (v !== undefined) defined[k] = v
  return twilio.getExpectedTwilioSignature(TWILIO_AUTH_TOKEN, url, defined)
}

function signStripe(body: Buffer, secret: string, timestamp: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload: body.toString('utf8'), secret, timestamp })
}

/** How a request may be credentialled, for any target. */
const credential = fc.constantFrom('good', 'good', 'good', 'good', 'good', 'good', 'good', 'query', 'query', 'none', 'wrong', 'other', 'both', 'long') as fc.Arbitrary<
  'good' | 'none' | 'wrong' | 'other' | 'query' | 'both' | 'long'
>

function webhookRequest(world: FuzzWorld, body: Buffer, contentType: string | null, cred: string, note: string): FuzzRequest {
  const headers: Record<string, string> = {}
  if (contentType !== null) headers['content-type'] = contentType
  let url = PATHS.webhook
  switch (cred) {
    case 'good':
      headers['x-service-token'] = world.token
      break
    case 'wrong':
      headers['x-service-token'] = 'llwh_0000000000000000000000000000000'
      break
    case 'other':
      headers['x-service-token'] = world.otherToken
      break
    case 'query':
      url += `?token=${world.token}`
      break
    case 'both':
      url += `?token=llwh_wrong&token=${world.token}`
      break
    case 'long':
      headers['x-service-token'] = `llwh_${'a'.repeat(5000)}`
      break
  }
  return { target: 'webhook', url, headers, body, note }
}

/** Webhook requests: generated lead bodies, raw bytes and mutated real bodies, under every content type. */
export function webhookRequests(world: FuzzWorld, captured: Record<Target, Buffer[]>): fc.Arbitrary<FuzzRequest> {
  const json = (text: fc.Arbitrary<string>) => text.map((t) => Buffer.from(t))
  const webhookCorpus = captured.webhook
  return fc.oneof(
    fc.tuple(json(leadJson), fc.constantFrom('application/json', 'application/json; charset=utf-8'), credential).map(([b, ct, c]) => webhookRequest(world, b, ct, c, 'lead json')),
    fc.tuple(json(validLeadWithHostileMember), credential).map(([b, c]) => webhookRequest(world, b, 'application/json', c, 'hostile member')),
    fc.tuple(jsonValue.map((v) => Buffer.from(toJsonText(v))), fc.constantFrom(...CONTENT_TYPES), credential).map(([b, ct, c]) => webhookRequest(world, b, ct, c, 'random json')),
    fc.tuple(json(formBody), fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8', 'application/json'), credential).map(([b, ct, c]) =>
      webhookRequest(world, b, ct, c, 'form'),
    ),
    fc.tuple(leadEntries, spreadPhone, credential).map(([entries, phone, c]) =>
      webhookRequest(world, Buffer.from(multipartBody([['phone', phone], ...entries], 'fuzzb')), 'multipart/form-data; boundary=fuzzb', c, 'multipart'),
    ),
    fc.tuple(rawBytes, fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: null }), credential).map(([b, ct, c]) => webhookRequest(world, b, ct, c, 'raw bytes')),
    fc.tuple(fc.constantFrom(...webhookCorpus), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.constantFrom(...CONTENT_TYPES.slice(0, 7)), credential).map(([b, edits, ct, c]) =>
      webhookRequest(world, mutate(b, edits, webhookCorpus), ct.startsWith('application/x-www') && b[0] === 0x7b ? 'application/json' : ct, c, 'mutated capture'),
    ),
  )
}

const TOOL_NAMES = ['get_next_actions', 'list_leads', 'get_lead', 'get_lead_history', 'mark_do_not_call', 'place_call', 'request_payment', 'send_sms', 'nope', '__proto__', 'constructor', '']
const ARG_NAMES = ['phone', 'lead_id', 'name', 'limit', 'cursor', 'since', 'source', 'vendor', 'do_not_call', 'idempotency_key', 'dry_run', 'amountCents', 'description', '__proto__', 'constructor', 'prototype']

/** Tool-endpoint requests: JSON-RPC envelopes with random methods, tools and arguments, batches, garbage. */
export function mcpRequests(world: FuzzWorld, captured: Record<Target, Buffer[]>): fc.Arbitrary<FuzzRequest> {
  const argValue = fc.oneof(jsonValue, fc.constantFrom(...world.leadIds, ...world.phones, 'ld_0000000000000000'), fc.boolean())
  const args = fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.tuple(fc.constantFrom(...ARG_NAMES), argValue), { maxLength: 6 }).map((entries) => rawObject(entries)) },
    fc.array(fc.tuple(fc.constantFrom(...ARG_NAMES), argValue), { maxLength: 6 }).map((entries) => rawObject(entries)),
    jsonValue,
  )
  const message = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({ name: fc.constantFrom(...TOOL_NAMES), args, id: fc.oneof({ weight: 8, arbitrary: fc.integer() }, fc.string(), fc.constant(null), jsonValue) }).map(({ name, args: a, id }) =>
        rawObject([['jsonrpc', '2.0'], ['id', id], ['method', 'tools/call'], ['params', rawObject([['name', name], ['arguments', a]])]]),
      ),
    },
    fc.record({ method: fc.oneof(fc.constantFrom('tools/list', 'initialize', 'ping', 'notifications/initialized', 'tools/call', '__proto__', 'constructor'), fc.string()), params: jsonValue, id: jsonValue }).map(
      ({ method, params, id }) => rawObject([['jsonrpc', '2.0'], ['id', id], ['method', method], ['params', params]]),
    ),
    jsonValue,
  )
  const body = fc.oneof(
    { weight: 6, arbitrary: message.map((m) => Buffer.from(toJsonText(m))) },
    { weight: 2, arbitrary: fc.array(message, { maxLength: 25 }).map((ms) => Buffer.from(toJsonText(ms))) },
    rawBytes,
    fc.integer({ min: 1, max: 20_000 }).map((d) => Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_lead","arguments":{"phone":${nested(d, 'array', '"3125550142"')}}}}`)),
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...captured.mcp), fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([b, edits]) => mutate(b, edits, captured.mcp)) },
  )
  const auth = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...world.keys).map((k) => `Bearer ${k}`) },
    fc.constantFrom(undefined, '', 'Bearer', 'Bearer ll_live_0000', `Basic ${Buffer.from('a:b').toString('base64')}`, `Bearer ${world.token}`, `Bearer ll_live_${'z'.repeat(5000)}`),
  )
  const contentType = fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: null }))
  const version = fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, fc.constantFrom('2025-06-18', '2025-03-26'), fc.constantFrom('bogus', ''))
  return fc.tuple(body, auth, contentType, version).map(([b, a, ct, version]) => {
    const headers: Record<string, string> = {}
    if (a !== undefined) headers.authorization = a
    if (ct !== null) headers['content-type'] = ct
    if (version !== null) headers['mcp-protocol-version'] = version
    return { target: 'mcp', url: PATHS.mcp, headers, body: b, note: 'json-rpc' }
  })
}

/** Twilio status callbacks: mutated real ones, signed (over what Leadline will parse) or forged. */
export function twilioRequests(captured: Record<Target, Buffer[]>): fc.Arbitrary<FuzzRequest> {
  const body = fc.oneof(
    fc.tuple(fc.constantFrom(...captured.twilio), fc.array(mutation, { maxLength: 4 })).map(([b, edits]) => mutate(b, edits, captured.twilio)),
    formBody.map((f) => Buffer.from(f)),
    rawBytes,
  )
  return fc
    .tuple(body, fc.constantFrom('signed', 'signed', 'forged', 'missing', 'other-url'), fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'application/json', 'text/plain', ''), fc.constantFrom('', '?decision=x', '?a=1&a=2'))
    .map(([b, signature, ct, query]) => {
      const url = `${PATHS.twilio}${query}`
      const headers: Record<string, string> = {}
      if (ct !== '') headers['content-type'] = ct
      if (signature === 'signed') headers['x-twilio-signature'] = signTwilio(`${PUBLIC_URL}${url}`, b)
      if (signature === 'forged') headers['x-twilio-signature'] = signTwilio(`${PUBLIC_URL}${url}`, Buffer.concat([b, Buffer.from('&x=1')])).replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))
      if (signature === 'other-url') headers['x-twilio-signature'] = signTwilio(`http://attacker.example${url}`, b)
      return { target: 'twilio', url, headers, body: b, note: `twilio ${signature}`, refused: signature !== 'signed' }
    })
}

/** Stripe webhooks: mutated real events, signed now, signed long ago (a replay), with the wrong secret, or not at all. */
export function stripeRequests(captured: Record<Target, Buffer[]>): fc.Arbitrary<FuzzRequest> {
  const body = fc.oneof(
    fc.tuple(fc.constantFrom(...captured.stripe), fc.array(mutation, { maxLength: 4 })).map(([b, edits]) => mutate(b, edits, captured.stripe)),
    jsonValue.map((v) => Buffer.from(toJsonText(v))),
    rawBytes,
  )
  return fc
    .tuple(body, fc.constantFrom('signed', 'signed', 'stale', 'future', 'wrong-secret', 'garbage', 'missing'), fc.constantFrom('application/json; charset=utf-8', 'application/json', 'text/plain', ''))
    .map(([b, signature, ct]) => {
      const now = Math.floor(Date.now() / 1000)
      const headers: Record<string, string> = {}
      if (ct !== '') headers['content-type'] = ct
      if (signature === 'signed') headers['stripe-signature'] = signStripe(b, STRIPE_WEBHOOK_SECRET, now)
      if (signature === 'stale') headers['stripe-signature'] = signStripe(b, STRIPE_WEBHOOK_SECRET, now - 3600)
      if (signature === 'future') headers['stripe-signature'] = signStripe(b, STRIPE_WEBHOOK_SECRET, now + 3600)
      if (signature === 'wrong-secret') headers['stripe-signature'] = signStripe(b, 'whsec_notTheSecret000000', now)
      if (signature === 'garbage') headers['stripe-signature'] = `t=${now},v1=${'0'.repeat(64)},v0=x`
      return { target: 'stripe', url: PATHS.stripe, headers, body: b, note: `stripe ${signature}`, refused: signature !== 'signed' }
    })
}

export function requestsFor(target: Target, world: FuzzWorld, captured: Record<Target, Buffer[]>): fc.Arbitrary<FuzzRequest> {
  switch (target) {
    case 'webhook':
      return webhookRequests(world, captured)
    case 'mcp':
      return mcpRequests(world, captured)
    case 'twilio':
      return twilioRequests(captured)
    case 'stripe':
      return stripeRequests(captured)
  }
}

/** The heap after a full collection, in MiB (forcing one even without --expose-gc). */
export async function settledHeapMb(): Promise<number> {
  const { setFlagsFromString } = await import('node:v8')
  const { runInNewContext } = await import('node:vm')
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  gc()
  gc()
  return process.memoryUsage().heapUsed / 1024 / 1024
}
