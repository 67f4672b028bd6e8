/**
 * When the phone is answered, end to end through the official `twilio` SDK against the fake Twilio:
 * calls go out with async machine detection (when the account's `amd` is on), its signed verdict
 * leaves one voicemail into the live call on a machine (a call update) or hangs up, a person hears
 * the menu, and the keys they press (1 connect, 2 call back, 9 stop calling) and the owner's leg come
 * back on signed hooks, each acted on once.
 */
import t from 'tap'
import type { Test } from 'tap'
import { operatorContext } from '../../helpers/build-app.ts'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { twimlAttribute, type FakeTwilio, type RecordedRequest } from '../../doubles/fake-twilio.ts'
import {
  nextCallerId,
  CALLER_ID, DIALING, PUBLIC_URL, dialingApp, fakeTwilio, followUpSetup, leadEventTypes, leadEvents, manualClock, nthCall, placedCalls, postLead,
  reopen, sleep, statusCallback, waitFor, waitForEvent, type ManualClock,
} from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'
const OWNER = '+13125550199'
const XML = '<?xml version="1.0" encoding="UTF-8"?>'
const ANSWERED_BY = ['human', 'unknown', 'machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'fax'] as const

/** An app with the Twilio adapter on the fake, listening. */
async function answerApp(t: Test, clock?: ManualClock) {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake, ...(clock ? { clock } : {}) })
  const baseUrl = await built.listen()
  return { fake, ...built, baseUrl, via: { via: baseUrl } }
}

type AnswerApp = Awaited<ReturnType<typeof answerApp>>

/** A new account with `settings` whose new lead `phone` (Jane Doe) has been called: the call's sid. */
async function callLead(s: AnswerApp, settings: Record<string, unknown> = {}, phone = PHONE) {
  const { account, token } = await s.createAccount('Acme Roofing', { ...DIALING, callerId: nextCallerId(s.leadline), callsPerSecond: 100, ...settings })
  await postLead(s.app, token, { phone, name: 'Jane Doe' })
  const placed = await waitForEvent(s.leadline, account.accountId, phone, 'CallPlaced')
  const sid = (placed.data as { callId: string }).callId
  const request = placedCalls(s.fake).find((r) => r.sid === sid) as RecordedRequest
  const events = () => leadEvents(s.leadline, account.accountId, phone)
  const types = () => leadEventTypes(s.leadline, account.accountId, phone)
  const event = (type: string, n = 1) => waitForEvent(s.leadline, account.accountId, phone, type, n)
  return { account, token, sid, request, placed, events, types, event }
}

/** The TwiML of each update the fake applied (or was asked for) on call `sid`. */
function updates(fake: FakeTwilio, sid: string): string[] {
  return fake.callUpdates(sid).map((u) => String(u.form.Twiml))
}

const HANG_UP = `${XML}<Response><Hangup/></Response>`

t.test('with amd on (the default) calls ask for async machine detection; with it off they do not', async (t) => {
  const s = await answerApp(t)
  const on = await callLead(s)
  t.same(on.request.amd, {
    machineDetection: 'DetectMessageEnd',
    asyncAmd: 'true',
    asyncAmdStatusCallback: `${PUBLIC_URL}/api/carrier/twilio/amd`,
    asyncAmdStatusCallbackMethod: 'POST',
  })
  t.equal(on.request.form.Url, `${PUBLIC_URL}/api/carrier/twilio/answer?decision=${(on.placed.data as { decisionId: string }).decisionId}`, 'the greeting is fetched at once, not after detection')
  t.match(on.placed.data, { machineDetection: true })
  // With detection on, a call that is merely in progress is not answered yet: the verdict decides.
  t.equal(await statusCallback(s.fake, s.baseUrl, on.sid, 'in-progress', { sequenceNumber: 2 }), 204)
  await sleep(100)
  t.notOk((await on.types()).includes('CallAnswered'), 'in-progress alone is not an answer')

  const off = await callLead(s, { amd: false }, '3125550143')
  t.equal(off.request.amd, undefined, 'no machine detection asked')
  for (const field of ['MachineDetection', 'AsyncAmd', 'AsyncAmdStatusCallback']) t.notOk(field in off.request.form, `no ${field}`)
  t.notOk('machineDetection' in (off.placed.data as object), 'CallPlaced does not claim detection')
  // Without detection, in-progress is the answer, whoever picked up (a voicemail box too).
  t.equal(await statusCallback(s.fake, s.baseUrl, off.sid, 'in-progress', { sequenceNumber: 2 }), 204)
  t.match((await off.event('CallAnswered')).data, { callId: off.sid, answeredBy: null })
})

