/**
 * Twilio's callbacks into Leadline over a real socket, signed by the fake Twilio with the SDK the way
 * Twilio signs them (over LEADLINE_PUBLIC_URL + path): status callbacks become events on the lead
 * (duplicates and out-of-order ones harmless), forged ones are refused with 403, and the answer and
 * whisper TwiML follow the account's on-answer mode. Recordings and transcripts are stored, never served.
 */
import t from 'tap'
import type { Test } from 'tap'
import { createTwilioCarrier } from '../../../src/integrations/carrier/twilio/twilio-carrier.adapter.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { statusCallbackParams, type FakeTwilio } from '../../doubles/fake-twilio.ts'
import {
  nextCallerId,
  DIALING, PUBLIC_URL, dialingApp, fakeTwilio, leadEventTypes, leadEvents, placedCalls, postLead, sleep, statusCallback, twilioEnv, waitForEvent,
} from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'

/** An app with the Twilio adapter on the fake, listening. */
async function callbackApp(t: Test) {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake })
  const baseUrl = await built.listen()
  return { fake, ...built, baseUrl }
}

/** A new account with `settings` whose lead `phone` has been called; its call sid and answer URL. */
async function callLead(s: Awaited<ReturnType<typeof callbackApp>>, settings: Record<string, unknown> = {}, phone = PHONE) {
  const { account, token } = await s.createAccount('Acme Roofing', { ...DIALING, callerId: nextCallerId(s.leadline), callsPerSecond: 100, ...settings })
  await postLead(s.app, token, { phone, name: 'Jane Doe' })
  const placed = await waitForEvent(s.leadline, account.accountId, phone, 'CallPlaced')
  const sid = (placed.data as { callId: string }).callId
  const request = placedCalls(s.fake).find((r) => r.sid === sid)
  return { account, token, sid, answerUrl: request?.form.Url as string }
}

/** An app with the Twilio adapter on the fake, listening, and one lead already called. */
async function calledLead(t: Test, settings: Record<string, unknown> = {}) {
  const s = await callbackApp(t)
  return { ...s, ...(await callLead(s, settings)) }
}

/** POSTs Twilio's answer-time fields to a Leadline URL (as given to Twilio), signed over that public URL. */
async function twilioFetch(fake: FakeTwilio, baseUrl: string, publicUrl: string, sid: string, options: { forged?: boolean } = {}) {
  const params = { ...statusCallbackParams({ callSid: sid, status: 'in-progress' }), AnsweredBy: 'human' }
  return fake.postStatusCallback(publicUrl.replace(PUBLIC_URL, baseUrl), params, { signedUrl: publicUrl, ...options })
}

t.test('signed status callbacks become events; forged or misdirected ones are refused with 403', async (t) => {
  const { fake, leadline, baseUrl, account, sid } = await calledLead(t)
  const before = await leadline.store.headPosition()
  t.equal(await statusCallback(fake, baseUrl, sid, 'completed', { forged: true, extra: { CallDuration: '30' } }), 403, 'forged signature')
  const params = statusCallbackParams({ callSid: sid, status: 'completed', extra: { CallDuration: '30' } })
  t.equal((await fake.postStatusCallback(`${baseUrl}/api/carrier/twilio/status`, params, { signedUrl: `${PUBLIC_URL}/api/carrier/twilio/other` })).status, 403, 'signed for another URL')
  t.equal((await fake.postStatusCallback(`${baseUrl}/api/carrier/twilio/status`, params, { signedUrl: `http://attacker.example/api/carrier/twilio/status` })).status, 403, 'signed for another host')
  const unsigned = await fetch(`${baseUrl}/api/carrier/twilio/status`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() })
  t.equal(unsigned.status, 403, 'no signature')
  t.same(await unsigned.json(), { error: 'invalid signature' })
  t.equal(await leadline.store.headPosition(), before, 'nothing recorded')

  t.equal(await statusCallback(fake, baseUrl, sid, 'ringing', { sequenceNumber: 1 }), 204)
  t.equal(await statusCallback(fake, baseUrl, sid, 'in-progress', { sequenceNumber: 2, extra: { AnsweredBy: 'human' } }), 204)
  t.match((await waitForEvent(leadline, account.accountId, PHONE, 'CallAnswered')).data, { callId: sid, answeredBy: 'human' })
  t.match((await waitForEvent(leadline, account.accountId, PHONE, 'CallAnswered')).metadata, { actor: { kind: 'carrier', id: 'twilio' } })
})

