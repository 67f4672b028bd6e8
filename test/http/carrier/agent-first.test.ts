/**
 * Agent-first calling end to end (issue #26, must-haves 4 and 7): the real app with the Twilio adapter
 * (the official SDK) on the fake Twilio, callbacks signed with the SDK's signature over the public URL.
 * The owner is rung first and hears who the lead is; the lead is dialed only by the TwiML answering
 * the owner's 1 (a `<Dial>` from the account's number), never by a REST call of its own, and never
 * twice; a decline or the owner's voicemail rings the next owner number, then follow-up takes over.
 */
import t from 'tap'
import type { Test } from 'tap'
import { statusCallbackParams, type FakeTwilio, type FormFields } from '../../doubles/fake-twilio.ts'
import {
  ALWAYS, CALLER_ID, PUBLIC_URL, followUpSetup, leadEvents, leadEventTypes, manualClock, placedCalls, postLead, sleep, statusCallback, waitForEvent,
  type FollowUpSetup,
} from '../../helpers/dialing-app.ts'

const PHONE = '+13125550142'
const OWNER_1 = '+13125550199'
const OWNER_2 = '+13125550198'
const NOW = '2026-03-10T15:00:00Z' // a Tuesday, 11:00 in New York

/** An agent-first account (owner numbers `owners`) on a fixed clock, and its first lead, whose first call has gone out. */
async function agentFirstLead(t: Test, owners: readonly string[] = [OWNER_1, OWNER_2], settings: Record<string, unknown> = {}, at = NOW) {
  const clock = manualClock(at)
  const s = await followUpSetup(t, clock, { onAnswer: `agent-first:${owners.join(',')}`, ...settings })
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe', source: 'Facebook ads', best_time: 'evenings' })
  const placed = await waitForEvent(s.leadline, s.accountId, PHONE, 'CallPlaced')
  const decisionId = (placed.data as { decisionId: string }).decisionId
  const sid = (placed.data as { callId: string }).callId
  return { ...s, clock, decisionId, sid, answerUrl: placedCalls(s.fake).find((r) => r.sid === sid)?.form.Url as string }
}

/** POSTs `params` to a Leadline URL as Twilio would: to the listening app, signed over the public URL it was given. */
async function twilioPost(s: Pick<FollowUpSetup, 'fake' | 'baseUrl'>, publicUrl: string, params: FormFields, options: { forged?: boolean } = {}) {
  return s.fake.postStatusCallback(publicUrl.replace(PUBLIC_URL, s.baseUrl), params, { signedUrl: publicUrl, ...options })
}

/** The owner's leg picks up: Twilio fetches its TwiML; answers the TwiML and the URL its `<Gather>` posts the key to. */
async function ownerAnswers(s: Pick<FollowUpSetup, 'fake' | 'baseUrl'>, answerUrl: string, sid: string) {
  const answer = await twilioPost(s, answerUrl, { ...statusCallbackParams({ callSid: sid, status: 'in-progress' }), AnsweredBy: 'human' })
  const action = /action="([^"]+)"/.exec(answer.body)?.[1]?.replace(/&amp;/g, '&') ?? ''
  return { answer, agentKeyUrl: action }
}

/** The owner's key, as the `<Gather>` posts it ('' when the timeout passed with none). */
function pressKey(s: Pick<FollowUpSetup, 'fake' | 'baseUrl'>, agentKeyUrl: string, sid: string, digits: string, options: { forged?: boolean } = {}) {
  return twilioPost(s, agentKeyUrl, { ...statusCallbackParams({ callSid: sid, status: 'in-progress' }), Digits: digits }, options)
}

const callsTo = (fake: FakeTwilio, number: string) => placedCalls(fake).filter((r) => r.form.To === number)