t.test('each of machine detection’s verdicts, through the signed amd hook', async (t) => {
  const s = await answerApp(t)
  const expected: Record<(typeof ANSWERED_BY)[number], { events: string[]; updates: 'none' | 'voicemail' | 'hang_up'; skip?: string }> = {
    human: { events: ['CallAnswered'], updates: 'none' },
    unknown: { events: ['CallAnswered'], updates: 'none' },
    machine_start: { events: ['CallReachedMachine', 'FollowUpScheduled', 'VoicemailSkipped'], updates: 'hang_up', skip: 'no_message_end' },
    machine_end_beep: { events: ['CallReachedMachine', 'FollowUpScheduled', 'VoicemailStarted', 'VoicemailLeft'], updates: 'voicemail' },
    machine_end_silence: { events: ['CallReachedMachine', 'FollowUpScheduled', 'VoicemailStarted', 'VoicemailLeft'], updates: 'voicemail' },
    machine_end_other: { events: ['CallReachedMachine', 'FollowUpScheduled', 'VoicemailStarted', 'VoicemailLeft'], updates: 'voicemail' },
    fax: { events: ['CallReachedMachine', 'FollowUpScheduled', 'VoicemailSkipped'], updates: 'hang_up', skip: 'fax' },
  }
  for (const [i, answeredBy] of ANSWERED_BY.entries()) {
    await t.test(answeredBy, async (t) => {
      const call = await callLead(s, {}, `312555030${i}`)
      const posted = await s.fake.postAmdCallback(call.sid, answeredBy, s.via)
      t.equal(posted.status, 204)
      t.equal(posted.body, '')
      const want = expected[answeredBy]
      const last = want.events.at(-1) as string
      await call.event(last)
      t.same((await call.types()).slice(4), want.events)
      const first = (await call.events())[4]?.data
      t.match(first, { callId: call.sid, answeredBy: answeredBy === 'human' ? 'human' : answeredBy })
      if (want.skip) t.match((await call.event('VoicemailSkipped')).data, { reason: want.skip })
      const sent = updates(s.fake, call.sid)
      if (want.updates === 'none') t.same(sent, [], 'the call goes on: the lead hears the menu')
      if (want.updates === 'hang_up') t.same(sent, [HANG_UP], 'hung up, no message')
      if (want.updates === 'voicemail') t.equal(sent.length, 1, 'one voicemail')
      t.notOk((await call.types()).includes('FollowUpStopped'), 'follow-up never stopped by a machine or a person here')
    })
  }
})