t.test('duplicate and out-of-order callbacks are harmless: states only move forward', async (t) => {
  const { fake, leadline, baseUrl, account, sid } = await calledLead(t)
  // Completed arrives first, then the earlier ones, then completed again.
  const sent = [
    ['completed', { CallDuration: '42' }, 3],
    ['ringing', {}, 1],
    ['in-progress', {}, 2],
    ['initiated', {}, 0],
    ['completed', { CallDuration: '42' }, 3],
    ['no-answer', {}, 4],
  ] as const
  for (const [status, extra, sequenceNumber] of sent) t.equal(await statusCallback(fake, baseUrl, sid, status, { extra, sequenceNumber }), 204, status)
  await sleep(100)
  // Speed to lead called, so the new lead is two events: its LeadReceived (with its list, no skip) and the CallDecided.
  t.same(await leadEventTypes(leadline, account.accountId, PHONE), ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced', 'CallAnswered', 'CallCompleted'])
  const received = (await leadEvents(leadline, account.accountId, PHONE))[0]?.data as { list?: unknown; speedToLeadSkipped?: unknown }
  t.same(received.list, { listId: 'inbound-leads', listName: 'Inbound Leads' })
  t.notOk('speedToLeadSkipped' in received, 'no skip on a lead speed to lead called')
})

t.test('concurrent duplicate no-answer callbacks: one outcome, one follow-up', async (t) => {
  const { fake, leadline, baseUrl, account, sid } = await calledLead(t)
  const statuses = await Promise.all(Array.from({ length: 10 }, () => statusCallback(fake, baseUrl, sid, 'no-answer', { sequenceNumber: 3 })))
  t.same(statuses, Array.from({ length: 10 }, () => 204))
  await sleep(100)
  const types = await leadEventTypes(leadline, account.accountId, PHONE)
  t.same(types, ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced', 'CallNotAnswered', 'FollowUpScheduled'])
})

t.test('each not-answered status is an outcome: busy, failed, canceled (no-answer above)', async (t) => {
  const s = await callbackApp(t)
  for (const [i, status] of (['busy', 'failed', 'canceled'] as const).entries()) {
    const phone = `312555010${i}`
    const { account, sid } = await callLead(s, {}, phone)
    t.equal(await statusCallback(s.fake, s.baseUrl, sid, status), 204)
    t.match((await waitForEvent(s.leadline, account.accountId, phone, 'CallNotAnswered')).data, { callId: sid, status }, status)
  }
})

t.test('a callback that outruns the record of its own call is not lost', async (t) => {
  const fake = await fakeTwilio(t)
  let baseUrl = ''
  const posted: Array<Promise<number>> = []
  // The real adapter, but Twilio's "busy" callback reaches Leadline before Twilio's answer to the request does.
  const built = await dialingApp(t, {
    carrier: () => {
      const twilio = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, apiUrl: fake.url })
      return {
        ...twilio,
        async placeCall(request) {
          const placed = await twilio.placeCall(request)
          posted.push(statusCallback(fake, baseUrl, placed.callId, 'busy'))
          await sleep(100)
          return placed
        },
      }
    },
    env: twilioEnv(fake),
  })
  baseUrl = await built.listen()
  const { account, token } = await built.createAccount('Acme', { ...DIALING, followUp: '30s' })
  await postLead(built.app, token, { phone: PHONE })
  await fake.waitForCalls(1)
  t.match((await waitForEvent(built.leadline, account.accountId, PHONE, 'CallNotAnswered')).data, { status: 'busy' })
  t.same(await Promise.all(posted), [204])
  t.same(await leadEventTypes(built.leadline, account.accountId, PHONE), ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced', 'CallNotAnswered', 'FollowUpScheduled'])
})

t.test('unknown calls and malformed callbacks', async (t) => {
  const { fake, leadline, baseUrl } = await calledLead(t)
  const before = await leadline.store.headPosition()
  t.equal(await statusCallback(fake, baseUrl, `CA${'0'.repeat(32)}`, 'completed'), 204, 'a call Leadline did not place: acknowledged, nothing recorded')
  const noStatus = { ...statusCallbackParams({ callSid: 'CA1', status: 'completed' }) } as Record<string, string>
  delete noStatus.CallStatus
  t.equal((await fake.postStatusCallback(`${baseUrl}/api/carrier/twilio/status`, noStatus, { signedUrl: `${PUBLIC_URL}/api/carrier/twilio/status` })).status, 400)
  t.equal((await fake.postStatusCallback(`${baseUrl}/api/carrier/twilio/other`, noStatus, { signedUrl: `${PUBLIC_URL}/api/carrier/twilio/other` })).status, 404, 'a hook Twilio has none of')
  t.equal(await leadline.store.headPosition(), before)
})

t.test('without Twilio configured the callback routes answer 404', async (t) => {
  const built = await dialingApp(t)
  const response = await built.app.inject({ method: 'POST', url: '/api/carrier/twilio/status', payload: 'CallSid=CA1&CallStatus=completed', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(response.statusCode, 404)
})

t.test('recordings and transcripts are stored as events but never leave the service', async (t) => {
  const { fake, leadline, baseUrl, app, account, sid } = await calledLead(t)
  const recordingUrl = `https://api.twilio.com/2010-04-01/Accounts/${fake.accountSid}/Recordings/RE${'a'.repeat(32)}`
  const transcript = 'yes please call me about the roof tomorrow'
  const status = await statusCallback(fake, baseUrl, sid, 'completed', { extra: { CallDuration: '42', RecordingUrl: recordingUrl, TranscriptionText: transcript } })
  t.equal(status, 204, 'the callback answer carries nothing')
  await waitForEvent(leadline, account.accountId, PHONE, 'CallCompleted')
  const stored = await leadEvents(leadline, account.accountId, PHONE)
  t.match(stored.find((e) => e.type === 'CallRecordingAvailable')?.data, { callId: sid, recordingUrl })
  t.match(stored.find((e) => e.type === 'CallTranscriptAvailable')?.data, { callId: sid, transcript })
  // The same callback again stores nothing twice.
  await statusCallback(fake, baseUrl, sid, 'completed', { extra: { CallDuration: '42', RecordingUrl: recordingUrl, TranscriptionText: transcript } })
  await sleep(100)
  t.equal((await leadEvents(leadline, account.accountId, PHONE)).length, stored.length)

  // The tool endpoint serves the lead's history without them, whatever the scope.
  const { key } = await leadline.accounts.createApiKey(account.accountId, ['read', 'write', 'dial'], 'test', operatorContext)
  const response = await app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_lead_history', arguments: { phone: PHONE } } },
  })
  t.equal(response.statusCode, 200)
  t.match(response.body, /CallCompleted/, 'the history is served')
  t.notMatch(response.body, /Recordings\/RE/, 'without the recording URL')
  t.notOk(response.body.includes(transcript), 'without the transcript')
})

t.test('the answer and whisper TwiML follow the on-answer mode (signed requests only)', async (t) => {
  const modes: Array<[string, RegExp[]]> = [
    ['greeting', [/<Gather numDigits="1" timeout="6" action="http:\/\/leadline\.test\/api\/carrier\/twilio\/menu\?decision=dec_[^"]+" method="POST"><Say>Hi Jane Doe, this is Acme Roofing calling about the request you sent us\.<\/Say><Say>Press 2 /]],
    ['greeting+bridge:+13125550199', [/<Gather [^>]+><Say>Hi Jane Doe, this is Acme Roofing calling about the request you sent us\.<\/Say><Say>Press 1 to speak with someone now\. Press 2 /]],
    ['bridge:+13125550199', [/^<\?xml version="1\.0" encoding="UTF-8"\?><Response><Dial><Number url="http:\/\/leadline\.test\/api\/carrier\/twilio\/whisper\?decision=dec_[^"]+" method="POST">\+13125550199<\/Number><\/Dial><\/Response>$/]],
    ['twiml:https://assistant.example.com/voice?agent=7', [/<Redirect method="POST">https:\/\/assistant\.example\.com\/voice\?agent=7<\/Redirect>/]],
  ]
  const s = await callbackApp(t)
  for (const [i, [onAnswer, expected]] of modes.entries()) {
    t.test(onAnswer, async (t) => {
      const { fake, baseUrl } = s
      const { sid, answerUrl } = await callLead(s, { onAnswer }, `312555020${i}`)
      const answer = await twilioFetch(fake, baseUrl, answerUrl, sid)
      t.equal(answer.status, 200)
      for (const pattern of expected) t.match(answer.body, pattern)
      if (onAnswer.startsWith('bridge')) {
        const whisperUrl = /url="([^"]+)"/.exec(answer.body)?.[1]?.replace(/&amp;/g, '&') as string
        const whisper = await twilioFetch(fake, baseUrl, whisperUrl, sid)
        t.equal(whisper.status, 200)
        t.match(whisper.body, /<Say>New lead: Jane Doe\. Connecting you now\.<\/Say>/, "the owner hears the lead's name")
        t.equal((await twilioFetch(fake, baseUrl, whisperUrl, sid, { forged: true })).status, 403)
      }
      t.equal((await twilioFetch(fake, baseUrl, answerUrl, sid, { forged: true })).status, 403, 'forged: 403')
      t.equal((await twilioFetch(fake, baseUrl, `${PUBLIC_URL}/api/carrier/twilio/answer?decision=dec_unknown`, sid)).status, 404, 'unknown decision: 404')
    })
  }
})
