/**
 * TEST DOUBLE: a fake Twilio REST API on 127.0.0.1, driven by the real `twilio` SDK through
 * `TWILIO_API_URL` / `createTwilioCarrier({ apiUrl })`. Not a mock of our code: it is an HTTP server
 * that behaves like the parts of Twilio Leadline uses.
 *
 * Twilio behaviours it models:
 * - `POST /2010-04-01/Accounts/{AccountSid}/Calls.json` and `/Messages.json`, form-encoded bodies,
 *   `201 Created` with Twilio-shaped JSON (`sid` = `CA`/`SM` + 32 hex, `status: "queued"`, dates in RFC 2822).
 *   A call's async AMD parameters (`MachineDetection`, `AsyncAmd`, `AsyncAmdStatusCallback…`) are noted.
 * - The call update, `POST /2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json` with `Twiml` (or `Url`,
 *   `Status`): `200` with the call; `404` (20404) for a call it did not create. Faults apply as to a create.
 * - HTTP Basic auth against the configured Account SID / Auth Token: `401` with error 20003; a path
 *   naming another account: `404` with error 20404 (as Twilio answers for resources you cannot see).
 * - Parameter checks: missing To (21201), missing From (21213), invalid To (21211, not E.164),
 *   call without Url/Twiml/ApplicationSid (21205), text without Body (21602), text with neither From nor
 *   MessagingServiceSid (21603), a MessagingServiceSid not shaped `MG` + 32 hex (21701). A text through a
 *   Messaging Service is recorded with its `MessagingServiceSid` (`messageRequests()`) and answers with
 *   `messaging_service_sid` set and `from` null, as Twilio does before it picks the sender.
 * - The number lists, `GET /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json` (the account's own
 *   numbers) and `…/OutgoingCallerIds.json` (its verified caller IDs), filtered by `PhoneNumber` as Twilio
 *   does (a partial number matches, `*` stands for any digit), one page of `PageSize` (default 50) in
 *   Twilio's list shape: `{ incoming_phone_numbers | outgoing_caller_ids: [...], page, page_size, uri, … }`.
 *   The account holds the numbers given as `incomingNumbers` and `verifiedCallerIds` (none by default).
 * - Errors use Twilio's legacy error body: `{ code, message, more_info, status }`.
 * Faults, programmed for the next request(s): any status + Twilio error body (429 with `Retry-After`,
 * 400/21211, 500 …), a raw answer (a load balancer's HTML 502, a non-JSON 200), a delay before
 * answering (client timeouts), or destroying the socket after the request was read and the call
 * created (the call was placed, no answer came back).
 * It also signs callbacks the way Twilio does (`X-Twilio-Signature`, via the SDK) and posts them: status
 * callbacks, fetching a call's answer URL, async AMD's verdict, a `<Gather>`'s keys and a `<Dial>`'s end
 * (the last two read the action URL from the TwiML Leadline answered).
 *
 * Not modelled: idempotency, call progress (it never calls the status callback on its own), pagination
 * past the first page.
 */