t.test('a machine at the end of its greeting gets one voicemail; follow-up goes on', async (t) => {
  const s = await answerApp(t)
  const call = await callLead(s)
  t.equal((await s.fake.postAmdCallback(call.sid, 'machine_end_beep', s.via)).status, 204)
  await call.event('VoicemailLeft')
  t.same(updates(s.fake, call.sid), [
    `${XML}<Response><Say>Hi Jane, this is Acme Roofing returning your request. Please call us back at 3 1 2, 5 5 5, 0 1 0 0. Thank you, goodbye.</Say><Hangup/></Response>`,
  ])
  const scheduled = await call.event('FollowUpScheduled')
  t.match(scheduled.data, { afterDecisionId: (call.placed.data as { decisionId: string }).decisionId })

  // Twilio repeats the verdict, then the call ends after the message: nothing more is left or scheduled.
  t.equal((await s.fake.postAmdCallback(call.sid, 'machine_end_beep', s.via)).status, 204)
  t.equal(await statusCallback(s.fake, s.baseUrl, call.sid, 'completed', { sequenceNumber: 3, extra: { CallDuration: '31' } }), 204)
  await call.event('CallNotAnswered')
  t.equal(updates(s.fake, call.sid).length, 1, 'still one call update')
  t.same(await call.types(), [
    'LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced',
    'CallReachedMachine', 'FollowUpScheduled', 'VoicemailStarted', 'VoicemailLeft', 'CallNotAnswered',
  ])
  t.match((await call.event('CallNotAnswered')).data, { status: 'machine' }, 'a voicemail is not an answer')
})

t.test('the account’s own message, or its recording', async (t) => {
  const s = await answerApp(t)
  const spoken = await callLead(s, { voicemail: 'Hello {first_name}, {business} here & <Say> ready. Bye.' })
  await s.fake.postAmdCallback(spoken.sid, 'machine_end_silence', s.via)
  await spoken.event('VoicemailLeft')
  t.same(updates(s.fake, spoken.sid), [`${XML}<Response><Say>Hello Jane, Acme Roofing here &amp; Say ready. Bye.</Say><Hangup/></Response>`])

  const recorded = await callLead(s, { voicemailUrl: 'https://cdn.acme.example/voicemail.mp3?v=2&x=1' }, '3125550143')
  await s.fake.postAmdCallback(recorded.sid, 'machine_end_beep', s.via)
  await recorded.event('VoicemailLeft')
  t.same(updates(s.fake, recorded.sid), [`${XML}<Response><Play>https://cdn.acme.example/voicemail.mp3?v=2&amp;x=1</Play><Hangup/></Response>`])
  t.match((await recorded.event('VoicemailStarted')).data, { message: 'recording' })
})

t.test('a second machine within 24 hours is hung up on: the daily voicemail limit', async (t) => {
  const clock = manualClock('2026-03-02T15:00:00Z')
  const s = await followUpSetup(t, clock)
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe' })
  const first = await nthCall(s, PHONE, 1)
  const via = { via: s.baseUrl }
  await s.fake.postAmdCallback(first, 'machine_end_beep', via)
  await waitForEvent(s.leadline, s.accountId, PHONE, 'VoicemailLeft')
  const due = (await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')).data as { dueAt: string }
  clock.set(due.dueAt)
  const second = await nthCall(s, PHONE, 2)
  t.equal((await s.fake.postAmdCallback(second, 'machine_end_beep', via)).status, 204)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'VoicemailSkipped')).data, { callId: second, reason: 'voicemail_limit' })
  await waitFor('the hang-up', () => updates(s.fake, second).length === 1)
  t.same(updates(s.fake, second), [HANG_UP], 'hung up without a message')
  t.equal(updates(s.fake, first).length, 1, 'one voicemail in all')
  t.equal((await leadEventTypes(s.leadline, s.accountId, PHONE)).filter((type) => type === 'FollowUpScheduled').length, 2, 'follow-up goes on')
})

