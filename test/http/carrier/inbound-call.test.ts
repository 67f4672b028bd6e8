/**
 * Inbound calls (issue #43), end to end: Twilio's voice webhook and the call's steps, signed with the
 * official SDK, reach POST /api/carrier/twilio/<hook>. A known lead, a new person and a do-not-call
 * person are answered; the owners are rung in order or at once and the first to press 1 takes the call
 * (a late press connects no one); outside business hours the caller may ask for a call back or leave a
 * voicemail whose recording reaches nothing of Leadline's; forged and replayed webhooks change nothing;
 * an unowned number hears a polite hang-up.
 */
import t from 'tap'
import type { Test } from 'tap'
import { CALLER_ID, dialingApp, fakeTwilio, leadEvents, manualClock, placedCalls, postLead, type ManualClock } from '../../helpers/dialing-app.ts'
import { hookPath, newCallSid, postTwilio, voiceParams } from '../../helpers/inbound-call.ts'

/** Tuesday 10 March 2026, 11:00 in New York: inside the default hours (mon-fri 09:00-18:00). */
const TUESDAY_11AM = '2026-03-10T15:00:00Z'
const JANE = '+13125550142'
const OWNER_A = '+13125550171'
const OWNER_B = '+13125550172'

async function inboundApp(t: Test, settings: Record<string, unknown> = {}, clock: ManualClock = manualClock(TUESDAY_11AM)) {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake, clock })
  const { account, token } = await built.createAccount('Acme Roofing', { callerId: CALLER_ID, leadTimeGuard: false, inboundRing: [OWNER_A, OWNER_B], ...settings })
  const post = (path: string, params: Record<string, string>, forged = false) => postTwilio(built.app, fake.authToken, path, params, forged)
  const events = async (phone = JANE) => leadEvents(built.leadline, account.accountId, phone)
  return { fake, built, account, token, post, events, clock }
}

type App = Awaited<ReturnType<typeof inboundApp>>

async function knownLead(app: App, body: Record<string, unknown> = {}) {
  const posted = await postLead(app.built.app, app.token, { phone: JANE, first_name: 'Jane', last_name: 'Doe', source: 'Google Ads', ...body })
  if (posted.status !== 200 && posted.status !== 201) throw new Error(`lead not received: ${posted.status}`)
}

t.test('a known lead calls: a greeting naming the business, then ringing; owners in order; a declined leg moves on; the first press of 1 takes the call', async (t) => {
  const app = await inboundApp(t)
  await knownLead(app)
  const call = newCallSid()
  const voice = await app.post('voice', voiceParams(call, JANE))
  t.equal(voice.status, 200)
  t.match(voice.body, /^<\?xml version="1.0" encoding="UTF-8"\?><Response><Say>Thanks for calling Acme Roofing\. Please hold while we connect you\.<\/Say><Dial [^>]*ringTone="us"/, 'the greeting, then ringback: no silence')
  t.match(voice.body, new RegExp(`<Number url="[^"]*voice-whisper\\?call=${call}&amp;leg=0" method="POST">\\${OWNER_A}</Number></Dial></Response>$`), 'the first owner number only')
  t.notMatch(voice.body, OWNER_B)
  t.match((await app.events()).map((e) => e.type).slice(-1), ['InboundCallReceived'])

  const whisper = await app.post(hookPath(voice.body, 'voice-whisper'), { CallSid: 'CAleg0', ParentCallSid: call })
  t.match(whisper.body, /<Gather numDigits="1" timeout="8" action="[^"]*voice-key\?call=[^"]*leg=0" method="POST"><Say>Call from Jane Doe about Google Ads, press 1 to take it\.<\/Say><\/Gather>/)
  const declined = await app.post(hookPath(whisper.body, 'voice-key'), { CallSid: 'CAleg0', Digits: '2' })
  t.match(declined.body, /<Hangup\/>/, 'any other key passes the call on')

  const next = await app.post(hookPath(voice.body, 'voice-dial'), { CallSid: call, DialCallStatus: 'completed' })
  t.match(next.body, new RegExp(`^<\\?xml[^>]*><Response><Dial [^>]*><Number url="[^"]*leg=1" method="POST">\\${OWNER_B}</Number></Dial></Response>$`), 'the next owner, without the greeting again')
  const taken = await app.post(`voice-key?call=${call}&leg=1`, { CallSid: 'CAleg1', Digits: '1' })
  t.match(taken.body, /^<\?xml[^>]*><Response\/>$/, 'an empty response bridges the owner')
  const done = await app.post(hookPath(next.body, 'voice-dial'), { CallSid: call, DialCallStatus: 'completed' })
  t.match(done.body, /<Hangup\/>/, 'the talk is over: the call ends')
  t.equal((await app.post('voice-status', { CallSid: call, CallStatus: 'completed', CallDuration: '95' })).status, 204)

  const log = (await app.events()).filter((e) => e.type.startsWith('Inbound'))
  t.same(log.map((e) => e.type), ['InboundCallReceived', 'InboundCallConnected', 'InboundCallEnded'])
  t.match(log[0]?.data, { callId: call, from: JANE, to: CALLER_ID, newLead: false, withinBusinessHours: true, route: 'owners' })
  t.match(log[1]?.data, { callId: call, by: 'owner', leg: 1, ownerNumber: OWNER_B })
  t.match(log[2]?.data, { status: 'completed', durationSeconds: 95 })
})

