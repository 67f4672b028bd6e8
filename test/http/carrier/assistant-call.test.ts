/**
 * The assistant on the phone line, end to end: the REAL Twilio adapter against the fake Twilio, the
 * real route, and a ConversationRelay client double (`ws`, handshake signed with the SDK) talking to
 * the engine's scripted assistant. The answer's TwiML, the relay's messages, the `<Connect>` action
 * that dials the owner, a forged handshake, do-not-call mid-call, a dropped socket, the concurrency limit.
 */
import t from 'tap'
import type { Test } from 'tap'
import { twimlAttribute } from '../../doubles/fake-twilio.ts'
import { connectRelay } from '../../doubles/fake-conversation-relay.ts'
import { DIALING, PUBLIC_URL, dialingApp, fakeTwilio, leadEventTypes, leadEvents, placedCalls, postLead, waitForEvent } from '../../helpers/dialing-app.ts'

const XML = '<?xml version="1.0" encoding="UTF-8"?>'

async function relayApp(t: Test, options: { assistantMaxCallMs?: number; assistantSilenceMs?: number } = {}) {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake, ...options })
  const baseUrl = await built.listen()
  return { fake, ...built, baseUrl }
}

type RelayApp = Awaited<ReturnType<typeof relayApp>>

/** The log's length: a refused handshake must leave it as it was. */
async function logLength(s: RelayApp): Promise<number> {
  return (await s.leadline.store.readAll()).length
}

const relayPath = (decision: string, call = 'CA0123') => `${PUBLIC_URL.replace(/^http/, 'ws')}/api/carrier/twilio/relay?decision=${decision}&call=${call}`

t.test('a forged, unsigned, decision-less or call-less handshake is refused with 403 before the upgrade, and records nothing', async (t) => {
  const s = await relayApp(t)
  const before = await logLength(s)
  const refused = {
    forged: { url: relayPath('dec_1'), forged: true },
    unsigned: { url: relayPath('dec_1'), unsigned: true },
    'no decision': { url: `${PUBLIC_URL.replace(/^http/, 'ws')}/api/carrier/twilio/relay` },
    'no call': { url: `${PUBLIC_URL.replace(/^http/, 'ws')}/api/carrier/twilio/relay?decision=dec_1` },
    'signed over http:// instead of the ws:// URL Twilio was given': { url: relayPath('dec_1').replace(/^ws/, 'http') },
  }
  for (const [what, options] of Object.entries(refused)) {
    const status = await connectRelay({ via: s.baseUrl, authToken: s.fake.authToken, ...options }).then(() => 'opened', (e: { status?: number }) => e.status)
    t.equal(status, 403, what)
  }
  t.equal(await logLength(s), before, 'nothing recorded')

  const plain = await s.app.inject({ method: 'GET', url: '/api/carrier/twilio/relay?decision=dec_1' })
  t.equal(plain.statusCode, 404, 'a plain GET is not a relay')
  const simulated = await connectRelay({ url: relayPath('dec_1').replace('/twilio/', '/simulated/'), via: s.baseUrl, authToken: s.fake.authToken }).then(() => 'opened', (e: { status?: number }) => e.status)
  t.equal(simulated, 404, 'only the open carrier has a relay')
})

t.test('a signed socket for a decision Leadline does not know is closed at setup, with nothing said or recorded', async (t) => {
  const s = await relayApp(t)
  const before = await logLength(s)
  const relay = await connectRelay({ url: relayPath('dec_unknown'), via: s.baseUrl, authToken: s.fake.authToken })
  relay.setup('CA0123')
  t.equal(await relay.closed, 1008)
  t.same(relay.received(), [])
  t.equal(await logLength(s), before)
})

const OWNER = '+13125550177'
const BRIEF = {
  business: 'Lakeside Roofing repairs and replaces roofs in Chicago.',
  questions: [
    { question: 'Do you own the home?', goodAnswer: 'yes' },
    { question: 'What is wrong with the roof?', goodAnswer: 'a leak or storm damage' },
  ],
  transferNumber: OWNER,
  assistantName: 'Robin',
}