t.test('a call update Twilio refuses, or never answers, is VoicemailFailed; a repeated verdict leaves no second voicemail', async (t) => {
  const s = await answerApp(t)
  for (const [i, fault] of ([{ kind: 'status', status: 500 }, { kind: 'destroy' }] as const).entries()) {
    await t.test(fault.kind, async (t) => {
      const call = await callLead(s, {}, `312555040${i}`)
      s.fake.failNext(fault)
      t.equal((await s.fake.postAmdCallback(call.sid, 'machine_end_beep', s.via)).status, 204)
      t.match((await call.event('VoicemailFailed')).data, { callId: call.sid, failure: 'unknown_outcome' })
      t.equal((await s.fake.postAmdCallback(call.sid, 'machine_end_beep', s.via)).status, 204)
      await sleep(100)
      t.equal(s.fake.callUpdates(call.sid).length, 1, 'the update was asked for once')
      const types = await call.types()
      t.notOk(types.includes('VoicemailLeft'))
      t.equal(types.filter((type) => type === 'VoicemailStarted').length, 1)
      t.ok(types.includes('FollowUpScheduled'), 'the lead is not lost')
    })
  }
})

t.test('a person hears the menu; 1 connects the owner once, with a whisper; the owner’s leg is recorded', async (t) => {
  const s = await answerApp(t)
  const call = await callLead(s, { onAnswer: `greeting+bridge:${OWNER}` })
  const decisionId = (call.placed.data as { decisionId: string }).decisionId
  const greeting = await s.fake.answerCall(call.sid, s.via)
  t.equal(greeting.status, 200)
  t.match(greeting.body, /^<\?xml[^>]+><Response><Gather numDigits="1" timeout="6" action="http:\/\/leadline\.test\/api\/carrier\/twilio\/menu\?decision=dec_[^"]+" method="POST"><Say>Hi Jane Doe, this is Acme Roofing calling about the request you sent us\.<\/Say>/)
  t.match(greeting.body, /Press 1 to speak with someone now\. Press 2 to have us call you back later\. Press 9 to stop these calls\./)
  t.match(greeting.body, /<\/Gather><Say>Thank you for your time\. Goodbye\.<\/Say><Hangup\/><\/Response>$/, 'no key: a polite goodbye')
  t.equal((await s.fake.postAmdCallback(call.sid, 'human', s.via)).status, 204)
  await call.event('CallAnswered')

  const pressed = await s.fake.pressKeys(call.sid, greeting.body, '1', s.via)
  t.equal(pressed.status, 200)
  t.equal(
    pressed.body,
    `${XML}<Response><Say>Connecting you now.</Say><Dial callerId="${CALLER_ID}" action="${PUBLIC_URL}/api/carrier/twilio/owner-dial?decision=${decisionId}" method="POST">` +
      `<Number url="${PUBLIC_URL}/api/carrier/twilio/whisper?decision=${decisionId}" method="POST">${OWNER}</Number></Dial></Response>`,
  )
  t.match((await call.event('MenuKeyPressed')).data, { digit: '1', choice: 'connect' })
  const whisperUrl = twimlAttribute(pressed.body, 'Number', 'url') as string
  const whisper = await s.fake.postStatusCallback(whisperUrl.replace(PUBLIC_URL, s.baseUrl), { CallSid: 'CA2' }, { signedUrl: whisperUrl })
  t.match(whisper.body, /<Say>New lead: Jane Doe\. Connecting you now\.<\/Say>/, "the owner hears the lead's name first")

  const again = await s.fake.pressKeys(call.sid, greeting.body, '1', s.via)
  t.equal(again.status, 200)
  t.notMatch(again.body, /<Dial/, 'a repeated key does not dial the owner again')
  t.equal((await call.types()).filter((type) => type === 'MenuKeyPressed').length, 1)

  const ended = await s.fake.endDial(call.sid, pressed.body, { status: 'completed', durationSeconds: 95 }, s.via)
  t.equal(ended.status, 200)
  t.equal(ended.body, `${XML}<Response><Say>Thank you for talking with us. Goodbye.</Say><Hangup/></Response>`)
  t.match((await call.event('OwnerConnectEnded')).data, { decisionId, connected: true, status: 'completed' })
  t.equal((await s.fake.endDial(call.sid, pressed.body, { status: 'completed', durationSeconds: 95 }, s.via)).status, 200, 'repeated')
  await sleep(50)
  t.equal((await call.types()).filter((type) => type === 'OwnerConnectEnded').length, 1, 'recorded once')
  t.same(s.fake.callUpdates(call.sid), [], 'a person is never sent a voicemail')
})