import { createHash, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import twilio from 'twilio'

export const FAKE_ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`
export const FAKE_AUTH_TOKEN = 'fake-twilio-auth-token-0123456789'

export type FormFields = Record<string, string | string[]>

export interface RecordedRequest {
  method: string
  /** Path and query as received (after any base path). */
  path: string
  headers: http.IncomingHttpHeaders
  /** The form body; repeated keys (StatusCallbackEvent) become arrays. */
  form: FormFields
  /** Arrival time, ms since the epoch. */
  receivedAt: number
  /** What the fake did with it. */
  outcome: 'created' | 'updated' | 'listed' | 'fault' | 'unauthorized' | 'invalid' | 'not_found'
  /** The status it answered with (undefined when the socket was destroyed). */
  status?: number
  /** The resource it created (or the call it updated), when it did. */
  sid?: string
  /** A created call's async AMD parameters, when it asked for machine detection. */
  amd?: AmdParams
}

/** A call's machine detection parameters, as the SDK sent them. */
export interface AmdParams {
  machineDetection: string
  asyncAmd?: string
  asyncAmdStatusCallback?: string
  asyncAmdStatusCallbackMethod?: string
}

/** Where a signed callback goes: to `via` (the listening app's origin) instead of the public URL's origin, which is what is signed. */
export interface CallbackDelivery {
  via?: string
  forged?: boolean
}

export type FakeTwilioFault =
  /** Answer with this status and a Twilio error body; nothing is created. */
  | { kind: 'status'; status: number; code?: number; message?: string; headers?: Record<string, string> }
  /** Answer with exactly this status and body (a proxy's HTML error page, a non-JSON 2xx …); nothing is created. */
  | { kind: 'raw'; status: number; body: string; contentType?: string }
  /** Wait, then behave normally (the resource IS created): for client timeouts. */
  | { kind: 'delay'; ms: number }
  /** Read the whole request, create the resource, then destroy the socket without answering. */
  | { kind: 'destroy' }

export interface FakeTwilioOptions {
  accountSid?: string
  authToken?: string
  /** Serve under this base path (e.g. `/api/laml`), like a Twilio-compatible carrier. */
  basePath?: string
  /** The account's own phone numbers (IncomingPhoneNumbers), E.164. */
  incomingNumbers?: readonly string[]
  /** The account's verified outgoing caller IDs (OutgoingCallerIds), E.164. */
  verifiedCallerIds?: readonly string[]
}

export interface SignedPostResult {
  status: number
  body: string
  signature: string
}

export interface FakeTwilio {
  /** Base URL to use as `apiUrl` / `TWILIO_API_URL` (includes the base path). */
  readonly url: string
  readonly accountSid: string
  readonly authToken: string
  /** Every request, in arrival order. */
  requests(): RecordedRequest[]
  /** Requests that reached `Calls.json` (whatever happened to them). */
  callRequests(): RecordedRequest[]
  /** Requests that reached `Messages.json`. */
  messageRequests(): RecordedRequest[]
  /** Requests that reached `IncomingPhoneNumbers.json` or `OutgoingCallerIds.json`. */
  numberListRequests(): RecordedRequest[]
  /** The account buys (or ports in) `number`: from now on it is one of its IncomingPhoneNumbers. */
  addIncomingNumber(number: string): void
  /** A caller left a voicemail on call `callSid`: `GET Recordings.json?CallSid=` lists it and `Recordings/{Sid}.mp3` serves `audio`. Returns its sid. */
  addRecording(callSid: string, audio: Uint8Array, durationSeconds?: number): string
  /** Requests that reached `Calls/{Sid}.json` (call updates), of one call when `sid` is given. */
  callUpdates(sid?: string): RecordedRequest[]
  /** Applies `fault` to each of the next `times` API requests (queued after any already programmed). */
  failNext(fault: FakeTwilioFault, times?: number): void
  /** Resolves once `n` requests have reached `Calls.json`; rejects after `timeoutMs`. */
  waitForCalls(n: number, timeoutMs?: number): Promise<RecordedRequest[]>
  /** POSTs `params` to `url` with the signature Twilio would send (or a forged one), like a status callback. */
  postStatusCallback(url: string, params: FormFields, options?: { forged?: boolean; signedUrl?: string }): Promise<SignedPostResult>
  /** Fetches the answer TwiML of a call it created, as Twilio does once the call is answered (POST to its `Url`). */
  answerCall(sid: string, options?: CallbackDelivery): Promise<SignedPostResult>
  /** Posts async AMD's verdict (`AnsweredBy`) on a call it created to that call's `AsyncAmdStatusCallback`. */
  postAmdCallback(sid: string, answeredBy: string, options?: CallbackDelivery): Promise<SignedPostResult>
  /** The lead pressed `digits` (empty: none) in the `<Gather>` of `twiml`: posts them to its action URL. */
  pressKeys(sid: string, twiml: string, digits: string, options?: CallbackDelivery): Promise<SignedPostResult>
  /** The `<Dial>` of `twiml` ended (`DialCallStatus`, `DialCallDuration`): posts that to its action URL. */
  endDial(sid: string, twiml: string, dial: { status: string; durationSeconds?: number }, options?: CallbackDelivery): Promise<SignedPostResult>
  close(): Promise<void>
}

export function twilioErrorBody(status: number, code: number, message: string): Record<string, unknown> {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }
}

/** Realistic call status callback fields, as Twilio posts them to `StatusCallback`. */
export function statusCallbackParams(fields: {
  callSid: string
  status: string
  from?: string
  to?: string
  sequenceNumber?: number
  timestamp?: Date
  accountSid?: string
  extra?: Record<string, string>
}): Record<string, string> {
  const from = fields.from ?? '+15005550006'
  const to = fields.to ?? '+14155550100'
  return {
    AccountSid: fields.accountSid ?? FAKE_ACCOUNT_SID,
    ApiVersion: '2010-04-01',
    CallSid: fields.callSid,
    CallStatus: fields.status,
    CallbackSource: 'call-progress-events',
    Called: to,
    Caller: from,
    Direction: 'outbound-api',
    From: from,
    To: to,
    SequenceNumber: String(fields.sequenceNumber ?? 0),
    Timestamp: rfc2822(fields.timestamp ?? new Date()),
    ...fields.extra,
  }
}

/** Async AMD's verdict as Twilio posts it to `AsyncAmdStatusCallback`. */
export function amdCallbackParams(fields: { callSid: string; answeredBy: string; accountSid?: string }): Record<string, string> {
  return {
    AccountSid: fields.accountSid ?? FAKE_ACCOUNT_SID,
    AnsweredBy: fields.answeredBy,
    CallSid: fields.callSid,
    MachineDetectionDuration: fields.answeredBy === 'human' ? '1200' : '4800',
  }
}

/** The attribute `name` of the first `<element …>` in `twiml`, unescaped; undefined when absent. */
export function twimlAttribute(twiml: string, element: string, name: string): string | undefined {
  const tag = new RegExp(`<${element}\\b[^>]*>`).exec(twiml)?.[0]
  const value = tag === undefined ? undefined : new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]
  return value?.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&apos;/g, "'").replace(/&amp;/g, '&')
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeTwilio(options: FakeTwilioOptions = {}): Promise<FakeTwilio> {
  const accountSid = options.accountSid ?? FAKE_ACCOUNT_SID
  const authToken = options.authToken ?? FAKE_AUTH_TOKEN
  const basePath = (options.basePath ?? '').replace(/\/+$/, '')
  const recorded: RecordedRequest[] = []
  const faults: FakeTwilioFault[] = []
  const timers = new Set<NodeJS.Timeout>()
  const waiters = new Set<() => void>()
  /** The form each created call was created with, by sid: where its callbacks go. */
  const calls = new Map<string, FormFields>()
  const incomingNumbers = [...(options.incomingNumbers ?? [])]
  /** Voicemails by recording sid: the call they were left on and their audio. */
  const recordings = new Map<string, { callSid: string; audio: Uint8Array; duration: number }>()
  const verifiedCallerIds = [...(options.verifiedCallerIds ?? [])]

  function notify(): void {
    for (const waiter of [...waiters]) waiter()
  }

  function later(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        resolve()
      }, ms)
      timers.add(timer)
    })
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      void handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, twilioErrorBody(500, 20500, `fake twilio crashed: ${String(error)}`))
      })
    })
  })

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      form: parseForm(body),
      receivedAt: Date.now(),
      outcome: 'not_found',
    }
    recorded.push(entry)
    notify()

    const path = new URL(entry.path, 'http://fake').pathname
    const route = basePath !== '' && !path.startsWith(`${basePath}/`) ? null : path.slice(basePath.length)
    const match = route === null ? null : /^\/2010-04-01\/Accounts\/([^/]+)\/(Calls|Messages)(?:\/([^/]+))?\.json$/.exec(route)

    if (!authorized(req.headers.authorization, accountSid, authToken)) {
      entry.outcome = 'unauthorized'
      return answer(entry, res, 401, {
        code: 20003,
        detail: 'Your AccountSid or AuthToken was incorrect.',
        message: 'Authenticate',
        more_info: 'https://www.twilio.com/docs/errors/20003',
        status: 401,
      })
    }
    const recording = route === null || entry.method !== 'GET' ? null : /^\/2010-04-01\/Accounts\/([^/]+)\/Recordings(?:\/(RE[0-9a-f]{32}))?\.(json|mp3)$/.exec(route)
    if (recording !== null && recording[1] === accountSid) return serveRecording(entry, res, recording[2], recording[3] as string)
    const list = route === null ? null : /^\/2010-04-01\/Accounts\/([^/]+)\/(IncomingPhoneNumbers|OutgoingCallerIds)\.json$/.exec(route)
    const updated = match?.[3]
    const listing = list !== null && entry.method === 'GET' && list[1] === accountSid
    const notFound = !listing && (match === null || entry.method !== 'POST' || match[1] !== accountSid || (updated !== undefined && (match[2] !== 'Calls' || !calls.has(updated))))
    if (notFound) return answer(entry, res, 404, twilioErrorBody(404, 20404, `The requested resource ${path} was not found`))

    const fault = faults.shift()
    if (fault?.kind === 'status') {
      entry.outcome = 'fault'
      const message = fault.message ?? defaultFaultMessage(fault.status)
      return answer(entry, res, fault.status, twilioErrorBody(fault.status, fault.code ?? defaultFaultCode(fault.status), message), fault.headers)
    }
    if (fault?.kind === 'raw') {
      entry.outcome = 'fault'
      entry.status = fault.status
      notify()
      res.writeHead(fault.status, { 'content-type': fault.contentType ?? 'text/html', 'content-length': Buffer.byteLength(fault.body) })
      res.end(fault.body)
      return
    }
    if (fault?.kind === 'delay') await later(fault.ms)

    if (listing) {
      entry.outcome = 'listed'
      const query = new URL(entry.path, 'http://fake').searchParams
      const incoming = list[2] === 'IncomingPhoneNumbers'
      return answer(entry, res, 200, numberListJson(accountSid, incoming, incoming ? incomingNumbers : verifiedCallerIds, query))
    }
    if (match === null) return
    if (updated !== undefined) return updateCall(req, res, entry, updated, fault)
    const kind = match[2] === 'Calls' ? 'call' : 'message'
    const problem = kind === 'call' ? checkCall(entry.form) : checkMessage(entry.form)
    if (problem !== null) {
      entry.outcome = 'invalid'
      return answer(entry, res, 400, twilioErrorBody(400, problem.code, problem.message))
    }

    const sid = (kind === 'call' ? 'CA' : 'SM') + randomBytes(16).toString('hex')
    entry.sid = sid
    entry.outcome = 'created'
    if (kind === 'call') {
      calls.set(sid, entry.form)
      const amd = amdParams(entry.form)
      if (amd !== undefined) entry.amd = amd
    }
    if (fault?.kind === 'destroy') {
      entry.outcome = 'fault'
      notify()
      req.socket.destroy()
      return
    }
    return answer(entry, res, 201, kind === 'call' ? callJson(accountSid, sid, entry.form) : messageJson(accountSid, sid, entry.form))
  }

  /** Twilio's call update: the live call now follows the posted TwiML (or URL, or status). */
  function updateCall(req: http.IncomingMessage, res: http.ServerResponse, entry: RecordedRequest, sid: string, fault: FakeTwilioFault | undefined): void {
    const form = entry.form
    if (single(form, 'Twiml') === undefined && single(form, 'Url') === undefined && single(form, 'Status') === undefined) {
      entry.outcome = 'invalid'
      return answer(entry, res, 400, twilioErrorBody(400, 21205, 'Url, Twiml or Status is required to update a call.'))
    }
    entry.sid = sid
    entry.outcome = 'updated'
    if (fault?.kind === 'destroy') {
      // The call was updated, but no answer comes back.
      entry.outcome = 'fault'
      notify()
      req.socket.destroy()
      return
    }
    const created = calls.get(sid) as FormFields
    return answer(entry, res, 200, { ...callJson(accountSid, sid, created), status: single(form, 'Status') ?? 'in-progress' })
  }

  /** POSTs `params` signed over `url` to `url`, or to the same path and query at `delivery.via`. */
  function deliver(url: string, params: FormFields, delivery: CallbackDelivery = {}): Promise<SignedPostResult> {
    const target = new URL(url)
    const to = delivery.via === undefined ? url : `${delivery.via.replace(/\/+$/, '')}${target.pathname}${target.search}`
    return postSigned(to, params, { signedUrl: url, ...(delivery.forged ? { forged: true } : {}) })
  }

  async function postSigned(url: string, params: FormFields, postOptions: { forged?: boolean; signedUrl?: string } = {}): Promise<SignedPostResult> {
    const token = postOptions.forged ? `${authToken}-forged` : authToken
    const signature = twilio.getExpectedTwilioSignature(token, postOptions.signedUrl ?? url, params)
    const form = new URLSearchParams()
    for (const [key, value] of Object.entries(params)) {
      for (const v of Array.isArray(value) ? value : [value]) form.append(key, v)
    }
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'TwilioProxy/1.1',
        'x-twilio-signature': signature,
      },
      body: form.toString(),
    })
    return { status: response.status, body: await response.text(), signature }
  }

  /** The form a call was created with; throws for a sid the fake did not create. */
  function createdCall(sid: string): FormFields {
    const form = calls.get(sid)
    if (form === undefined) throw new Error(`fake twilio: no call ${sid} was created`)
    return form
  }

  /** The fields Twilio posts with every request about a call in progress. */
  function liveCallParams(sid: string): Record<string, string> {
    const form = createdCall(sid)
    return statusCallbackParams({ callSid: sid, status: 'in-progress', accountSid, from: single(form, 'From') ?? '', to: single(form, 'To') ?? '' })
  }

  function actionOf(twiml: string, element: string): string {
    const action = twimlAttribute(twiml, element, 'action')
    if (action === undefined) throw new Error(`fake twilio: no <${element} action=…> in ${twiml}`)
    return action
  }

  /** `Recordings.json?CallSid=` (a page, as the SDK's list reads it) or one recording's `.mp3`. */
  function serveRecording(entry: RecordedRequest, res: http.ServerResponse, sid: string | undefined, extension: string): void {
    if (sid === undefined && extension === 'json') {
      entry.outcome = 'listed'
      const callSid = new URL(entry.path, 'http://fake').searchParams.get('CallSid')
      const uri = `/2010-04-01/Accounts/${accountSid}/Recordings.json`
      const found = [...recordings].filter(([, r]) => callSid === null || r.callSid === callSid).map(([recordingSid, r]) => ({
        sid: recordingSid, account_sid: accountSid, call_sid: r.callSid, duration: String(r.duration), status: 'completed', channels: 1, source: 'RecordVerb',
        media_url: `https://api.twilio.com/2010-04-01/Accounts/${accountSid}/Recordings/${recordingSid}`, uri: `/2010-04-01/Accounts/${accountSid}/Recordings/${recordingSid}.json`,
      }))
      return answer(entry, res, 200, { recordings: found, page: 0, page_size: 50, start: 0, end: found.length, uri, first_page_uri: uri, next_page_uri: null, previous_page_uri: null })
    }
    const found = sid === undefined ? undefined : recordings.get(sid)
    if (found === undefined || extension !== 'mp3') return answer(entry, res, 404, twilioErrorBody(404, 20404, `The requested resource ${entry.path} was not found`))
    entry.outcome = 'listed'
    entry.status = 200
    notify()
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': found.audio.byteLength })
    res.end(Buffer.from(found.audio))
  }

  function answer(
    entry: RecordedRequest,
    res: http.ServerResponse,
    status: number,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): void {
    entry.status = status
    notify()
    send(res, status, body, headers)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    accountSid,
    authToken,
    requests: () => [...recorded],
    callRequests: () => recorded.filter((r) => r.path.endsWith('/Calls.json')),
    numberListRequests: () => recorded.filter((r) => /\/(IncomingPhoneNumbers|OutgoingCallerIds)\.json(\?|$)/.test(r.path)),
    addRecording(callSid, audio, durationSeconds = 1) {
      const sid = `RE${randomBytes(16).toString('hex')}`
      recordings.set(sid, { callSid, audio, duration: durationSeconds })
      return sid
    },
    addIncomingNumber(number) {
      incomingNumbers.push(number)
    },
    messageRequests: () => recorded.filter((r) => r.path.endsWith('/Messages.json')),
    callUpdates: (sid) => recorded.filter((r) => /\/Calls\/[^/]+\.json$/.test(r.path) && (sid === undefined || r.path.endsWith(`/Calls/${sid}.json`))),
    failNext(fault, times = 1) {
      for (let i = 0; i < times; i++) faults.push(fault)
    },
    waitForCalls(n, timeoutMs = 30_000) {
      const calls = () => recorded.filter((r) => r.path.endsWith('/Calls.json'))
      if (calls().length >= n) return Promise.resolve(calls())
      return new Promise((resolve, reject) => {
        const check = () => {
          if (calls().length < n) return
          cleanup()
          resolve(calls())
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`fake twilio: expected ${n} call request(s) within ${timeoutMs} ms, got ${calls().length}`))
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
      })
    },
    postStatusCallback: postSigned,
    answerCall(sid, delivery) {
      const url = single(createdCall(sid), 'Url')
      if (url === undefined) throw new Error(`fake twilio: call ${sid} has no answer Url`)
      return deliver(url, liveCallParams(sid), delivery)
    },
    postAmdCallback(sid, answeredBy, delivery) {
      const url = single(createdCall(sid), 'AsyncAmdStatusCallback')
      if (url === undefined) throw new Error(`fake twilio: call ${sid} did not ask for async machine detection`)
      return deliver(url, amdCallbackParams({ callSid: sid, answeredBy, accountSid }), delivery)
    },
    pressKeys(sid, twiml, digits, delivery) {
      const params: Record<string, string> = { ...liveCallParams(sid), ...(digits === '' ? {} : { Digits: digits, FinishedOnKey: '' }) }
      return deliver(actionOf(twiml, 'Gather'), params, delivery)
    },
    endDial(sid, twiml, dial, delivery) {
      const params: Record<string, string> = {
        ...liveCallParams(sid),
        DialCallSid: `CA${randomBytes(16).toString('hex')}`,
        DialCallStatus: dial.status,
        ...(dial.durationSeconds !== undefined ? { DialCallDuration: String(dial.durationSeconds) } : {}),
      }
      return deliver(actionOf(twiml, 'Dial'), params, delivery)
    },
    async close() {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function parseForm(body: string): FormFields {
  const form: FormFields = {}
  const params = new URLSearchParams(body)
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key)
    form[key] = values.length === 1 ? (values[0] as string) : values
  }
  return form
}