t.test('the owner is rung first, hears the lead, and only their 1 dials the lead, from the account number, once', async (t) => {
  const s = await agentFirstLead(t)
  t.equal(placedCalls(s.fake).length, 1)
  t.match(placedCalls(s.fake)[0]?.form, { To: OWNER_1, From: CALLER_ID }, 'the first call goes to the owner, not the lead')
  t.match(s.answerUrl, /\/api\/carrier\/twilio\/answer\?decision=dec_/, "the decision's own answer hook")
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'CallPlaced')).data, { ownerLeg: 0, to: OWNER_1 })

  const { answer, agentKeyUrl } = await ownerAnswers(s, s.answerUrl, s.sid)
  t.equal(answer.status, 200)
  t.match(answer.body, /<Gather numDigits="1" action="http:\/\/leadline\.test\/api\/carrier\/twilio\/agent-key\?decision=dec_[^"]+" method="POST" timeout="8" actionOnEmptyResult="true">/)
  t.match(answer.body, /<Say>New lead for Acme: Jane Doe, from Facebook ads\. best time: evenings\. Press 1 to call them now\.<\/Say><\/Gather>/)
  t.equal((await ownerAnswers(s, s.answerUrl, s.sid)).agentKeyUrl, agentKeyUrl)
  // The owner picking up is not the lead answering.
  t.equal(await statusCallback(s.fake, s.baseUrl, s.sid, 'in-progress', { sequenceNumber: 2, extra: { AnsweredBy: 'human' } }), 204)
  await sleep(50)
  t.notOk((await leadEventTypes(s.leadline, s.accountId, PHONE)).includes('CallAnswered'))
  t.equal(callsTo(s.fake, PHONE).length, 0, 'no call to the lead before a key')

  t.equal((await pressKey(s, agentKeyUrl, s.sid, '1', { forged: true })).status, 403, 'a forged key is refused')
  t.notOk((await leadEventTypes(s.leadline, s.accountId, PHONE)).includes('LeadDialStarted'))

  const pressed = await pressKey(s, agentKeyUrl, s.sid, '1')
  t.equal(pressed.status, 200)
  t.match(
    pressed.body,
    new RegExp(`<Say>Calling Jane Doe now\\.</Say><Dial callerId="\\${CALLER_ID}" action="http://leadline\\.test/api/carrier/twilio/lead-dial\\?decision=${s.decisionId}" method="POST"><Number>\\${PHONE}</Number></Dial>`),
  )
  const again = await pressKey(s, agentKeyUrl, s.sid, '1')
  t.equal(again.status, 200)
  t.notMatch(again.body, /<Dial/, 'a repeated 1 dials no one')
  t.equal((await leadEvents(s.leadline, s.accountId, PHONE)).filter((e) => e.type === 'LeadDialStarted').length, 1, 'one dial of the lead')
  t.equal(placedCalls(s.fake).length, 1, 'the lead is dialed inside the owner call, no second call is created')

  const leadDialUrl = /action="([^"]+)"/.exec(pressed.body)?.[1]?.replace(/&amp;/g, '&') as string
  const dialParams = { ...statusCallbackParams({ callSid: s.sid, status: 'in-progress' }), DialCallStatus: 'completed', DialCallSid: `CA${'d'.repeat(32)}`, DialCallDuration: '64' }
  t.equal((await twilioPost(s, leadDialUrl, dialParams, { forged: true })).status, 403, 'a forged dial result is refused')
  const dialed = await twilioPost(s, leadDialUrl, dialParams)
  t.equal(dialed.status, 200)
  t.match(dialed.body, /<Response><Hangup\/><\/Response>/)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'CallAnswered')).data, { callId: s.sid, answeredBy: 'human' })
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'OwnerConnectEnded')).data, { connected: true })
  t.equal((await twilioPost(s, leadDialUrl, dialParams)).status, 200, 'a repeated dial result')
  t.equal(await statusCallback(s.fake, s.baseUrl, s.sid, 'completed', { sequenceNumber: 3, extra: { CallDuration: '80' } }), 204)
  await waitForEvent(s.leadline, s.accountId, PHONE, 'CallCompleted')
  t.same(await leadEventTypes(s.leadline, s.accountId, PHONE), [
    'LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced', 'LeadDialStarted', 'CallAnswered', 'OwnerConnectEnded', 'CallCompleted',
  ])
})

