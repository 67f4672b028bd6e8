/**
 * The ConversationRelay protocol module on its own: the TwiML it answers (built by the SDK), the
 * action's answers, and one relay session fed messages in order, against a conversation that streams
 * when the test says so (the engine's side of the seam; the whole path with the real scripted
 * assistant is in test/http/carrier/assistant-call.test.ts).
 */
import t from 'tap'
import type { CarrierCallbackContext, RelayConversation, RelayOutput } from '../../../src/integrations/carrier/carrier.port.ts'
import {
  assistantEndTwiml,
  assistantTwiml,
  assistantWhisperTwiml,
  openRelaySession,
  parseHandoffData,
  relayUrl,
} from '../../../src/integrations/carrier/twilio/index.ts'

const XML = '<?xml version="1.0" encoding="UTF-8"?>'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A conversation whose answers the test releases token by token. */
function heldConversation(limitMs = 60_000, silenceMs = 60_000) {
  const log: unknown[][] = []
  let release: ((output: RelayOutput | null) => void) | null = null
  const pending: Array<RelayOutput | null> = []
  const take = () =>
    new Promise<RelayOutput | null>((resolve) => {
      const queued = pending.shift()
      if (queued !== undefined) resolve(queued)
      else release = resolve
    })
  async function* turn(): AsyncIterable<RelayOutput> {
    for (;;) {
      const output = await take()
      if (output === null) return
      yield output
    }
  }
  const conversation: RelayConversation = {
    prompt: (text) => (log.push(['prompt', text]), turn()),
    dtmf: (digit) => (log.push(['dtmf', digit]), turn()),
    interrupt: (said) => void log.push(['interrupt', said]),
    limitMs,
    timeUp: () => (log.push(['timeUp']), turn()),
    silenceMs,
    silent: () => (log.push(['silent']), turn()),
    close: async (reason, detail) => void log.push(['close', reason, ...(detail === undefined ? [] : [detail])]),
  }
  return {
    conversation,
    log,
    /** Hands the turn its next output (null: the turn ends). */
    push(output: RelayOutput | null) {
      if (release) {
        const r = release
        release = null
        r(output)
      } else pending.push(output)
    },
  }
}

function session(opened: Awaited<ReturnType<CarrierCallbackContext['openAssistant']>>, callSid = 'CA1') {
  const sent: Array<Record<string, unknown>> = []
  const closes: Array<[number | undefined, string | undefined]> = []
  const warnings: string[] = []
  const asked: string[] = []
  const context = {
    publicUrl: 'https://leadline.test',
    warn: (_fields: Record<string, unknown>, message: string) => void warnings.push(message),
    openAssistant: async (_decisionId: string, callId: string) => (asked.push(callId), opened),
  } as unknown as CarrierCallbackContext
  const relay = openRelaySession({ send: (data) => void sent.push(JSON.parse(data)), close: (code, reason) => void closes.push([code, reason]) }, { decisionId: 'dec_1', callSid }, context)
  return { relay, sent, closes, warnings, asked, say: (message: Record<string, unknown>) => relay.receive(JSON.stringify(message)) }
}