t.test('owners at once: every number rung together; the first press wins, a late second press connects no one, even at the same moment', async (t) => {
  const app = await inboundApp(t, { inboundRingMode: 'simultaneous' })
  await knownLead(app)
  const call = newCallSid()
  const voice = await app.post('voice', voiceParams(call, JANE))
  t.match(voice.body, new RegExp(`<Number [^>]*leg=0" method="POST">\\${OWNER_A}</Number><Number [^>]*leg=1" method="POST">\\${OWNER_B}</Number></Dial>`))
  const [a, b] = await Promise.all([
    app.post(`voice-key?call=${call}&leg=0`, { CallSid: 'CAlegA', Digits: '1' }),
    app.post(`voice-key?call=${call}&leg=1`, { CallSid: 'CAlegB', Digits: '1' }),
  ])
  const bodies = [a.body, b.body]
  t.equal(bodies.filter((body) => /<Response\/>$/.test(body)).length, 1, 'exactly one owner is connected')
  t.equal(bodies.filter((body) => /Someone else has taken this call\. Goodbye\.<\/Say><Hangup\/>/.test(body)).length, 1, 'the other hears it was taken and is hung up')
  t.equal((await app.events()).filter((e) => e.type === 'InboundCallConnected').length, 1)
  const late = await app.post(`voice-key?call=${call}&leg=0`, { CallSid: 'CAlegA', Digits: '1' })
  const winner = (await app.events()).find((e) => e.type === 'InboundCallConnected')?.data as { leg: number }
  t.match(late.body, winner.leg === 0 ? /<Response\/>$/ : /Someone else has taken this call/, 'a replayed press changes nothing')
  t.equal((await app.events()).filter((e) => e.type === 'InboundCallConnected').length, 1)
})

t.test('a new person becomes a lead (source inbound call, in Inbound Leads) and is never dialed, speed to lead on or not', async (t) => {
  const app = await inboundApp(t, { speedToLead: true, callingHours: 'mon-sun 00:00-24:00' })
  const stranger = '+13125550188'
  const voice = await app.post('voice', voiceParams(newCallSid(), stranger))
  t.match(voice.body, /Thanks for calling Acme Roofing/)
  const log = await app.events(stranger)
  t.same(log.map((e) => e.type), ['LeadReceived', 'InboundCallReceived'], 'in one append, and no call decided')
  t.match(log[0]?.data, { fields: { phone: stranger, source: 'inbound call' }, list: { listName: 'Inbound Leads' }, speedToLeadSkipped: { reason: 'inbound_call' } })
  t.match(log[1]?.data, { newLead: true })
  t.equal(placedCalls(app.fake).length, 0, 'nobody dialed them: no call was decided to dial')
  const whisper = await app.post(hookPath(voice.body, 'voice-whisper'), { CallSid: 'CAleg0' })
  t.match(whisper.body, /Call from a new caller about inbound call, press 1 to take it/)
})