function authorized(header: string | undefined, sid: string, token: string): boolean {
  if (header === undefined || !header.startsWith('Basic ')) return false
  return Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8') === `${sid}:${token}`
}

function single(form: FormFields, key: string): string | undefined {
  const value = form[key]
  return Array.isArray(value) ? value[0] : value
}

const E164 = /^\+[1-9]\d{6,14}$/

function checkCall(form: FormFields): { code: number; message: string } | null {
  const to = single(form, 'To')
  const from = single(form, 'From')
  if (to === undefined || to === '') return { code: 21201, message: "No 'To' number is specified" }
  if (from === undefined || from === '') return { code: 21213, message: "No 'From' number is specified" }
  if (!E164.test(to)) return { code: 21211, message: `Invalid 'To' Phone Number: ${to}` }
  if (single(form, 'Url') === undefined && single(form, 'Twiml') === undefined && single(form, 'ApplicationSid') === undefined) {
    return { code: 21205, message: 'Url parameter is required.' }
  }
  return null
}

function amdParams(form: FormFields): AmdParams | undefined {
  const machineDetection = single(form, 'MachineDetection')
  if (machineDetection === undefined) return undefined
  const amd: AmdParams = { machineDetection }
  const asyncAmd = single(form, 'AsyncAmd')
  const callback = single(form, 'AsyncAmdStatusCallback')
  const method = single(form, 'AsyncAmdStatusCallbackMethod')
  if (asyncAmd !== undefined) amd.asyncAmd = asyncAmd
  if (callback !== undefined) amd.asyncAmdStatusCallback = callback
  if (method !== undefined) amd.asyncAmdStatusCallbackMethod = method
  return amd
}