/** A new assistant account's lead, called and answered by a person: the answer's TwiML, as Twilio fetched it. */
async function answeredCall(s: RelayApp, options: { phone?: string; brief?: Record<string, unknown>; account?: { accountId: string; token: string } } = {}) {
  const phone = options.phone ?? '3125550142'
  const account: { accountId: string; token: string } =
    options.account ??
    (await s.createAccount('Lakeside Roofing', { ...DIALING, callsPerSecond: 100, onAnswer: 'assistant', assistantBrief: options.brief ?? BRIEF }).then((a) => ({ accountId: a.account.accountId as string, token: a.token })))
  t.equal((await postLead(s.app, account.token, { phone, first_name: 'Dana', last_name: 'Reyes', source: 'roof-form' })).status, 201)
  const placed = await waitForEvent(s.leadline, account.accountId, phone, 'CallPlaced')
  const sid = (placed.data as { callId: string }).callId
  const decision = (placed.data as { decisionId: string }).decisionId
  t.equal((await s.fake.postAmdCallback(sid, 'human', { via: s.baseUrl })).status, 204)
  await waitForEvent(s.leadline, account.accountId, phone, 'CallAnswered')
  const answer = await s.fake.answerCall(sid, { via: s.baseUrl })
  const events = () => leadEvents(s.leadline, account.accountId, phone)
  const event = (type: string) => waitForEvent(s.leadline, account.accountId, phone, type)
  const relay = () => connectRelay({ url: twimlAttribute(answer.body, 'ConversationRelay', 'url') as string, via: s.baseUrl, authToken: s.fake.authToken })
  /** Twilio posts the session's end to the <Connect> action, with the relay's HandoffData when there was one. */
  const action = async (fields: Record<string, string>) => {
    const url = twimlAttribute(answer.body, 'Connect', 'action') as string
    const target = new URL(url)
    return s.fake.postStatusCallback(`${s.baseUrl}${target.pathname}${target.search}`, { CallSid: sid, AccountSid: s.fake.accountSid, SessionId: `VX${'1'.repeat(32)}`, ...fields }, { signedUrl: url })
  }
  return { ...account, phone, sid, decision, answer, events, event, relay, action }
}

t.test('a person answers: the greeting and the relay in TwiML, tokens streamed turn by turn, a transfer ends the session, and the action dials the owner with a whisper', async (t) => {
  const s = await relayApp(t)
  const call = await answeredCall(s)
  t.equal(call.answer.status, 200)
  const greeting = twimlAttribute(call.answer.body, 'ConversationRelay', 'welcomeGreeting') as string
  t.match(greeting, /Lakeside Roofing/, 'the greeting names the business')
  t.match(greeting, /automated assistant/, 'and says it is an automated assistant')
  t.equal(twimlAttribute(call.answer.body, 'ConversationRelay', 'url'), `ws://leadline.test/api/carrier/twilio/relay?decision=${call.decision}&call=${call.sid}`)
  t.equal(twimlAttribute(call.answer.body, 'Connect', 'action'), `${PUBLIC_URL}/api/carrier/twilio/assistant-end?decision=${call.decision}`)
  t.equal(twimlAttribute(call.answer.body, 'ConversationRelay', 'language'), 'en-US')
  t.equal(twimlAttribute(call.answer.body, 'ConversationRelay', 'dtmfDetection'), 'true')

  const relay = await call.relay()
  relay.setup(call.sid)
  relay.prompt('Yes, go ahead.')
  t.equal(await relay.turn(), 'Do you own the home?')
  relay.prompt('Yes, I do.')
  t.equal(await relay.turn(), 'What is wrong with the roof?')
  relay.prompt('It leaks after every storm.')
  t.match(await relay.turn(), /speak with someone from Lakeside Roofing now\?/)
  relay.prompt('Yes please.')
  const handoff = await relay.ended()
  t.match(handoff, { reason: 'transfer', to: OWNER })
  const texts = relay.received().filter((m) => m.type === 'text')
  t.ok(texts.every((m) => typeof m.token === 'string' && typeof m.last === 'boolean'), 'text messages carry token and last')
  t.equal(texts.filter((m) => m.last === true).length, 4, 'each turn closed with last: true')
  relay.close()
  t.equal(await relay.closed, 1000)
  t.match((await call.event('AssistantCallEnded')).data, { decisionId: call.decision, disposition: 'transferred' })

  const posted = await call.action({ SessionStatus: 'ended', SessionDuration: '48', HandoffData: JSON.stringify(handoff) })
  t.equal(posted.status, 200)
  t.match(posted.body, new RegExp(`^${XML.replace(/[?.]/g, '\\$&')}<Response><Dial callerId="\\+13125550100" action="${PUBLIC_URL}/api/carrier/twilio/owner-dial\\?decision=${call.decision}" method="POST"><Number url="[^"]+" method="POST">\\+13125550177</Number></Dial></Response>$`))
  const whisperUrl = twimlAttribute(posted.body, 'Number', 'url') as string
  t.match(whisperUrl, `${PUBLIC_URL}/api/carrier/twilio/assistant-whisper?decision=${call.decision}&whisper=`)
  const target = new URL(whisperUrl)
  const whisper = await s.fake.postStatusCallback(`${s.baseUrl}${target.pathname}${target.search}`, { CallSid: 'CAowner' }, { signedUrl: whisperUrl })
  t.equal(whisper.status, 200)
  t.match(whisper.body, /^<\?xml version="1\.0" encoding="UTF-8"\?><Response><Say>[^<]+<\/Say><\/Response>$/, 'the owner hears the whisper alone')
  const forged = await s.fake.postStatusCallback(`${s.baseUrl}${new URL(twimlAttribute(call.answer.body, 'Connect', 'action') as string).pathname}?decision=${call.decision}`, { HandoffData: JSON.stringify({ reason: 'transfer', to: '+19005550100', whisper: 'x' }) }, { forged: true, signedUrl: twimlAttribute(call.answer.body, 'Connect', 'action') as string })
  t.equal(forged.status, 403, 'a forged action dials no one')
})