t.test('a do-not-call person is answered, and stays do-not-call', async (t) => {
  const app = await inboundApp(t)
  await knownLead(app, { do_not_call: true })
  const voice = await app.post('voice', voiceParams(newCallSid(), JANE))
  t.match(voice.body, /Thanks for calling Acme Roofing.*<Dial/)
  const types = (await app.events()).map((e) => e.type)
  t.notOk(types.includes('LeadDoNotCallCleared'), 'nothing clears it')
  const { state } = await app.built.leadline.commands.load(`lead-${app.account.accountId}-3125550142`, (await import('../../../src/domain/lead/lead.decider.ts')).leadDecider)
  t.ok(state.doNotCall)
})

t.test('outside business hours: missed at once; the caller asks for a call back, or leaves a voicemail that stays with Twilio', async (t) => {
  const app = await inboundApp(t, {}, manualClock('2026-03-11T03:00:00Z'))
  await knownLead(app)
  const call = newCallSid()
  const voice = await app.post('voice', voiceParams(call, JANE))
  t.match(voice.body, /<Gather numDigits="1" timeout="5" action="[^"]*voice-menu\?call=[^"]*" method="POST"><Say>Sorry, nobody at Acme Roofing can take your call right now\. Press 1 and we will call you back, or stay on the line to leave a message after the tone\.<\/Say><\/Gather><Record maxLength="120" playBeep="true" timeout="5" action="[^"]*voice-record\?call=[^"]*" method="POST"\/>/)
  t.notMatch(voice.body, /<Dial/, 'no owner is rung out of hours')
  t.match((await app.events()).filter((e) => e.type.startsWith('Inbound')).map((e) => [e.type, (e.data as { reason?: string }).reason]), [
    ['InboundCallReceived', undefined], ['InboundCallMissed', 'outside_business_hours'],
  ])
  const thanks = await app.post(hookPath(voice.body, 'voice-menu'), { CallSid: call, Digits: '1' })
  t.match(thanks.body, /We will call you back as soon as we can\. Goodbye\.<\/Say><Hangup\/>/)
  t.equal((await app.events()).filter((e) => e.type === 'InboundCallbackRequested').length, 1)

  // Another call, a voicemail: only its length is kept.
  const second = newCallSid()
  const menu = await app.post('voice', voiceParams(second, JANE))
  const recordingUrl = `https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE${'7'.repeat(32)}`
  const left = await app.post(hookPath(menu.body, 'voice-record'), { CallSid: second, RecordingUrl: recordingUrl, RecordingSid: `RE${'7'.repeat(32)}`, RecordingDuration: '14', Digits: 'hangup' })
  t.match(left.body, /Thank you for your message/)
  const log = await app.events()
  t.match(log.find((e) => e.type === 'InboundVoicemailLeft')?.data, { callId: second, durationSeconds: 14 })
  t.notMatch(JSON.stringify(log), /RE7777|api\.twilio\.com|Recordings/, 'neither the recording nor its URL is on the log')
})

t.test('no owner numbers, voicemail off: the caller may only ask for a call back', async (t) => {
  const app = await inboundApp(t, { inboundRing: [], inboundVoicemail: false })
  const voice = await app.post('voice', voiceParams(newCallSid(), JANE))
  t.match(voice.body, /Press 1 and we will call you back\.<\/Say><\/Gather><Say>Goodbye\.<\/Say><Hangup\/>/)
  t.notMatch(voice.body, /<Record/)
  t.match((await app.events()).find((e) => e.type === 'InboundCallMissed')?.data, { reason: 'no_owner_numbers' })
})