t.test('the TwiML on answer: <Connect action> and <ConversationRelay> with the greeting, voice, language and keys on', async (t) => {
  const url = relayUrl('https://leadline.example.com', 'dec_9', 'CA9')
  t.equal(url, 'wss://leadline.example.com/api/carrier/twilio/relay?decision=dec_9&call=CA9')
  t.equal(relayUrl('http://leadline.test', 'dec_9', 'CA9'), 'ws://leadline.test/api/carrier/twilio/relay?decision=dec_9&call=CA9')
  const twiml = assistantTwiml(
    { greeting: 'Hi Jane, this is Ava, an automated assistant for Acme Roofing & Sons, calling about your request.', voice: 'en-US-Journey-O', language: 'en-US' },
    { relayUrl: url, actionUrl: 'https://leadline.example.com/api/carrier/twilio/assistant-end?decision=dec_9' },
  )
  t.equal(
    twiml,
    `${XML}<Response><Connect action="https://leadline.example.com/api/carrier/twilio/assistant-end?decision=dec_9" method="POST">` +
      `<ConversationRelay url="wss://leadline.example.com/api/carrier/twilio/relay?decision=dec_9&amp;call=CA9" welcomeGreeting="Hi Jane, this is Ava, an automated assistant for Acme Roofing &amp; Sons, calling about your request." language="en-US" voice="en-US-Journey-O" dtmfDetection="true" interruptible="any"/>` +
      '</Connect></Response>',
  )
  t.notMatch(assistantTwiml({ greeting: 'Hello', voice: null, language: 'en-US' }, { relayUrl: url, actionUrl: url.replace('wss', 'https') }), /voice=/, 'no voice: Twilio picks its default')
})

t.test('the action: a transfer dials the owner from the account number with a whisper; a refusal says its goodbye; anything else hangs up', async (t) => {
  const call = { callerId: '+13125550100', whisperUrl: (w: string) => `https://l.test/w?whisper=${encodeURIComponent(w)}`, ownerDialUrl: 'https://l.test/owner-dial' }
  const transfer = parseHandoffData(JSON.stringify({ reason: 'transfer', to: '+13125550199', whisper: 'Jane Doe, qualified <b>roof</b>' }))
  t.equal(
    assistantEndTwiml(transfer, call),
    `${XML}<Response><Dial callerId="+13125550100" action="https://l.test/owner-dial" method="POST">` +
      '<Number url="https://l.test/w?whisper=Jane%20Doe%2C%20qualified%20b%20roof%20%2Fb" method="POST">+13125550199</Number></Dial></Response>',
    'the lead heard "Connecting you now." from the assistant: it is not said twice',
  )
  t.equal(assistantEndTwiml(parseHandoffData('{"reason":"refused","goodbye":"You will not be called again. Goodbye."}'), call), `${XML}<Response><Say>You will not be called again. Goodbye.</Say><Hangup/></Response>`)
  t.equal(assistantEndTwiml(parseHandoffData('{"reason":"ended"}'), call), `${XML}<Response><Hangup/></Response>`)
  const apology = `${XML}<Response><Say>Sorry, we could not continue this call. We will be in touch. Goodbye.</Say><Hangup/></Response>`
  t.equal(assistantEndTwiml(null, call), apology, 'no HandoffData: the socket dropped or the session failed')
  t.equal(assistantEndTwiml(parseHandoffData('{"reason":"error"}'), call), apology)
  t.equal(parseHandoffData('{"reason":"transfer","to":"911","whisper":"x"}'), null, 'a number that is not E.164 is not dialed')
  t.equal(parseHandoffData('not json'), null)
  t.equal(assistantWhisperTwiml('New lead: Jane Doe'), `${XML}<Response><Say>New lead: Jane Doe</Say></Response>`)
})

t.test('tokens stream as produced; an interrupt stops the answer at once and tells the conversation what was said', async (t) => {
  const held = heldConversation()
  const s = session({ conversation: held.conversation })
  s.say({ type: 'prompt', voicePrompt: 'too early', last: true })
  s.say({ type: 'setup', callSid: 'CA1' })
  await sleep(10)
  s.say({ type: 'prompt', voicePrompt: 'What do you offer?', last: true })
  s.say({ type: 'prompt', voicePrompt: 'partial', last: false })
  await sleep(10)
  held.push({ type: 'text', token: 'We fix ', last: false })
  await sleep(10)
  t.same(s.sent, [{ type: 'text', token: 'We fix ', last: false }], 'the first token went out before the model finished')
  s.say({ type: 'interrupt', utteranceUntilInterrupt: 'We fix', durationUntilInterruptMs: 300 })
  // The model's next token arrives after the interrupt: the old turn stops there.
  held.push({ type: 'text', token: 'roofs.', last: true })
  await sleep(10)
  t.same(s.sent, [{ type: 'text', token: 'We fix ', last: false }], 'nothing of the old answer after the interrupt')
  t.same(held.log, [['prompt', 'What do you offer?'], ['interrupt', 'We fix']], 'no prompt before setup, no partial prompt')

  s.say({ type: 'dtmf', digit: '9' })
  await sleep(10)
  held.push({ type: 'text', token: 'You will not be called again.', last: true })
  held.push({ type: 'end', handoff: null })
  await sleep(10)
  t.same(s.sent.slice(1), [{ type: 'text', token: 'You will not be called again.', last: true }, { type: 'end', handoffData: '{"reason":"ended"}' }])
  s.relay.closed(1000)
  await sleep(10)
  t.same(held.log.at(-1), ['close', 'ended'], 'closed once, as ended by Leadline')
})