function checkMessage(form: FormFields): { code: number; message: string } | null {
  const to = single(form, 'To')
  if (to === undefined || to === '') return { code: 21604, message: "A 'To' phone number is required." }
  // Twilio takes a sender number or a Messaging Service that picks one.
  const service = single(form, 'MessagingServiceSid')
  if (single(form, 'From') === undefined && service === undefined) return { code: 21603, message: "A 'From' phone number is required." }
  if (service !== undefined && !/^MG[0-9a-f]{32}$/.test(service)) return { code: 21701, message: `The Messaging Service ${service} does not exist` }
  if (!E164.test(to)) return { code: 21211, message: `The 'To' number ${to} is not a valid phone number.` }
  if ((single(form, 'Body') ?? '') === '') return { code: 21602, message: 'Message body is required.' }
  return null
}

function defaultFaultCode(status: number): number {
  if (status === 429) return 20429
  if (status >= 500) return 20500
  return 20001
}

function defaultFaultMessage(status: number): string {
  if (status === 429) return 'Too Many Requests'
  if (status === 503) return 'Service Unavailable'
  if (status >= 500) return 'Internal Server Error'
  return 'Bad Request'
}

function callJson(accountSid: string, sid: string, form: FormFields): Record<string, unknown> {
  const now = rfc2822(new Date())
  const uri = `/2010-04-01/Accounts/${accountSid}/Calls/${sid}.json`
  return {
    account_sid: accountSid,
    annotation: null,
    answered_by: null,
    api_version: '2010-04-01',
    caller_name: null,
    date_created: now,
    date_updated: now,
    direction: 'outbound-api',
    duration: null,
    end_time: null,
    forwarded_from: null,
    from: single(form, 'From'),
    from_formatted: single(form, 'From'),
    group_sid: null,
    parent_call_sid: null,
    phone_number_sid: `PN${'0'.repeat(32)}`,
    price: null,
    price_unit: 'USD',
    queue_time: '0',
    sid,
    start_time: null,
    status: 'queued',
    subresource_uris: {
      notifications: uri.replace('.json', '/Notifications.json'),
      recordings: uri.replace('.json', '/Recordings.json'),
    },
    to: single(form, 'To'),
    to_formatted: single(form, 'To'),
    trunk_sid: null,
    uri,
  }
}