t.test('a transfer nobody accepts: "Connecting you now." said once, connect_missed recorded and listed, and the lead called back (issue #40)', async (t) => {
  const s = await relayApp(t)
  const call = await answeredCall(s)
  const relay = await call.relay()
  relay.setup(call.sid)
  relay.prompt('Yes, go ahead.')
  await relay.turn()
  relay.prompt('I would like to talk to a person please.')
  const handoff = await relay.ended()
  t.match(handoff, { reason: 'transfer', to: OWNER })
  relay.close()
  await call.event('AssistantCallEnded')
  const spoken = relay.received().filter((m) => m.type === 'text').map((m) => m.token as string).join('')
  const posted = await call.action({ SessionStatus: 'ended', SessionDuration: '20', HandoffData: JSON.stringify(handoff) })
  const said = [...posted.body.matchAll(/<Say>([^<]*)<\/Say>/g)].map((m) => m[1]).join(' ')
  t.equal(`${spoken} ${said}`.split('Connecting you now.').length - 1, 1, 'the lead hears "Connecting you now." once, relay and TwiML together')

  // The owner does not pick up: Twilio posts the dial's end to owner-dial.
  const ownerDialUrl = twimlAttribute(posted.body, 'Dial', 'action') as string
  const target = new URL(ownerDialUrl)
  const dialed = await s.fake.postStatusCallback(`${s.baseUrl}${target.pathname}${target.search}`, { CallSid: call.sid, AccountSid: s.fake.accountSid, DialCallStatus: 'no-answer', DialCallDuration: '0' }, { signedUrl: ownerDialUrl })
  t.equal(dialed.status, 200)
  t.match(dialed.body, /no one could take your call/)
  t.match((await call.event('OwnerConnectEnded')).data, { decisionId: call.decision, connected: false, status: 'no-answer' })
  const scheduled = (await call.events()).filter((e) => e.type === 'FollowUpScheduled').at(-1)
  t.match(scheduled?.data, { afterDecisionId: call.decision, connectMissed: true }, 'follow-up calls the lead back')
  t.ok(Date.parse((scheduled?.data as { dueAt: string }).dueAt) >= Date.now() + 59 * 60_000, 'about an hour on, inside the hours')
  const again = await s.fake.postStatusCallback(`${s.baseUrl}${target.pathname}${target.search}`, { CallSid: call.sid, AccountSid: s.fake.accountSid, DialCallStatus: 'no-answer', DialCallDuration: '0' }, { signedUrl: ownerDialUrl })
  t.equal(again.status, 200)
  t.equal((await call.events()).filter((e) => e.type === 'OwnerConnectEnded').length, 1, 'a repeated callback records nothing twice')

  await s.leadline.runner.catchUp()
  const account = await s.leadline.accounts.require(call.accountId)
  const next = await s.leadline.nextActions.getNextActions(account)
  t.match(next.stale_leads[0], { phone: '+13125550142', why: 'connect_missed' }, 'get_next_actions lists the lead, as after menu key 1')
  t.match(next.summary, /1 lead pressed 1 to talk to someone/)
})

