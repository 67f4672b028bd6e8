/**
 * The Twilio adapter through the real `twilio` SDK against the fake Twilio server on 127.0.0.1.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { Test } from 'tap'
import { CarrierError, isRetryableCarrierFailure } from '../../../src/integrations/carrier/carrier.port.ts'
import {
  createTwilioCarrier,
  rewriteTwilioUrl,
  type TwilioCarrier,
} from '../../../src/integrations/carrier/twilio/twilio-carrier.adapter.ts'
import { twilioForm } from '../../../src/integrations/carrier/twilio/twilio-request-client.ts'
import { startFakeTwilio, type FakeTwilio, type FakeTwilioOptions, type FormFields } from '../../doubles/fake-twilio.ts'
import { CALL, MESSAGING_SERVICE, TEXT, carrierContract } from './carrier.contract.ts'

async function setup(
  t: Test,
  options: { fake?: FakeTwilioOptions; timeoutMs?: number; authToken?: string } = {},
): Promise<{ fake: FakeTwilio; carrier: TwilioCarrier }> {
  const fake = await startFakeTwilio(options.fake)
  const carrier = createTwilioCarrier({
    accountSid: fake.accountSid,
    authToken: options.authToken ?? fake.authToken,
    apiUrl: fake.url,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  })
  t.teardown(async () => {
    await carrier.close()
    await fake.close()
  })
  return { fake, carrier }
}

function text(form: FormFields, key: string): string | undefined {
  const value = form[key]
  return Array.isArray(value) ? value.join(',') : value
}

async function failure(promise: Promise<unknown>): Promise<CarrierError> {
  const outcome = await promise.then(
    () => new Error('expected the request to fail'),
    (e: unknown) => e,
  )
  if (!(outcome instanceof CarrierError)) throw outcome
  return outcome
}

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

void carrierContract(t, {
  name: 'twilio',
  async open(t) {
    const { fake, carrier } = await setup(t)
    const created = (requests: ReturnType<FakeTwilio['requests']>) => requests.filter((r) => r.outcome === 'created')
    return {
      carrier,
      observedCalls: () =>
        created(fake.callRequests()).map((r) => ({
          from: String(text(r.form, 'From')),
          to: String(text(r.form, 'To')),
          answerUrl: String(text(r.form, 'Url')),
          statusCallbackUrl: String(text(r.form, 'StatusCallback')),
        })),
      observedTexts: () =>
        created(fake.messageRequests()).map((r) => {
          const callback = text(r.form, 'StatusCallback')
          const from = text(r.form, 'From')
          const service = text(r.form, 'MessagingServiceSid')
          return {
            ...(from !== undefined ? { from } : {}),
            to: String(text(r.form, 'To')),
            body: String(text(r.form, 'Body')),
            ...(callback !== undefined ? { statusCallbackUrl: callback } : {}),
            ...(service !== undefined ? { messagingService: service } : {}),
          }
        }),
    }
  },
})

t.test('a call is one SDK request with Twilio’s exact form fields, authenticated as the account', async (t) => {
  const { fake, carrier } = await setup(t)
  const placed = await carrier.placeCall(CALL)

  const requests = fake.requests()
  t.equal(requests.length, 1, 'exactly one request')
  const [request] = requests
  if (request === undefined) return
  t.equal(request.method, 'POST')
  t.equal(request.path, `/2010-04-01/Accounts/${fake.accountSid}/Calls.json`)
  t.same(request.form, {
    To: CALL.to,
    From: CALL.from,
    Url: CALL.answerUrl,
    Method: 'POST',
    StatusCallback: CALL.statusCallbackUrl,
    StatusCallbackMethod: 'POST',
    StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
  })
  t.equal(request.headers.authorization, `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`)
  t.match(request.headers['content-type'], /^application\/x-www-form-urlencoded/)
  t.match(request.headers['user-agent'], /^twilio-node\/6\./, 'sent by the official SDK')
  t.equal(request.headers.connection, 'close', 'a fresh connection per request: no stale pooled socket can blur the outcome')
  t.equal(placed.callId, request.sid, 'the id is the sid Twilio created')
})

t.test('ring timeout and async machine detection are passed only when asked', async (t) => {
  const { fake, carrier } = await setup(t)
  const machineDetectionUrl = 'https://leadline.example/api/carrier/twilio/amd'
  await carrier.placeCall({ ...CALL, timeoutSeconds: 25, detectAnsweringMachine: true, machineDetectionUrl })
  await carrier.placeCall({ ...CALL, detectAnsweringMachine: false, machineDetectionUrl })
  const [asked, plain] = fake.callRequests()
  t.equal(asked?.form.Timeout, '25')
  t.match(asked?.form, { MachineDetection: 'DetectMessageEnd', AsyncAmd: 'true', AsyncAmdStatusCallback: machineDetectionUrl, AsyncAmdStatusCallbackMethod: 'POST' })
  t.same(asked?.amd, { machineDetection: 'DetectMessageEnd', asyncAmd: 'true', asyncAmdStatusCallback: machineDetectionUrl, asyncAmdStatusCallbackMethod: 'POST' }, 'the fake notes them')
  t.notOk(plain && 'Timeout' in plain.form, 'no Timeout when not given')
  for (const field of ['MachineDetection', 'AsyncAmd', 'AsyncAmdStatusCallback']) t.notOk(plain && field in plain.form, `no ${field} when not asked`)
  t.equal(plain?.amd, undefined)
  // Async detection without a place for its verdict would detect for nothing: refused before sending.
  await t.rejects(carrier.placeCall({ ...CALL, detectAnsweringMachine: true }), { name: 'CarrierError', failure: 'rejected' })
  t.equal(fake.callRequests().length, 2, 'nothing sent')
})

t.test('a live call is updated with TwiML: the voicemail said or played, or a hang-up', async (t) => {
  const { fake, carrier } = await setup(t)
  const { callId } = await carrier.placeCall(CALL)
  await carrier.updateCall(callId, { kind: 'say', text: 'Hi Jane, this is Acme. Call us back. Goodbye.' })
  await carrier.updateCall(callId, { kind: 'play', url: 'https://cdn.example/vm.mp3' })
  await carrier.updateCall(callId, { kind: 'hang_up' })
  const updates = fake.callUpdates(callId)
  t.same(updates.map((u) => u.form.Twiml), [
    '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hi Jane, this is Acme. Call us back. Goodbye.</Say><Hangup/></Response>',
    '<?xml version="1.0" encoding="UTF-8"?><Response><Play>https://cdn.example/vm.mp3</Play><Hangup/></Response>',
    '<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>',
  ])
  t.same(updates.map((u) => [u.method, u.path, u.outcome]), Array.from({ length: 3 }, () => ['POST', `/2010-04-01/Accounts/${fake.accountSid}/Calls/${callId}.json`, 'updated']))

  await t.rejects(carrier.updateCall(`CA${'f'.repeat(32)}`, { kind: 'hang_up' }), { name: 'CarrierError', failure: 'rejected', details: { status: 404 } }, 'a call Twilio does not know')
  fake.failNext({ kind: 'status', status: 500 })
  await t.rejects(carrier.updateCall(callId, { kind: 'hang_up' }), { name: 'CarrierError', failure: 'unknown_outcome' }, 'a 5xx may have acted')
  fake.failNext({ kind: 'destroy' })
  await t.rejects(carrier.updateCall(callId, { kind: 'hang_up' }), { name: 'CarrierError', failure: 'unknown_outcome' }, 'no answer after it was read')
  t.equal(fake.callUpdates(callId).filter((u) => u.outcome === 'updated').length, 3, 'the faults changed nothing the fake reports as updated')
})

t.test('a text is messages.create with To, From, Body and StatusCallback', async (t) => {
  const { fake, carrier } = await setup(t)
  const sent = await carrier.sendText(TEXT)
  const [request] = fake.messageRequests()
  t.equal(request?.path, `/2010-04-01/Accounts/${fake.accountSid}/Messages.json`)
  t.same(request?.form, { To: TEXT.to, From: TEXT.from, Body: TEXT.body, StatusCallback: TEXT.statusCallbackUrl })
  t.equal(sent.messageId, request?.sid)
  t.equal(fake.callRequests().length, 0, 'a text places no call')
})

t.test('a text through a Messaging Service sends MessagingServiceSid and no From (Twilio takes one or the other)', async (t) => {
  const { fake, carrier } = await setup(t)
  await carrier.sendText({ ...TEXT, messagingService: MESSAGING_SERVICE })
  t.same(fake.messageRequests()[0]?.form, { To: TEXT.to, MessagingServiceSid: MESSAGING_SERVICE, Body: TEXT.body, StatusCallback: TEXT.statusCallbackUrl })
  // A malformed service is refused by Twilio, never sent from the caller ID instead.
  const refused = await failure(carrier.sendText({ ...TEXT, messagingService: 'MGnope' }))
  t.match(refused, { failure: 'rejected', details: { carrierCode: 21701 } })
})

t.test('apiUrl may carry a base path (Twilio-compatible carriers)', async (t) => {
  const { fake, carrier } = await setup(t, { fake: { basePath: '/api/laml' } })
  t.match(fake.url, /\/api\/laml$/)
  const placed = await carrier.placeCall(CALL)
  t.equal(fake.requests()[0]?.path, `/api/laml/2010-04-01/Accounts/${fake.accountSid}/Calls.json`)
  t.equal(placed.callId, fake.requests()[0]?.sid)
})

t.test('rewriteTwilioUrl points *.twilio.com at apiUrl and leaves every other host alone', async (t) => {
  const api = 'http://127.0.0.1:4010'
  t.equal(
    rewriteTwilioUrl('https://api.twilio.com/2010-04-01/Accounts/AC1/Calls.json', api),
    'http://127.0.0.1:4010/2010-04-01/Accounts/AC1/Calls.json',
  )
  t.equal(
    rewriteTwilioUrl('https://api.sydney.au1.twilio.com/2010-04-01/Accounts/AC1/Calls.json?PageSize=5', `${api}/base/`),
    'http://127.0.0.1:4010/base/2010-04-01/Accounts/AC1/Calls.json?PageSize=5',
    'regional hosts too, query kept, base path joined once',
  )
  t.equal(rewriteTwilioUrl('https://messaging.twilio.com/v1/Services', api), 'http://127.0.0.1:4010/v1/Services')
  t.equal(rewriteTwilioUrl('https://eviltwilio.com/x', api), 'https://eviltwilio.com/x', 'not a twilio.com subdomain')
  t.equal(rewriteTwilioUrl('https://api.twilio.com.example.net/x', api), 'https://api.twilio.com.example.net/x')
})

t.test('wrong credentials: rejected with Twilio’s 20003, not retryable', async (t) => {
  const { fake, carrier } = await setup(t, { authToken: 'not-the-token-at-all' })
  const error = await failure(carrier.placeCall(CALL))
  t.match(error, { failure: 'rejected', details: { status: 401, carrierCode: 20003 } })
  t.equal(isRetryableCarrierFailure(error), false)
  t.equal(fake.requests()[0]?.outcome, 'unauthorized')
})

t.test('failure mapping', async (t) => {
  t.test('429 → rate_limited with Retry-After, retryable, and the SDK did not retry on its own', async (t) => {
    const { fake, carrier } = await setup(t)
    fake.failNext({ kind: 'status', status: 429, code: 20429, headers: { 'Retry-After': '7' } }, 3)
    const error = await failure(carrier.placeCall(CALL))
    t.match(error, { failure: 'rate_limited', details: { status: 429, carrierCode: 20429, retryAfterSeconds: 7 } })
    t.equal(isRetryableCarrierFailure(error), true)
    await new Promise((resolve) => setTimeout(resolve, 300))
    t.equal(fake.callRequests().length, 1, 'exactly one request reached Twilio (no auto-retry)')
  })

  t.test('429 without Retry-After leaves the wait to the caller', async (t) => {
    const { fake, carrier } = await setup(t)
    fake.failNext({ kind: 'status', status: 429 })
    const error = await failure(carrier.sendText(TEXT))
    t.equal(error.failure, 'rate_limited')
    t.notOk('retryAfterSeconds' in error.details)
  })

  t.test('an HTTP-date Retry-After becomes seconds from now', async (t) => {
    const { fake, carrier } = await setup(t)
    const at = new Date(Date.now() + 30_000).toUTCString()
    fake.failNext({ kind: 'status', status: 429, headers: { 'Retry-After': at } })
    const error = await failure(carrier.placeCall(CALL))
    t.ok(
      error.details.retryAfterSeconds !== undefined && error.details.retryAfterSeconds >= 28 && error.details.retryAfterSeconds <= 30,
      `about 30 s, got ${error.details.retryAfterSeconds}`,
    )
  })

  t.test('Retry-After belongs to the request that got it, not to a concurrent one', async (t) => {
    const { fake, carrier } = await setup(t)
    fake.failNext({ kind: 'status', status: 429, headers: { 'Retry-After': '30' } })
    const results = await Promise.allSettled([carrier.placeCall(CALL), carrier.placeCall({ ...CALL, to: '+14155550101' })])
    const rejected = results.filter((r) => r.status === 'rejected')
    t.equal(rejected.length, 1, 'one was rate-limited')
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'the other was placed')
    t.match(rejected[0], { reason: { failure: 'rate_limited', details: { retryAfterSeconds: 30 } } })
  })

  t.test('400 → rejected with Twilio’s code', async (t) => {
    const { fake, carrier } = await setup(t)
    fake.failNext({ kind: 'status', status: 400, code: 21211, message: "Invalid 'To' Phone Number" })
    const error = await failure(carrier.placeCall(CALL))
    t.match(error, { failure: 'rejected', details: { status: 400, carrierCode: 21211 } })
    t.match(error.message, /21211/)
    t.equal(isRetryableCarrierFailure(error), false)
  })

  t.test('500 → unknown_outcome, not retryable', async (t) => {
    const { fake, carrier } = await setup(t)
    fake.failNext({ kind: 'status', status: 500 })
    const error = await failure(carrier.placeCall(CALL))
    t.match(error, { failure: 'unknown_outcome', details: { status: 500, carrierCode: 20500 } })
    t.equal(isRetryableCarrierFailure(error), false)
    t.equal(fake.callRequests().length, 1)
  })

  t.test('a load balancer’s HTML 502 → unknown_outcome', async (t) => {
    const { fake, carrier } = await setup(t)
    fake.failNext({ kind: 'raw', status: 502, body: '<html><body>Bad Gateway</body></html>' })
    const error = await failure(carrier.placeCall(CALL))
    t.match(error, { failure: 'unknown_outcome', details: { status: 502 } })
  })

  t.test('a 2xx that is not Twilio JSON → unknown_outcome (something accepted it)', async (t) => {
    const { fake, carrier } = await setup(t)
    fake.failNext({ kind: 'raw', status: 200, body: 'OK' })
    const error = await failure(carrier.placeCall(CALL))
    t.equal(error.failure, 'unknown_outcome')
    fake.failNext({ kind: 'raw', status: 201, body: '{"status":"queued"}', contentType: 'application/json' })
    const noSid = await failure(carrier.sendText(TEXT))
    t.equal(noSid.failure, 'unknown_outcome', 'an answer without a sid')
  })

  t.test('no answer within timeoutMs → unknown_outcome; Twilio did place the call', async (t) => {
    const { fake, carrier } = await setup(t, { timeoutMs: 150 })
    fake.failNext({ kind: 'delay', ms: 600 })
    const started = Date.now()
    const error = await failure(carrier.placeCall(CALL))
    const waited = Date.now() - started
    t.equal(error.failure, 'unknown_outcome')
    t.match(error.message, /150 ms/)
    t.equal(isRetryableCarrierFailure(error), false)
    t.ok(waited >= 140, `gave up after the timeout (${waited} ms)`)
    // Order, not wall time: the 150 ms timeout falls due before the fake's 600 ms answer, however loaded the machine.
    t.not(fake.callRequests()[0]?.outcome, 'created', 'without waiting for the answer')
    await new Promise((resolve) => setTimeout(resolve, 600))
    t.equal(fake.callRequests()[0]?.outcome, 'created', 'the carrier went on to create it: retrying would ring twice')
  })

  t.test('an answer that starts and then stalls past timeoutMs → unknown_outcome, named as the timeout', async (t) => {
    // Headers at once, then nothing: the time runs from the request's start to the answer's end.
    const server = http.createServer((req, res) => {
      req.resume()
      res.writeHead(201, { 'content-type': 'application/json' })
      res.write('{"sid": "CA')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
    const carrier = createTwilioCarrier({ accountSid: `AC${'a'.repeat(32)}`, authToken: 'token', apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 150 })
    t.teardown(() => carrier.close())
    const error = await failure(carrier.placeCall(CALL))
    t.equal(error.failure, 'unknown_outcome')
    t.match(error.message, /no answer from twilio within 150 ms/)
  })

  t.test('socket destroyed after the request was read → unknown_outcome', async (t) => {
    const { fake, carrier } = await setup(t)
    fake.failNext({ kind: 'destroy' })
    const error = await failure(carrier.placeCall(CALL))
    t.equal(error.failure, 'unknown_outcome')
    t.equal(isRetryableCarrierFailure(error), false)
    t.match(fake.callRequests()[0], { sid: /^CA[0-9a-f]{32}$/ }, 'the call existed at Twilio')
  })

  t.test('connection refused → unreachable, retryable', async (t) => {
    const port = await closedPort()
    const carrier = createTwilioCarrier({ accountSid: `AC${'a'.repeat(32)}`, authToken: 'token', apiUrl: `http://127.0.0.1:${port}` })
    t.teardown(() => carrier.close())
    const error = await failure(carrier.placeCall(CALL))
    t.match(error, { failure: 'unreachable', message: /ECONNREFUSED/ })
    t.equal(isRetryableCarrierFailure(error), true)
    const textError = await failure(carrier.sendText(TEXT))
    t.equal(textError.failure, 'unreachable')
  })

  t.test('DNS failure → unreachable, retryable', async (t) => {
    const carrier = createTwilioCarrier({ accountSid: `AC${'a'.repeat(32)}`, authToken: 'token', apiUrl: 'http://leadline-carrier.invalid' })
    t.teardown(() => carrier.close())
    const error = await failure(carrier.placeCall(CALL))
    t.match(error, { failure: 'unreachable', message: /ENOTFOUND|EAI_AGAIN/ })
    t.equal(isRetryableCarrierFailure(error), true)
  })

  t.test('refused by the SDK before sending → rejected, and nothing reached Twilio', async (t) => {
    const { fake, carrier } = await setup(t)
    const error = await failure(carrier.placeCall({ ...CALL, to: undefined as unknown as string }))
    t.equal(error.failure, 'rejected')
    t.match(error.message, /not sent/)
    t.equal(fake.requests().length, 0)
  })
})

t.test('every request is on a connection of its own, closed after its answer (never a pooled socket)', async (t) => {
  const sockets = new Set<unknown>()
  const connections: string[] = []
  const server = http.createServer((req, res) => {
    sockets.add(req.socket)
    connections.push(String(req.headers.connection))
    req.resume()
    req.once('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ sid: `CA${String(connections.length).padStart(32, '0')}`, status: 'queued' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const carrier = createTwilioCarrier({ accountSid: `AC${'a'.repeat(32)}`, authToken: 'token', apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  t.teardown(() => carrier.close())
  for (let i = 0; i < 3; i++) await carrier.placeCall(CALL)
  t.equal(sockets.size, 3, 'three calls, three connections')
  t.same(connections, ['close', 'close', 'close'])
})

t.test('form fields as Twilio reads them: a list repeats its key, absent values are left out', async (t) => {
  t.equal(
    twilioForm({ To: '+13125550123', StatusCallbackEvent: ['initiated', 'ringing'], Timeout: 25, Skipped: undefined, Empty: null, Twiml: '<Response><Say>a & b</Say></Response>' }),
    'To=%2B13125550123&StatusCallbackEvent=initiated&StatusCallbackEvent=ringing&Timeout=25&Twiml=%3CResponse%3E%3CSay%3Ea+%26+b%3C%2FSay%3E%3C%2FResponse%3E',
  )
  t.same(Object.fromEntries(new URLSearchParams(twilioForm({ Body: 'Hi — ¿qué tal? 100%' }))), { Body: 'Hi — ¿qué tal? 100%' }, 'any text survives the round trip')
})

t.test('a closed carrier sends nothing', async (t) => {
  const { fake, carrier } = await setup(t)
  await carrier.close()
  const error = await failure(carrier.placeCall(CALL))
  t.equal(error.failure, 'rejected')
  t.equal(fake.requests().length, 0)
})