t.test('every owner passes: the menu; the caller hanging up while the owners ring is missed as caller_hung_up', async (t) => {
  const app = await inboundApp(t)
  await knownLead(app)
  const call = newCallSid()
  await app.post('voice', voiceParams(call, JANE))
  await app.post(`voice-dial?call=${call}&leg=0`, { CallSid: call, DialCallStatus: 'no-answer' })
  const menu = await app.post(`voice-dial?call=${call}&leg=1`, { CallSid: call, DialCallStatus: 'busy' })
  t.match(menu.body, /voice-menu/)
  t.match((await app.events()).find((e) => e.type === 'InboundCallMissed')?.data, { reason: 'no_owner_answered' })

  const gone = newCallSid()
  await app.post('voice', voiceParams(gone, JANE))
  await app.post('voice-status', { CallSid: gone, CallStatus: 'completed', CallDuration: '7' })
  const missed = (await app.events()).filter((e) => e.type === 'InboundCallMissed').at(-1)
  t.match(missed?.data, { callId: gone, reason: 'caller_hung_up' })
})

t.test('forged and replayed webhooks change nothing; an unowned number hears a polite hang-up and nothing is recorded', async (t) => {
  const app = await inboundApp(t)
  await knownLead(app)
  const call = newCallSid()
  const forged = await app.post('voice', voiceParams(call, JANE), true)
  t.equal(forged.status, 403)
  t.equal((await app.events()).filter((e) => e.type.startsWith('Inbound')).length, 0)
  t.equal((await app.post(`voice-key?call=${call}&leg=0`, { Digits: '1' }, true)).status, 403)

  await app.post('voice', voiceParams(call, JANE))
  const count = (await app.events()).length
  const again = await app.post('voice', voiceParams(call, JANE))
  t.equal(again.status, 200)
  t.equal((await app.events()).length, count, 'the same CallSid again: nothing recorded')
  // The signed query cannot be changed: another leg's URL with the old signature is refused.
  const signedForLeg0 = await app.built.app.inject({ method: 'POST', url: `/api/carrier/twilio/voice-key?call=${call}&leg=1`, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'bm90LXRoZS1zaWduYXR1cmU=' }, payload: 'Digits=1' })
  t.equal(signedForLeg0.statusCode, 403)

  const unowned = await app.post('voice', voiceParams(newCallSid(), '+13125550199', '+13125550998'))
  t.equal(unowned.status, 200)
  t.match(unowned.body, /<Say>Sorry, this number cannot take your call\. Goodbye\.<\/Say><Hangup\/>/)
  t.equal((await app.events('+13125550199')).length, 0)
  t.equal((await app.post(`voice-key?call=CAnothing&leg=0`, { Digits: '1' })).status, 404, 'a call Leadline never answered')
})

t.test('visible: list_calls and get_call show direction inbound (outbound on the others), get_lead the last inbound contact; never the recording', async (t) => {
  const app = await inboundApp(t, { inboundRing: [] }, manualClock('2026-03-11T03:00:00Z'))
  await knownLead(app)
  const { operatorContext } = await import('../../helpers/build-app.ts')
  const { key } = await app.built.leadline.accounts.createApiKey(app.account.accountId, ['read'], 'read', operatorContext)
  let id = 0
  const tool = async (name: string, args: Record<string, unknown>) => {
    const response = await app.built.app.inject({
      method: 'POST', url: '/api/mcp', headers: { 'content-type': 'application/json', authorization: `Bearer ${key.secret}` },
      payload: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }),
    })
    return { raw: response.body, content: (response.json() as { result: { structuredContent: Record<string, unknown> } }).result.structuredContent }
  }
  const call = newCallSid()
  const menu = await app.post('voice', voiceParams(call, JANE))
  await app.post(hookPath(menu.body, 'voice-record'), { CallSid: call, RecordingUrl: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE99', RecordingSid: 'RE99', RecordingDuration: '31' })
  await app.post('voice-status', { CallSid: call, CallStatus: 'completed', CallDuration: '44' })
  await app.built.leadline.runner.catchUp()

  const listed = await tool('list_calls', { phone: JANE })
  t.match(listed.content.calls, [{ decision_id: `inb_${call}`, call_id: call, direction: 'inbound', purpose: 'inbound', from: JANE, to: CALLER_ID, result: 'missed', voicemail: 'left', failure_message: 'outside_business_hours', duration_seconds: 44 }])
  const got = await tool('get_call', { call_id: call })
  t.match(got.content.call, { direction: 'inbound', result: 'missed' })
  const lead = await tool('get_lead', { phone: JANE })
  t.match(lead.content.last_inbound, { call_id: call, result: 'missed', taken_by: null, missed_reason: 'outside_business_hours', voicemail_seconds: 31, calls_in: 1 })
  for (const answer of [listed.raw, got.raw, lead.raw]) t.notMatch(answer, /RE99|Recordings|api\.twilio\.com/, 'no recording, no URL')
})

