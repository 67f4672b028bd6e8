/**
 * The seam a carrier plugs its callbacks into: one route, `POST /api/carrier/<name>/<hook>`, hands
 * the open carrier what it received and answers what the carrier says, with Leadline's state lent
 * through the context. A made-up carrier, `acme`, stands in for the next one (the simulated carrier
 * underneath places its calls); Twilio's own callbacks are in twilio-callbacks.test.ts.
 */
import t from 'tap'
import type { Test } from 'tap'
import {
  carrierCallbackUrl,
  type CallStatus,
  type CarrierCallback,
  type CarrierCallbackAnswer,
  type CarrierCallbackRefusal,
} from '../../../src/integrations/carrier/carrier.port.ts'
import { createSimulatedCarrier, type SimulatedCarrier } from '../../../src/integrations/carrier/simulated/index.ts'
import { DIALING, PUBLIC_URL, dialingApp, postLead, waitForEvent } from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** An app whose open carrier is `acme`; one lead called, and every callback acme was handed. */
async function acmeApp(t: Test) {
  const received: CarrierCallback[] = []
  let simulated: SimulatedCarrier | undefined
  const built = await dialingApp(t, {
    carrier: () => {
      // The simulation never reports here: acme's statuses come in over HTTP.
      simulated = createSimulatedCarrier({ outcome: 'answered', delayMs: 60_000 })
      const { placeCall } = simulated
      return {
        ...simulated,
        name: 'acme',
        placeCall: async (request) => ({ ...(await placeCall(request)), carrier: 'acme' }),
        callbackUrls: (publicUrl, decisionId) => ({
          answerUrl: carrierCallbackUrl(publicUrl, 'acme', 'pickup', { d: decisionId }),
          statusCallbackUrl: carrierCallbackUrl(publicUrl, 'acme', 'progress'),
        }),
        async handleCallback(callback, context): Promise<CarrierCallbackAnswer> {
          received.push(callback)
          const { hook, params, query } = callback
          if (hook === 'refuse') return { kind: 'refused', refusal: params.why as CarrierCallbackRefusal, detail: 'acme says no' }
          if (hook === 'pickup') return { kind: 'answer', status: 200, contentType: 'application/json', body: JSON.stringify(await context.answeredCall(String(query.d))) }
          if (hook === 'progress') {
            const update = { callId: String(params.id), status: params.status as CallStatus, timestamp: callback.receivedAt.toISOString(), carrier: 'acme' }
            return { kind: 'answer', status: (await context.recordCallStatus(update)) ? 204 : 202 }
          }
          return { kind: 'answer', status: 201, contentType: 'text/plain; charset=utf-8', body: `${hook} as ${context.publicUrl}` }
        },
      }
    },
  })
  const { account, token } = await built.createAccount('Acme Roofing', { ...DIALING, onAnswer: 'bridge:+13125550199' })
  await postLead(built.app, token, { phone: PHONE, name: 'Jane Doe' })
  const placed = (await waitForEvent(built.leadline, account.accountId, PHONE, 'CallPlaced')).data as { decisionId: string; callId: string; carrier: string }
  const post = (path: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    built.app.inject({ method: 'POST', url: path, headers: { ...FORM, ...headers }, payload: new URLSearchParams(form).toString() })
  return { ...built, account, placed, received, post, calls: () => (simulated as SimulatedCarrier).calls() }
}

t.test('the dialer hands the carrier the URLs it names; events record its name', async (t) => {
  const { placed, calls } = await acmeApp(t)
  t.equal(placed.carrier, 'acme')
  t.match(calls()[0]?.request, {
    answerUrl: `${PUBLIC_URL}/api/carrier/acme/pickup?d=${placed.decisionId}`,
    statusCallbackUrl: `${PUBLIC_URL}/api/carrier/acme/progress`,
  })
})

t.test('the carrier gets the hook, the public URL, headers, form and query, and its answer goes out as given', async (t) => {
  const { post, received } = await acmeApp(t)
  const response = await post('/api/carrier/acme/ping?x=1', { a: '1' }, { 'x-acme-signature': 'sig' })
  t.equal(response.statusCode, 201)
  t.match(response.headers['content-type'], /^text\/plain/)
  t.equal(response.body, `ping as ${PUBLIC_URL}`)
  t.match(received[0], { hook: 'ping', url: `${PUBLIC_URL}/api/carrier/acme/ping?x=1`, params: { a: '1' }, query: { x: '1' }, headers: { 'x-acme-signature': 'sig' } })
  t.type(received[0]?.receivedAt, Date)
})

t.test('its refusals are the stable HTTP errors', async (t) => {
  const { post } = await acmeApp(t)
  for (const [why, status, error] of [['not_found', 404, 'not found'], ['invalid_signature', 403, 'invalid signature'], ['invalid_request', 400, 'invalid request']] as const) {
    const response = await post('/api/carrier/acme/refuse', { why })
    t.equal(response.statusCode, status, why)
    t.same(response.json(), { error, detail: 'acme says no' })
  }
})

t.test('the context: the call behind a decision, and statuses recorded on the lead', async (t) => {
  const { post, placed, leadline, account } = await acmeApp(t)
  t.same((await post(`/api/carrier/acme/pickup?d=${placed.decisionId}`)).json(), {
    decisionId: placed.decisionId,
    businessName: 'Acme Roofing',
    leadName: 'Jane Doe',
    onAnswer: { kind: 'bridge', ownerNumber: '+13125550199' },
    callerId: '+13125550100',
    leadSource: null,
    leadLine: null,
  })
  t.equal((await post('/api/carrier/acme/pickup?d=dec_unknown')).body, 'null', 'an unknown decision: null')

  t.equal((await post('/api/carrier/acme/progress', { id: placed.callId, status: 'busy' })).statusCode, 204)
  const busy = await waitForEvent(leadline, account.accountId, PHONE, 'CallNotAnswered')
  t.match(busy, { data: { callId: placed.callId, status: 'busy' }, metadata: { actor: { kind: 'carrier', id: 'acme' } } })
  t.equal((await post('/api/carrier/acme/progress', { id: `CA${'0'.repeat(32)}`, status: 'completed' })).statusCode, 202, 'a call Leadline did not place: not recorded')
})

t.test('a carrier that is not the open one, or one that takes no callbacks: 404', async (t) => {
  const acme = await acmeApp(t)
  const twilio = await acme.post('/api/carrier/twilio/status')
  t.equal(twilio.statusCode, 404)
  t.same(twilio.json(), { error: 'not found', detail: 'twilio is not configured on this server' })
  t.equal(acme.received.length, 0, 'acme was not asked')

  const simulated = await dialingApp(t)
  const response = await simulated.app.inject({ method: 'POST', url: '/api/carrier/simulated/status', headers: FORM, payload: 'a=1' })
  t.equal(response.statusCode, 404)
  t.same(response.json(), { error: 'not found', detail: 'the simulated carrier takes no callbacks' })
})