t.test("a decline, then the next owner's voicemail: the lead is never dialed, each is recorded, follow-up takes over", async (t) => {
  const s = await agentFirstLead(t)
  const { agentKeyUrl } = await ownerAnswers(s, s.answerUrl, s.sid)
  const declined = await pressKey(s, agentKeyUrl, s.sid, '2')
  t.equal(declined.status, 200)
  t.match(declined.body, /<Say>OK, we will not call them now\. Goodbye\.<\/Say><Hangup\/>/)
  t.notMatch(declined.body, /<Dial/)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'AgentUnavailable')).data, { callId: s.sid, leg: 0, reason: 'declined', nextLeg: 1 })

  // Owner number 2 is rung for the same decision; its call id finds the decision.
  const second = await waitForEvent(s.leadline, s.accountId, PHONE, 'CallPlaced', 2)
  const sid2 = (second.data as { callId: string }).callId
  t.match(second.data, { decisionId: s.decisionId, ownerLeg: 1, to: OWNER_2 })
  t.match(placedCalls(s.fake)[1]?.form, { To: OWNER_2, From: CALLER_ID, Url: s.answerUrl })
  await s.leadline.runner.catchUp()
  t.equal(s.leadline.calls.byCallId(sid2)?.decisionId, s.decisionId)
  t.equal(s.leadline.calls.byCallId(s.sid)?.decisionId, s.decisionId, "owner 1's leg still finds it")
  t.equal(await statusCallback(s.fake, s.baseUrl, s.sid, 'completed', { sequenceNumber: 3, extra: { CallDuration: '12' } }), 204, "owner 1's leg ends")

  // Owner 2's voicemail picks up: machine detection says so, the leg is hung up, no one else is left.
  t.equal(await statusCallback(s.fake, s.baseUrl, sid2, 'in-progress', { sequenceNumber: 2, extra: { AnsweredBy: 'machine_end_beep' } }), 204)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'AgentUnavailable', 2)).data, { callId: sid2, leg: 1, reason: 'owner_voicemail', nextLeg: null })
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')).data, { attempt: 2, afterDecisionId: s.decisionId })
  const hangUp = s.fake.requests().find((r) => r.path.endsWith(`/Calls/${sid2}.json`))
  t.match(hangUp?.form, { Twiml: /<Hangup\/>/ }, "the owner's voicemail is hung up through the call update")
  // Its late key (the gather timing out on the voicemail) and its end change nothing.
  t.match((await pressKey(s, agentKeyUrl, sid2, '')).body, /<Say>Goodbye\.<\/Say>/)
  t.equal(await statusCallback(s.fake, s.baseUrl, sid2, 'completed', { sequenceNumber: 3, extra: { CallDuration: '30', AnsweredBy: 'machine_end_beep' } }), 204)
  await sleep(50)

  const types = await leadEventTypes(s.leadline, s.accountId, PHONE)
  t.same(types, [
    'LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced', 'AgentUnavailable', 'OwnerLegStarted', 'CallPlaced', 'AgentUnavailable', 'FollowUpScheduled',
  ])
  t.equal(callsTo(s.fake, PHONE).length, 0, 'the lead was never called')
  t.equal(placedCalls(s.fake).length, 2)
})

t.test('no key from the only owner: not dialed, recorded as no_key, follow-up scheduled', async (t) => {
  const s = await agentFirstLead(t, [OWNER_1])
  const { agentKeyUrl } = await ownerAnswers(s, s.answerUrl, s.sid)
  const silent = await pressKey(s, agentKeyUrl, s.sid, '')
  t.match(silent.body, /<Say>No key was pressed\. Goodbye\.<\/Say><Hangup\/>/)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'AgentUnavailable')).data, { reason: 'no_key', nextLeg: null })
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  t.equal(placedCalls(s.fake).length, 1)
})