/** Jane received with speed to lead on, her call rung out: a follow-up pending an hour on. */
async function pendingFollowUp(app: App) {
  await knownLead(app)
  await app.fake.waitForCalls(1)
  const { waitForEvent } = await import('../../helpers/dialing-app.ts')
  await waitForEvent(app.built.leadline, app.account.accountId, JANE, 'CallPlaced')
  const sid = placedCalls(app.fake)[0]?.sid as string
  if ((await app.post('status', { CallSid: sid, CallStatus: 'no-answer', AccountSid: app.fake.accountSid })).status !== 204) throw new Error('the status callback was refused')
  const scheduled = (await app.events()).find((e) => e.type === 'FollowUpScheduled')?.data as { dueAt: string }
  return scheduled
}

const FOLLOW_UP = { speedToLead: true, followUp: '1h, 1d', callsPerSecond: 100 }

t.test('a returned call counts: a lead with follow-up pending who calls in and is taken by an owner is reached; follow-up stops', async (t) => {
  const app = await inboundApp(t, FOLLOW_UP)
  const pending = await pendingFollowUp(app)
  t.equal(pending.dueAt, '2026-03-10T16:00:00.000Z')
  const call = newCallSid()
  await app.post('voice', voiceParams(call, JANE))
  await app.post(`voice-key?call=${call}&leg=0`, { CallSid: 'CAowner', Digits: '1' })
  const log = await app.events()
  t.match(log.slice(-2).map((e) => [e.type, (e.data as { reason?: string }).reason]), [['InboundCallConnected', undefined], ['FollowUpStopped', 'answered']])
  app.clock.advance(2 * 3600 * 1000)
  await app.built.leadline.runner.catchUp()
  t.equal(app.built.leadline.calls.dueFollowUps(app.clock.now().toISOString()).length, 0, 'no follow-up falls due')
})

t.test('a missed call in brings the pending follow-up forward to now, inside the calling hours', async (t) => {
  const app = await inboundApp(t, FOLLOW_UP)
  await pendingFollowUp(app)
  app.clock.advance(10 * 60 * 1000)
  const call = newCallSid()
  await app.post('voice', voiceParams(call, JANE))
  await app.post(`voice-dial?call=${call}&leg=0`, { CallSid: call, DialCallStatus: 'no-answer' })
  await app.post(`voice-dial?call=${call}&leg=1`, { CallSid: call, DialCallStatus: 'no-answer' })
  const moved = (await app.events()).find((e) => e.type === 'FollowUpRescheduled')
  t.match(moved?.data, { dueAt: '2026-03-10T15:10:00.000Z', reason: 'called_in' }, 'due now, not in 50 minutes')
  await app.built.leadline.runner.catchUp()
  t.equal(app.built.leadline.calls.dueFollowUps(app.clock.now().toISOString()).length, 1, 'the follow-up is due now')
})