t.test('the lead becomes do-not-call after the answer: setup ends the session with a goodbye; key 9 mid-call opts out', async (t) => {
  const s = await relayApp(t)
  const call = await answeredCall(s)
  // The sender flags the lead do-not-call while the greeting plays.
  t.equal((await postLead(s.app, call.token, { phone: call.phone, dnc: 'yes' })).status, 200)
  t.match((await call.event('LeadUpdated')).data, { changes: { doNotCall: true } })
  const relay = await call.relay()
  relay.setup(call.sid)
  const refused = await relay.ended()
  t.match(refused, { reason: 'refused', goodbye: /\S/ })
  t.same(relay.received().filter((m) => m.type === 'text'), [], 'not a word from the assistant')
  relay.close()
  const posted = await call.action({ SessionStatus: 'ended', HandoffData: JSON.stringify(refused) })
  t.equal(posted.body, `${XML}<Response><Say>${String(refused.goodbye).replace(/&/g, '&amp;')}</Say><Hangup/></Response>`)

  const second = await answeredCall(s, { phone: '3125550143', account: { accountId: call.accountId, token: call.token } })
  const relay2 = await second.relay()
  relay2.setup(second.sid)
  relay2.prompt('Who is this?')
  await relay2.turn()
  relay2.dtmf('9')
  t.match(await relay2.ended(), { reason: 'ended' })
  relay2.close()
  await second.event('LeadMarkedDoNotCall')
  t.match((await second.event('AssistantCallEnded')).data, { disposition: 'opted_out' })
  t.equal((await second.action({ SessionStatus: 'ended', HandoffData: '{"reason":"ended"}' })).body, `${XML}<Response><Hangup/></Response>`)
})

t.test('the socket drops mid-call: the conversation ends as no_conversation, the lead goes back to follow-up, and the action apologises and hangs up', async (t) => {
  const s = await relayApp(t)
  const call = await answeredCall(s)
  const relay = await call.relay()
  relay.setup(call.sid)
  relay.prompt('Yes.')
  t.equal(await relay.turn(), 'Do you own the home?')
  relay.drop()
  t.match((await call.event('AssistantCallEnded')).data, { disposition: 'no_conversation' })
  const scheduled = await call.event('FollowUpScheduled')
  const types = (await call.events()).map((e) => e.type)
  t.same(types.slice(types.indexOf('AssistantCallEnded')).filter((type) => type.startsWith('FollowUp') || type === 'CallbackRequested'), ['CallbackRequested', 'FollowUpScheduled'], 'the lead is back in follow-up, and nothing stops it')
  t.ok(Date.parse((scheduled.data as { dueAt: string }).dueAt) > Date.now(), 'due later, not now')
  const posted = await call.action({ SessionStatus: 'failed', ErrorCode: '64105' })
  t.equal(posted.body, `${XML}<Response><Say>Sorry, we could not continue this call. We will be in touch. Goodbye.</Say><Hangup/></Response>`)
})

t.test('over the account’s limit of assistant calls at once, the answer is a polite goodbye and a hang-up', async (t) => {
  const s = await relayApp(t)
  const first = await answeredCall(s, { brief: { ...BRIEF, maxConcurrentCalls: 1 } })
  const relay = await first.relay()
  relay.setup(first.sid)
  relay.prompt('Yes.')
  await relay.turn()
  const second = await answeredCall(s, { phone: '3125550143', account: { accountId: first.accountId, token: first.token } })
  t.match(second.answer.body, new RegExp(`^${XML.replace(/[?.]/g, '\\$&')}<Response><Say>[^<]+</Say><Hangup/></Response>$`))
  t.notMatch(second.answer.body, /ConversationRelay/, 'not connected to the assistant')
  t.match((await second.event('AssistantCallEnded')).data, { disposition: 'no_conversation' })
  await second.event('FollowUpScheduled')
  t.ok((await second.events()).some((e) => e.type === 'CallbackRequested'), 'the lead told "someone will call you back" is called back')
  relay.close()
  await first.event('AssistantCallEnded')
  const third = await answeredCall(s, { phone: '3125550144', account: { accountId: first.accountId, token: first.token } })
  t.match(third.answer.body, /<ConversationRelay /, 'a slot freed by a call that ended is taken again')
})