t.test('outside calling hours at the moment 1 is pressed: the owner hears why, the lead is not dialed', async (t) => {
  // Calls allowed until 11:00 in New York; the owner is rung at 10:59:50 and presses 1 at 11:00:10.
  const s = await agentFirstLead(t, [OWNER_1, OWNER_2], { callingHours: 'mon-sun 09:00-11:00' }, '2026-03-10T14:59:50Z')
  const { agentKeyUrl } = await ownerAnswers(s, s.answerUrl, s.sid)
  s.clock.advance(20_000)
  const pressed = await pressKey(s, agentKeyUrl, s.sid, '1')
  t.equal(pressed.status, 200)
  t.match(pressed.body, /<Say>Sorry, Jane Doe cannot be called right now: it is outside your calling hours\. Goodbye\.<\/Say><Hangup\/>/)
  t.notMatch(pressed.body, /<Dial/)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'AgentUnavailable')).data, { reason: 'lead_not_allowed', refusal: 'outside_calling_hours', nextLeg: null })
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  t.notOk((await leadEventTypes(s.leadline, s.accountId, PHONE)).includes('LeadDialStarted'))
  t.equal(placedCalls(s.fake).length, 1, 'no other owner is woken for a lead that may not be called')
})

t.test('unknown decisions and malformed agent-first callbacks', async (t) => {
  const s = await agentFirstLead(t, [OWNER_1], { callingHours: ALWAYS })
  const unknown = `${PUBLIC_URL}/api/carrier/twilio/agent-key?decision=dec_unknown`
  t.equal((await pressKey(s, unknown, s.sid, '1')).status, 404)
  t.equal((await twilioPost(s, `${PUBLIC_URL}/api/carrier/twilio/lead-dial?decision=${s.decisionId}`, { CallSid: s.sid })).status, 400, 'no DialCallStatus')
  t.equal((await twilioPost(s, `${PUBLIC_URL}/api/carrier/twilio/agent-key`, { CallSid: s.sid, Digits: '1' })).status, 404, 'no decision')
  t.notOk((await leadEventTypes(s.leadline, s.accountId, PHONE)).includes('LeadDialStarted'))
})

const FALLBACK = `agent-first:${OWNER_1};then=assistant`

/** A `then=assistant` account whose only owner declined: the lead is called directly for the assistant. */
async function declinedFallback(t: Test, settings: Record<string, unknown> = {}, at = NOW) {
  const clock = manualClock(at)
  const s = await followUpSetup(t, clock, { onAnswer: FALLBACK, ...settings })
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe', source: 'Facebook ads' })
  const placed = await waitForEvent(s.leadline, s.accountId, PHONE, 'CallPlaced')
  const sid = (placed.data as { callId: string }).callId
  const answerUrl = placedCalls(s.fake).find((r) => r.sid === sid)?.form.Url as string
  const { agentKeyUrl } = await ownerAnswers(s, answerUrl, sid)
  return { ...s, clock, sid, answerUrl, agentKeyUrl, decisionId: (placed.data as { decisionId: string }).decisionId }
}

