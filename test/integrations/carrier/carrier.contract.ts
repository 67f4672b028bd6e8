/**
 * The carrier contract: one suite, run unchanged against every adapter (Twilio through the real SDK
 * against the fake Twilio server, and the simulated carrier). An adapter test file supplies a harness
 * and calls `carrierContract(t, harness)`.
 */
import type { Test } from 'tap'
import {
  CarrierError,
  isRetryableCarrierFailure,
  type Carrier,
  type CarrierName,
  type PlaceCallRequest,
  type SendTextRequest,
} from '../../../src/integrations/carrier/carrier.port.ts'

/** What the carrier itself saw, in the port's words. */
export interface ObservedCall {
  from: string
  to: string
  answerUrl: string
  statusCallbackUrl: string
}

export interface ObservedText {
  /** Absent where the carrier lets a Messaging Service pick the sender (Twilio). */
  from?: string
  to: string
  body: string
  statusCallbackUrl?: string
  messagingService?: string
}

export interface CarrierHarness {
  name: CarrierName
  /** A fresh carrier (each subtest gets its own) and a view of what reached the carrier. */
  open(t: Test): Promise<{
    carrier: Carrier
    observedCalls(): ObservedCall[]
    observedTexts(): ObservedText[]
  }>
}

export const CALL: PlaceCallRequest = {
  from: '+15005550006',
  to: '+14155550100',
  answerUrl: 'https://leadline.example/api/carrier/twilio/answer?call=dec_1',
  statusCallbackUrl: 'https://leadline.example/api/carrier/twilio/status?call=dec_1',
  reference: 'dec_1',
}

export const TEXT: SendTextRequest = {
  from: '+15005550006',
  to: '+14155550100',
  body: 'Thanks for reaching out to Acme Plumbing. We will call you in a minute.',
  statusCallbackUrl: 'https://leadline.example/api/carrier/twilio/message-status?text=dec_2',
  reference: 'dec_2',
}

export const MESSAGING_SERVICE = `MG${'0123456789abcdef'.repeat(2)}`

const CALL_ID = /^CA[0-9a-z]{32}$/i
const MESSAGE_ID = /^SM[0-9a-z]{32}$/i

/** Registers the contract as one subtest of `t`, named after the harness. */
export function carrierContract(t: Test, harness: CarrierHarness): Promise<unknown> {
  return t.test(`${harness.name} carrier contract`, async (t) => {
    t.test('names itself', async (t) => {
      const { carrier } = await harness.open(t)
      t.equal(carrier.name, harness.name)
    })

    t.test('places a call: a Twilio-shaped id, queued, and the carrier received exactly that call', async (t) => {
      const { carrier, observedCalls } = await harness.open(t)
      const placed = await carrier.placeCall(CALL)
      t.match(placed.callId, CALL_ID)
      t.same(placed, { callId: placed.callId, status: 'queued', carrier: harness.name }, 'exactly callId, status, carrier')
      t.same(observedCalls(), [
        { from: CALL.from, to: CALL.to, answerUrl: CALL.answerUrl, statusCallbackUrl: CALL.statusCallbackUrl },
      ])
    })

    t.test('every call gets its own id', async (t) => {
      const { carrier, observedCalls } = await harness.open(t)
      const first = await carrier.placeCall(CALL)
      const second = await carrier.placeCall({ ...CALL, to: '+14155550101', reference: 'dec_3' })
      t.not(first.callId, second.callId)
      t.same(
        observedCalls().map((c) => c.to),
        [CALL.to, '+14155550101'],
      )
    })

    t.test('sends a text: a Twilio-shaped id, queued, and the carrier received exactly that text', async (t) => {
      const { carrier, observedTexts } = await harness.open(t)
      const sent = await carrier.sendText(TEXT)
      t.match(sent.messageId, MESSAGE_ID)
      t.same(sent, { messageId: sent.messageId, status: 'queued', carrier: harness.name })
      t.same(observedTexts(), [{ from: TEXT.from, to: TEXT.to, body: TEXT.body, statusCallbackUrl: TEXT.statusCallbackUrl }])
    })

    t.test('a text through the account\'s Messaging Service names the service', async (t) => {
      const { carrier, observedTexts } = await harness.open(t)
      const sent = await carrier.sendText({ ...TEXT, messagingService: MESSAGING_SERVICE })
      t.match(sent.messageId, MESSAGE_ID)
      t.match(observedTexts(), [{ to: TEXT.to, body: TEXT.body, messagingService: MESSAGING_SERVICE }])
    })

    t.test('a text without a status callback is sent without one', async (t) => {
      const { carrier, observedTexts } = await harness.open(t)
      const { statusCallbackUrl: _omitted, ...withoutCallback } = TEXT
      await carrier.sendText(withoutCallback)
      t.same(observedTexts(), [{ from: TEXT.from, to: TEXT.to, body: TEXT.body }])
    })

    t.test('an invalid number is rejected (Twilio code 21211) and is not retryable', async (t) => {
      const { carrier } = await harness.open(t)
      const callError = await carrier.placeCall({ ...CALL, to: '555-0100' }).then(
        () => null,
        (e: unknown) => e,
      )
      t.type(callError, CarrierError)
      t.match(callError, { type: 'carrier_error', failure: 'rejected', details: { carrierCode: 21211 } })
      t.equal(isRetryableCarrierFailure(callError), false)

      const textError = await carrier.sendText({ ...TEXT, to: 'not a number' }).then(
        () => null,
        (e: unknown) => e,
      )
      t.match(textError, { failure: 'rejected', details: { carrierCode: 21211 } })
      t.equal(isRetryableCarrierFailure(textError), false)
    })

    t.test('numbers: local numbers searched by area code, one bought (once a number is not for sale: rejected), pointed at Leadline', async (t) => {
      const { carrier } = await harness.open(t)
      if (carrier.searchNumbers === undefined) {
        // A carrier without numbers of its own sells none and has none to point.
        t.same([carrier.buyNumber, carrier.pointNumber], [undefined, undefined])
        return
      }
      const found = await carrier.searchNumbers({ country: 'US', areaCode: '312', limit: 2 })
      t.ok(found.length > 0 && found.length <= 2, 'at most the limit')
      for (const n of found) t.match(n, { number: /^\+1312\d{7}$/, voice: true, sms: true })
      const pick = found[0]?.number as string
      const bought = await carrier.buyNumber?.(pick)
      t.match(bought, { number: pick, sid: /^PN\w{32}$/ })
      const pointed = await carrier.pointNumber?.(pick, 'https://leadline.example')
      t.match(pointed, { number: pick, voiceUrl: `https://leadline.example/api/carrier/${harness.name}/voice`, voiceStatusUrl: `https://leadline.example/api/carrier/${harness.name}/voice-status`, smsUrl: `https://leadline.example/api/carrier/${harness.name}/sms` })
      const refused = await carrier.buyNumber?.('+13125551234').then(() => null, (e: unknown) => e)
      t.match(refused, { type: 'carrier_error', failure: 'rejected', details: { carrierCode: 21422 } })
      t.equal(isRetryableCarrierFailure(refused), false)
    })
  })
}