t.test('the owner does not answer: the lead hears an apology and the leg is recorded as not connected', async (t) => {
  const s = await answerApp(t)
  const call = await callLead(s, { onAnswer: `greeting+bridge:${OWNER}` })
  const greeting = await s.fake.answerCall(call.sid, s.via)
  const pressed = await s.fake.pressKeys(call.sid, greeting.body, '1', s.via)
  const ended = await s.fake.endDial(call.sid, pressed.body, { status: 'no-answer' }, s.via)
  t.match(ended.body, /<Say>Sorry, no one could take your call just now\. We have your request\. Goodbye\.<\/Say><Hangup\/>/)
  t.match((await call.event('OwnerConnectEnded')).data, { connected: false, status: 'no-answer' })
})

t.test('2: a callback inside calling hours, which follow-up then makes', async (t) => {
  // Monday 16:30 in New York; the account calls 09:00-17:00 on weekdays, so "in an hour" is Tuesday 09:00.
  const clock = manualClock('2026-03-02T21:30:00Z')
  const s = await answerApp(t, clock)
  const call = await callLead(s, { timeZone: 'America/New_York', callingHours: 'mon-fri 09:00-17:00' })
  const greeting = await s.fake.answerCall(call.sid, s.via)
  t.notMatch(greeting.body, /Press 1/, 'no owner number: no 1')
  const pressed = await s.fake.pressKeys(call.sid, greeting.body, '2', s.via)
  t.equal(pressed.body, `${XML}<Response><Say>Thank you. We will call you back tomorrow at 9 AM. Goodbye.</Say><Hangup/></Response>`)
  const callbackAt = '2026-03-03T14:00:00.000Z'
  t.match((await call.event('CallbackRequested')).data, { callbackAt })
  t.match((await call.event('FollowUpScheduled')).data, { dueAt: callbackAt })
  t.match((await call.event('CallAnswered')).data, { answeredBy: 'human' }, 'a key is a person')

  clock.set(callbackAt)
  await s.fake.waitForCalls(2)
  const followUp = await call.event('CallDecided', 2)
  t.match(followUp.data, { purpose: 'follow_up', decidedAt: callbackAt })
})

t.test('9: the lead is do-not-call from the keypress on, and place_call refuses them', async (t) => {
  const s = await answerApp(t)
  const call = await callLead(s)
  const greeting = await s.fake.answerCall(call.sid, s.via)
  const pressed = await s.fake.pressKeys(call.sid, greeting.body, '9', s.via)
  t.equal(pressed.body, `${XML}<Response><Say>You will not be called again. Goodbye.</Say><Hangup/></Response>`)
  t.match((await call.event('LeadMarkedDoNotCall')).data, { source: 'in_call_keypress' })

  const { key } = await s.leadline.accounts.createApiKey(call.account.accountId, ['read', 'write', 'dial'], 'test', operatorContext)
  const response = await s.app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'place_call', arguments: { phone: PHONE, name: 'Jane Doe', idempotency_key: 'after-9' } } },
  })
  t.match(response.json(), { error: { data: { code: 'do_not_call' } } })
  t.equal(placedCalls(s.fake).length, 1, 'no second call')
})