t.test('a transfer ends with handoffData naming the owner and the whisper', async (t) => {
  const held = heldConversation()
  const s = session({ conversation: held.conversation })
  s.say({ type: 'setup', callSid: 'CA1' })
  await sleep(10)
  s.say({ type: 'prompt', voicePrompt: 'A person, please', last: true })
  held.push({ type: 'text', token: 'Connecting you', last: false })
  held.push({ type: 'end', handoff: { to: '+13125550199', whisper: 'Jane Doe wants a quote' } })
  await sleep(20)
  t.same(s.sent, [
    { type: 'text', token: 'Connecting you', last: false },
    { type: 'text', token: '', last: true },
    { type: 'end', handoffData: JSON.stringify({ reason: 'transfer', to: '+13125550199', whisper: 'Jane Doe wants a quote' }) },
  ])
})

t.test('the socket closing before Leadline ended the session is a drop; a refusal at setup ends with its goodbye', async (t) => {
  const held = heldConversation()
  const dropped = session({ conversation: held.conversation })
  dropped.say({ type: 'setup', callSid: 'CA1' })
  await sleep(10)
  dropped.say({ type: 'prompt', voicePrompt: 'Hello?', last: true })
  await sleep(10)
  // The model is still thinking: the close does not wait for it.
  dropped.relay.closed(1006)
  await sleep(10)
  t.same(held.log, [['prompt', 'Hello?'], ['close', 'socket_dropped', 'the relay socket closed (1006)']])
  held.push({ type: 'text', token: 'late', last: true })
  await sleep(10)
  t.same(dropped.sent, [], 'nothing is sent on a closed socket')

  const refused = session({ refuse: { goodbye: 'Sorry, we cannot talk right now. Goodbye.', reason: 'concurrency_limit' } }, 'CA2')
  refused.say({ type: 'setup', callSid: 'CA2' })
  await sleep(10)
  t.same(refused.sent, [{ type: 'end', handoffData: JSON.stringify({ reason: 'refused', goodbye: 'Sorry, we cannot talk right now. Goodbye.' }) }])

  const bad = session(null)
  bad.say({ type: 'setup' })
  bad.relay.receive('not json')
  t.same(bad.closes, [[1008, 'invalid setup']], 'a setup without a CallSid ends the socket')
  t.same(bad.warnings, ['the assistant relay received a frame that is not JSON'])
})

t.test('the longest call ends a silent line: the last sentence, then end, with no prompt from the caller', async (t) => {
  const held = heldConversation(30)
  const s = session({ conversation: held.conversation })
  s.say({ type: 'setup', callSid: 'CA1' })
  await sleep(10)
  t.same(held.log, [], 'not before the limit')
  await sleep(60)
  t.same(held.log, [['timeUp']])
  held.push({ type: 'text', token: 'We are out of time. Goodbye.', last: true })
  held.push({ type: 'end', handoff: null })
  await sleep(10)
  t.same(s.sent, [{ type: 'text', token: 'We are out of time. Goodbye.', last: true }, { type: 'end', handoffData: JSON.stringify({ reason: 'ended' }) }])
  s.relay.closed(1000)
  await sleep(10)
  t.same(held.log, [['timeUp'], ['close', 'ended']])
})