t.test('the longest call ends a silent line: the last sentence, end, and no_conversation with why', async (t) => {
  const s = await relayApp(t, { assistantMaxCallMs: 400 })
  const call = await answeredCall(s)
  const relay = await call.relay()
  relay.setup(call.sid)
  // The caller never speaks.
  t.equal(await relay.turn(), 'We are out of time for this call. Someone from Lakeside Roofing will be in touch. Goodbye.')
  t.same(await relay.ended(), { reason: 'ended' })
  relay.close()
  t.match((await call.event('AssistantCallEnded')).data, { disposition: 'no_conversation', why: /the longest call \(5 min\) was reached/ })
  const posted = await call.action({ SessionStatus: 'ended', HandoffData: JSON.stringify({ reason: 'ended' }) })
  t.match(posted.body, /<Hangup\/>/)
})

/** The assistant calls an account holds open now (the slots `maxConcurrentCalls` counts). */
const openCalls = (s: RelayApp, accountId: string) => (s.leadline.assistant as unknown as { openCalls(id: string): number }).openCalls(accountId)

t.test('replayed handshakes of an ended call open nothing and hold no slot: the next real call is taken', async (t) => {
  const s = await relayApp(t)
  const first = await answeredCall(s, { brief: { ...BRIEF, maxConcurrentCalls: 3 } })
  const relay = await first.relay()
  relay.setup(first.sid)
  relay.prompt('Yes.')
  t.equal(await relay.turn(), 'Do you own the home?')
  // A second handshake of the live call (a replay while it runs): closed, and the first session goes on.
  const twice = await first.relay()
  twice.setup(first.sid)
  t.equal(await twice.closed, 1008)
  t.equal(openCalls(s, first.accountId), 1)
  relay.prompt('Yes, I do.')
  t.equal(await relay.turn(), 'What is wrong with the roof?')
  relay.close()
  await first.event('AssistantCallEnded')
  t.equal(openCalls(s, first.accountId), 0)

  // Three replays of the ended call's signed handshake, each left open as an attacker would.
  const before = await logLength(s)
  const replays = await Promise.all([first.relay(), first.relay(), first.relay()])
  for (const replay of replays) replay.setup(first.sid)
  for (const replay of replays) t.equal(await replay.closed, 1008, 'the replay is closed')
  t.ok(replays.every((replay) => replay.received().length === 0), 'not a word said to a replay')
  t.equal(openCalls(s, first.accountId), 0, 'no slot held')
  t.equal(await logLength(s), before, 'nothing recorded')
  t.equal((await first.events()).filter((e) => e.type === 'AssistantSessionOpened').length, 1, 'one session for the call, ever')

  const next = await answeredCall(s, { phone: '3125550143', account: { accountId: first.accountId, token: first.token } })
  t.match(next.answer.body, /<ConversationRelay /, 'the next real call is taken by the assistant')
  const live = await next.relay()
  live.setup(next.sid)
  live.prompt('Yes.')
  t.equal(await live.turn(), 'Do you own the home?')
  live.close()
  await next.event('AssistantCallEnded')
})

t.test('a setup whose callSid is not the signed URL\'s opens nothing; the call\'s own setup still does', async (t) => {
  const s = await relayApp(t)
  const call = await answeredCall(s)
  const before = await logLength(s)
  const wrong = await call.relay()
  wrong.setup('CA_SOMEONE_ELSE')
  t.equal(await wrong.closed, 1008)
  t.equal(await logLength(s), before, 'nothing recorded')
  t.equal(openCalls(s, call.accountId), 0)
  const right = await call.relay()
  right.setup(call.sid)
  right.prompt('Yes.')
  t.equal(await right.turn(), 'Do you own the home?')
  right.close()
  await call.event('AssistantCallEnded')
})

t.test('a session in which the lead says nothing ends after the silence timeout: the last sentence, end, no_conversation with why', async (t) => {
  const s = await relayApp(t, { assistantSilenceMs: 300 })
  const call = await answeredCall(s)
  const relay = await call.relay()
  relay.setup(call.sid)
  t.equal(await relay.turn(), 'We cannot hear you, so we will end this call. Someone from Lakeside Roofing will be in touch. Goodbye.')
  t.same(await relay.ended(), { reason: 'ended' })
  relay.close()
  t.match((await call.event('AssistantCallEnded')).data, { disposition: 'no_conversation', why: /the line was silent/ })
  t.equal(openCalls(s, call.accountId), 0, 'its slot is free')
})