t.test('forged signatures on the new hooks are refused with 403 and record nothing; unknown decisions are 404', async (t) => {
  const s = await answerApp(t)
  const call = await callLead(s, { onAnswer: `greeting+bridge:${OWNER}` })
  const greeting = await s.fake.answerCall(call.sid, s.via)
  const dial = `<Response><Dial action="${PUBLIC_URL}/api/carrier/twilio/owner-dial?decision=${(call.placed.data as { decisionId: string }).decisionId}"/></Response>`
  const before = await s.leadline.store.headPosition()
  const forged = { ...s.via, forged: true }
  t.equal((await s.fake.postAmdCallback(call.sid, 'machine_end_beep', forged)).status, 403, 'amd')
  t.equal((await s.fake.pressKeys(call.sid, greeting.body, '9', forged)).status, 403, 'menu')
  t.equal((await s.fake.endDial(call.sid, dial, { status: 'completed', durationSeconds: 5 }, forged)).status, 403, 'owner-dial')
  t.equal(await s.leadline.store.headPosition(), before, 'nothing recorded')
  t.same(s.fake.callUpdates(), [], 'no call updated')

  const unknown = '<Response><Gather action="http://leadline.test/api/carrier/twilio/menu?decision=dec_unknown"/><Dial action="http://leadline.test/api/carrier/twilio/owner-dial?decision=dec_unknown"/></Response>'
  t.equal((await s.fake.pressKeys(call.sid, unknown, '1', s.via)).status, 404, 'menu of an unknown decision')
  t.equal((await s.fake.endDial(call.sid, unknown, { status: 'completed' }, s.via)).status, 404, 'owner-dial of an unknown decision')
  t.equal(await s.leadline.store.headPosition(), before)
})

t.test('a crash between the verdict and the call update: no second voicemail, and the lead is followed up after the restart', async (t) => {
  const clock = manualClock('2026-03-10T15:00:00Z')
  const fake = await fakeTwilio(t)
  const first = await dialingApp(t, { fake, clock, store: 'sqlite' })
  const { account, token } = await first.createAccount('Acme Roofing', { ...DIALING, callsPerSecond: 100 })
  await postLead(first.app, token, { phone: PHONE, name: 'Jane Doe' })
  const placed = await waitForEvent(first.leadline, account.accountId, PHONE, 'CallPlaced')
  const sid = (placed.data as { callId: string }).callId
  // The verdict was taken and the voicemail claimed, then the process died before it asked Twilio.
  const stream = `lead-${account.accountId}-${PHONE}`
  const owner = await first.leadline.accounts.get(account.accountId)
  await first.leadline.commands.handle(stream, leadDecider, {
    type: 'RecordAnsweredBy', settings: owner!.settings, callId: sid, answeredBy: 'machine_end_beep', node: 'crashed-node',
  }, { actor: { kind: 'carrier', id: 'twilio' } })
  await first.app.close()
  await first.leadline.close()

  const second = await reopen(t, first, { fake, clock })
  const baseUrl = await second.app.listen({ port: 0, host: '127.0.0.1' })
  // Twilio delivers the verdict again: the claim stands, so nothing more is played.
  t.equal((await fake.postAmdCallback(sid, 'machine_end_beep', { via: baseUrl })).status, 204)
  t.equal(await statusCallback(fake, baseUrl, sid, 'completed', { sequenceNumber: 3, extra: { CallDuration: '30' } }), 204)
  await waitForEvent(second.leadline, account.accountId, PHONE, 'CallNotAnswered')
  t.same(updates(fake, sid), [], 'no voicemail was played, and none twice')
  const types = await leadEventTypes(second.leadline, account.accountId, PHONE)
  t.equal(types.filter((type) => type === 'VoicemailStarted').length, 1, 'one claim')
  t.notOk(types.includes('VoicemailLeft'), 'its outcome is unknown')
  const scheduled = await waitForEvent(second.leadline, account.accountId, PHONE, 'FollowUpScheduled')

  // The lead is not lost: the follow-up scheduled with the verdict calls again when due.
  clock.set(new Date(Date.parse((scheduled.data as { dueAt: string }).dueAt) + 1000))
  await waitFor('the follow-up call', () => placedCalls(fake).length >= 2)
  t.equal(placedCalls(fake)[1]?.form.To, `+1${PHONE}`, 'the follow-up rings the lead')
})