t.test('the longest call is not held behind a turn waiting on its model: that turn stops sending', async (t) => {
  const held = heldConversation(40)
  const s = session({ conversation: held.conversation })
  s.say({ type: 'setup', callSid: 'CA1' })
  s.say({ type: 'prompt', voicePrompt: 'Tell me more', last: true })
  await sleep(10)
  held.push({ type: 'text', token: 'Well,', last: false })
  await sleep(60)
  t.same(held.log, [['prompt', 'Tell me more'], ['timeUp']], 'the limit came while the model was still answering')
  held.push({ type: 'text', token: 'Out of time. Goodbye.', last: true })
  held.push({ type: 'end', handoff: null })
  await sleep(10)
  t.same(s.sent, [
    { type: 'text', token: 'Well,', last: false },
    { type: 'text', token: 'Out of time. Goodbye.', last: true },
    { type: 'end', handoffData: JSON.stringify({ reason: 'ended' }) },
  ])
  s.relay.closed(1000)
})

t.test('a call that ends before the longest call never hears the time-up', async (t) => {
  const held = heldConversation(30)
  const s = session({ conversation: held.conversation })
  s.say({ type: 'setup', callSid: 'CA1' })
  await sleep(5)
  s.relay.closed(1006)
  await sleep(60)
  t.same(held.log, [['close', 'socket_dropped', 'the relay socket closed (1006)']])
})

t.test('a setup naming another call than the signed URL, and a call that may have no session, close the socket with nothing opened', async (t) => {
  const held = heldConversation()
  const other = session({ conversation: held.conversation }, 'CA1')
  other.say({ type: 'setup', callSid: 'CA_OTHER' })
  await sleep(10)
  t.same(other.asked, [], 'no session is asked for')
  t.same(other.closes, [[1008, 'setup names another call']])
  other.say({ type: 'setup', callSid: 'CA1' })
  other.say({ type: 'prompt', voicePrompt: 'hello', last: true })
  await sleep(10)
  t.same(other.asked, [], 'and a second setup on that socket is ignored')
  other.relay.closed(1008)
  await sleep(10)
  t.same(held.log, [], 'no conversation was touched')

  const replay = session(null, 'CA1')
  replay.say({ type: 'setup', callSid: 'CA1' })
  await sleep(10)
  t.same(replay.asked, ['CA1'])
  t.same(replay.sent, [], 'no goodbye is spoken into a call that is not live')
  t.same(replay.closes, [[1008, 'no live call without a session']])
})

t.test('a live session in which the caller says nothing ends after its silenceMs: the last sentence, then end; speaking restarts the wait', async (t) => {
  const held = heldConversation(60_000, 40)
  const s = session({ conversation: held.conversation })
  s.say({ type: 'setup', callSid: 'CA1' })
  await sleep(25)
  s.say({ type: 'prompt', voicePrompt: 'Hi', last: true })
  await sleep(5)
  held.push(null) // the answer to "Hi" ends at once, with nothing said
  await sleep(25)
  t.same(held.log, [['prompt', 'Hi']], 'the caller spoke: the wait started again')
  await sleep(60)
  t.same(held.log, [['prompt', 'Hi'], ['silent']])
  held.push({ type: 'text', token: 'We cannot hear you. Goodbye.', last: true })
  held.push({ type: 'end', handoff: null })
  await sleep(10)
  t.same(s.sent, [{ type: 'text', token: 'We cannot hear you. Goodbye.', last: true }, { type: 'end', handoffData: JSON.stringify({ reason: 'ended' }) }])
  s.relay.closed(1000)
  await sleep(10)
  t.same(held.log.at(-1), ['close', 'ended'])
})