function messageJson(accountSid: string, sid: string, form: FormFields): Record<string, unknown> {
  const now = rfc2822(new Date())
  return {
    account_sid: accountSid,
    api_version: '2010-04-01',
    body: single(form, 'Body'),
    date_created: now,
    date_sent: null,
    date_updated: now,
    direction: 'outbound-api',
    error_code: null,
    error_message: null,
    from: single(form, 'From') ?? null,
    messaging_service_sid: single(form, 'MessagingServiceSid') ?? null,
    num_media: '0',
    num_segments: '1',
    price: null,
    price_unit: 'USD',
    sid,
    status: 'queued',
    subresource_uris: { media: `/2010-04-01/Accounts/${accountSid}/Messages/${sid}/Media.json` },
    to: single(form, 'To'),
    uri: `/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`,
  }
}

/** Twilio's `PhoneNumber` filter: a partial number matches anywhere, `*` is any digit. */
function matchesFilter(number: string, filter: string | null): boolean {
  if (filter === null || filter === '') return true
  const pattern = filter.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '*' ? '\\d' : `\\${c}`))
  return new RegExp(pattern).test(number)
}

/** One page of IncomingPhoneNumbers or OutgoingCallerIds, in Twilio's list shape. */
function numberListJson(accountSid: string, incoming: boolean, numbers: readonly string[], query: URLSearchParams): Record<string, unknown> {
  const pageSize = Math.min(1000, Math.max(1, Number(query.get('PageSize') ?? 50) || 50))
  const resource = incoming ? 'IncomingPhoneNumbers' : 'OutgoingCallerIds'
  const base = `/2010-04-01/Accounts/${accountSid}/${resource}.json`
  const uri = `${base}?${query.toString()}`
  const now = rfc2822(new Date())
  const items = numbers.filter((n) => matchesFilter(n, query.get('PhoneNumber'))).slice(0, pageSize).map((number) => {
    const sid = `PN${createHash('md5').update(`${resource}:${number}`).digest('hex')}`
    const common = { account_sid: accountSid, date_created: now, date_updated: now, friendly_name: formatted(number), phone_number: number, sid, uri: `${base.replace('.json', '')}/${sid}.json` }
    if (!incoming) return common
    return {
      ...common,
      address_requirements: 'none', address_sid: null, api_version: '2010-04-01', beta: false, bundle_sid: null,
      capabilities: { fax: false, mms: true, sms: true, voice: true }, emergency_address_sid: null, emergency_address_status: 'unregistered',
      emergency_status: 'Inactive', identity_sid: null, origin: 'twilio', sms_application_sid: '', sms_fallback_method: 'POST', sms_fallback_url: '',
      sms_method: 'POST', sms_url: '', status: 'in-use', status_callback: '', status_callback_method: 'POST', trunk_sid: null, voice_application_sid: '',
      voice_caller_id_lookup: false, voice_fallback_method: 'POST', voice_fallback_url: '', voice_method: 'POST', voice_receive_mode: 'voice', voice_url: '',
      subresource_uris: { assigned_add_ons: `${base.replace('.json', '')}/${sid}/AssignedAddOns.json` },
    }
  })
  return {
    [incoming ? 'incoming_phone_numbers' : 'outgoing_caller_ids']: items,
    end: Math.max(0, items.length - 1), first_page_uri: uri, next_page_uri: null, page: 0, page_size: pageSize, previous_page_uri: null, start: 0, uri,
  }
}

/** Twilio's friendly name of a North American number, `(312) 555-0100`; others as given. */
function formatted(number: string): string {
  const nanp = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number)
  return nanp === null ? number : `(${nanp[1]}) ${nanp[2]}-${nanp[3]}`
}

function send(res: http.ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'twilio-request-id': `RQ${randomBytes(16).toString('hex')}`,
    ...headers,
  })
  res.end(text)
}

/** Twilio's date format: `Tue, 04 Aug 2020 21:55:13 +0000`. */
export function rfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000')
}

/** The environment that makes openCarrier pick the Twilio adapter, aimed at this fake. */
export function twilioEnv(fake: Pick<FakeTwilio, 'accountSid' | 'authToken' | 'url'>): NodeJS.ProcessEnv {
  return { TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_API_URL: fake.url }
}