t.test('then=assistant: no owner accepts, so the lead is called directly, once, and the assistant answers a person', async (t) => {
  const s = await declinedFallback(t)
  t.match((await pressKey(s, s.agentKeyUrl, s.sid, '2')).body, /we will not call them now/)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'AgentUnavailable')).data, { reason: 'declined', nextLeg: null })
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'AssistantFallbackStarted')).data, { decisionId: s.decisionId, to: PHONE })
  const direct = await waitForEvent(s.leadline, s.accountId, PHONE, 'CallPlaced', 2)
  const leadSid = (direct.data as { callId: string }).callId
  t.match(direct.data, { decisionId: s.decisionId })
  t.equal((direct.data as { ownerLeg?: number }).ownerLeg, undefined, 'a direct call, not an owner leg')
  const request = callsTo(s.fake, PHONE)
  t.equal(request.length, 1, 'one direct call to the lead')
  t.match(request[0]?.form, { From: CALLER_ID, Url: s.answerUrl })

  // Repeated callbacks of the owner's leg claim nothing more.
  t.match((await pressKey(s, s.agentKeyUrl, s.sid, '2')).body, /Goodbye/)
  t.equal(await statusCallback(s.fake, s.baseUrl, s.sid, 'completed', { sequenceNumber: 3, extra: { CallDuration: '9' } }), 204)

  // The lead picks up: the assistant's ConversationRelay, not the owner's prompt.
  const answer = await twilioPost(s, s.answerUrl, { ...statusCallbackParams({ callSid: leadSid, status: 'in-progress' }), AnsweredBy: 'human' })
  t.equal(answer.status, 200)
  t.match(answer.body, /<Connect action="http:\/\/leadline\.test\/api\/carrier\/twilio\/assistant-end\?decision=dec_[^"]+"[^>]*><ConversationRelay url="wss?:\/\/leadline\.test\/api\/carrier\/twilio\/relay\?decision=dec_/)
  t.match(answer.body, /welcomeGreeting="[^"]*Acme[^"]*"/)
  t.notMatch(answer.body, /Press 1/)
  t.equal(await statusCallback(s.fake, s.baseUrl, leadSid, 'in-progress', { sequenceNumber: 2, extra: { AnsweredBy: 'human' } }), 204)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'CallAnswered')).data, { callId: leadSid })
  await sleep(50)
  const types = await leadEventTypes(s.leadline, s.accountId, PHONE)
  t.equal(types.filter((type) => type === 'AssistantFallbackStarted').length, 1)
  t.notOk(types.includes('FollowUpScheduled'), 'the lead was reached: no follow-up')
  t.equal(callsTo(s.fake, PHONE).length, 1, 'still one call to the lead')
})

t.test('then=assistant: the direct call reaches a machine, which gets the voicemail, and follow-up goes on', async (t) => {
  const s = await declinedFallback(t, { amd: true })
  await pressKey(s, s.agentKeyUrl, s.sid, '')
  const direct = await waitForEvent(s.leadline, s.accountId, PHONE, 'CallPlaced', 2)
  const leadSid = (direct.data as { callId: string }).callId
  t.match(direct.data, { machineDetection: true })
  t.equal(await statusCallback(s.fake, s.baseUrl, leadSid, 'in-progress', { sequenceNumber: 2, extra: { AnsweredBy: 'machine_end_beep' } }), 204)
  await waitForEvent(s.leadline, s.accountId, PHONE, 'VoicemailStarted')
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')).data, { afterDecisionId: s.decisionId })
})

t.test('then=assistant: an owner accepts, so there is no fallback', async (t) => {
  const s = await declinedFallback(t)
  t.match((await pressKey(s, s.agentKeyUrl, s.sid, '1')).body, /<Dial/)
  await waitForEvent(s.leadline, s.accountId, PHONE, 'LeadDialStarted')
  await sleep(50)
  t.notOk((await leadEventTypes(s.leadline, s.accountId, PHONE)).includes('AssistantFallbackStarted'))
  t.equal(placedCalls(s.fake).length, 1, 'the lead is dialed inside the owner call only')
})

t.test('then=assistant: outside calling hours at the fallback moment, follow-up decides, nothing is called', async (t) => {
  const s = await declinedFallback(t, { callingHours: 'mon-sun 09:00-11:00' }, '2026-03-10T14:59:50Z')
  s.clock.advance(20_000)
  await pressKey(s, s.agentKeyUrl, s.sid, '2')
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'AgentUnavailable')).data, { reason: 'declined', nextLeg: null })
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  await sleep(50)
  t.notOk((await leadEventTypes(s.leadline, s.accountId, PHONE)).includes('AssistantFallbackStarted'))
  t.equal(callsTo(s.fake, PHONE).length, 0)
})