t.test('nobody to ring, the assistant on: it answers, told the person called in; its session takes the call, once', async (t) => {
  const app = await inboundApp(t, { inboundRing: [], onAnswer: 'assistant' })
  await knownLead(app, { do_not_call: true })
  const call = newCallSid()
  const voice = await app.post('voice', voiceParams(call, JANE))
  t.match(voice.body, new RegExp(`<Connect action="[^"]*assistant-end\\?decision=inb_${call}" method="POST"><ConversationRelay url="ws://leadline\\.test/api/carrier/twilio/relay\\?decision=inb_${call}&amp;call=${call}"`))
  t.match(voice.body, /welcomeGreeting="Hi Jane Doe, thanks for calling Acme Roofing\. This is [^"]*automated assistant[^"]*"/, 'a do-not-call caller is answered too: they called')
  t.notOk((await app.events()).some((e) => e.type === 'InboundCallMissed'), 'not missed: the assistant has it')
  const opened = await app.built.leadline.callReports.openAssistant(`inb_${call}`, call)
  t.ok(opened !== null && 'conversation' in opened, 'the relay opens the live conversation')
  t.match((await app.events()).find((e) => e.type === 'InboundCallConnected')?.data, { callId: call, by: 'assistant' })
  t.equal(await app.built.leadline.callReports.openAssistant(`inb_${call}`, call), null, 'a replayed handshake opens nothing')
  if (opened !== null && 'conversation' in opened) await opened.conversation.close('ended')
  const { state } = await app.built.leadline.commands.load(`lead-${app.account.accountId}-3125550142`, (await import('../../../src/domain/lead/lead.decider.ts')).leadDecider)
  t.ok(state.doNotCall, 'still do-not-call')
})

t.test("a voicemail plays in the console for the account's signed-in owner, streamed from Twilio by call id; nobody else gets it", async (t) => {
  const app = await inboundApp(t, {}, manualClock('2026-03-11T03:00:00Z'))
  await knownLead(app)
  const { Browser, ownerWithPassword } = await import('../console/console-helpers.ts')
  const call = newCallSid()
  const menu = await app.post('voice', voiceParams(call, JANE))
  const audio = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 1, 2, 3, 250, 251])
  const sid = app.fake.addRecording(call, audio, 9)
  await app.post(hookPath(menu.body, 'voice-record'), { CallSid: call, RecordingSid: sid, RecordingUrl: `https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/${sid}`, RecordingDuration: '9' })
  await app.built.leadline.runner.catchUp()
  const leadId = ((await app.events())[0]?.data as { leadId: string }).leadId
  const path = `/app/leads/${leadId}/voicemail/${call}`

  const stranger = new Browser(app.built)
  t.not((await stranger.get(path)).statusCode, 200, 'not without a session')

  await ownerWithPassword(app.built, app.account.accountId, 'owner@example.com')
  const owner = new Browser(app.built)
  t.equal((await owner.signIn('owner@example.com')).statusCode, 303)
  const page = await owner.get(`/app/leads/${leadId}`)
  t.match(page.body, `<audio controls preload="none" src="${path}"></audio>`)
  t.notMatch(page.body, new RegExp(`${sid}|Recordings|api\\.twilio\\.com`), 'the page holds no recording URL')
  const played = await app.built.app.inject({ method: 'GET', url: path, headers: { cookie: owner.cookieHeader() } })
  t.equal(played.statusCode, 200)
  t.equal(played.headers['content-type'], 'audio/mpeg')
  t.match(String(played.headers['cache-control']), /no-store/)
  t.same([...played.rawPayload], [...audio], 'the bytes Twilio holds')
  t.ok(app.fake.requests().some((r) => r.path.includes(`Recordings.json?CallSid=${call}`)), 'found by call id through the SDK')
  t.equal((await app.built.app.inject({ method: 'GET', url: `/app/leads/${leadId}/voicemail/CAother`, headers: { cookie: owner.cookieHeader() } })).statusCode, 404, 'a call without a voicemail')

  const other = await app.built.createAccount('Other Co')
  await ownerWithPassword(app.built, other.account.accountId, 'other@example.com')
  const outsider = new Browser(app.built)
  await outsider.signIn('other@example.com')
  t.equal((await app.built.app.inject({ method: 'GET', url: path, headers: { cookie: outsider.cookieHeader() } })).statusCode, 404, "another account's owner gets nothing")
  t.notMatch(JSON.stringify(await app.events()), new RegExp(`${sid}|Recordings`), 'nothing of it on the log')
})
