/**
 * The assistant with a model, through the official SDKs pointed at a fake model server that streams
 * as OpenAI and Anthropic do, with tool calls: qualified, a refused callback time corrected, a model
 * that hangs or fails, an interruption mid-answer. What the model is shown is read from its requests.
 */
import t, { type Test } from 'tap'
import { DateTime } from 'luxon'
import { startFakeModel, type FakeModel } from '../../doubles/fake-model.ts'
import { createOpenAiAssistant } from '../../../src/integrations/assistant/openai/index.ts'
import { createAnthropicAssistant } from '../../../src/integrations/assistant/anthropic/index.ts'
import type { AssistantProvider } from '../../../src/integrations/assistant/assistant-provider.port.ts'
import type { Conversation } from '../../../src/processes/assistant/conversation.ts'
import { assistantCall, BRIEF, drain, type AssistantCall } from './assistant-call.ts'
import { WITHHELD } from '../../fixtures/withheld-fields.ts'
import { leadEvents, manualClock } from '../../helpers/dialing-app.ts'

const KEY = 'sk-test-fake-model-key-0123456789'
const PROVIDERS: ReadonlyArray<readonly [string, (fake: FakeModel) => AssistantProvider]> = [
  ['openai', (fake) => createOpenAiAssistant({ apiKey: KEY, baseUrl: fake.openaiUrl, model: 'fake-model' })],
  ['anthropic', (fake) => createAnthropicAssistant({ apiKey: KEY, baseUrl: fake.anthropicUrl, model: 'fake-model' })],
]

async function setUp(t: Test, make: (fake: FakeModel) => AssistantProvider, options: { turnTimeoutMs?: number; clock?: () => Date; brief?: Record<string, unknown>; settings?: Record<string, unknown>; fields?: Record<string, string> } = {}) {
  const fake = await startFakeModel()
  t.teardown(() => fake.close())
  const call = await assistantCall(t, { provider: make(fake), ...options })
  const opened = await call.t.leadline.assistant.open(call.start)
  if (!opened || !('conversation' in opened)) throw new Error(`refused: ${JSON.stringify(opened)}`)
  return { fake, call, c: opened.conversation }
}

async function ended(call: AssistantCall) {
  const events = await leadEvents(call.t.leadline, call.accountId, call.phone)
  return { events, outcome: events.find((e) => e.type === 'AssistantCallEnded')?.data as Record<string, unknown> }
}

for (const [name, make] of PROVIDERS) {
  t.test(`${name}: a qualified lead, answers recorded through tools, tokens streamed as they come`, async (t) => {
    const { fake, call, c } = await setUp(t, make)
    fake.reply({ text: ['Great. ', 'Do you own ', 'the home?'] })
    const first = await drain(c.prompt('Yes, now is fine.'))
    t.equal(first.text, 'Great. Do you own the home?')
    t.equal(first.tokens, 4, 'three pieces as the model sent them, then the last')
    t.ok(first.last)
    fake.reply({ tools: [{ name: 'record_answer', args: { question: '1', answer: 'Owns the home' } }] }, { text: ['And what is wrong with the roof?'] })
    t.equal((await drain(c.prompt('Yes, I own it.'))).text, 'And what is wrong with the roof?')
    fake.reply({ text: ['Thank you, someone will call you soon. Goodbye.'], tools: [{ name: 'record_answer', args: { question: 'What is wrong with the roof?', answer: 'Leaks when it rains' } }, { name: 'end_call', args: { disposition: 'qualified' } }] })
    const last = await drain(c.prompt('It leaks when it rains.'))
    t.equal(last.text, 'Thank you, someone will call you soon. Goodbye.')
    t.same(last.end, { type: 'end', handoff: null })
    await c.close('ended')
    const { outcome } = await ended(call)
    t.match(outcome, { disposition: 'qualified', provider: name, answers: [{ question: 'Do you own the home?', answer: 'Owns the home' }, { question: 'What is wrong with the roof?', answer: 'Leaks when it rains' }], callbackAt: null, why: null })

    t.equal(fake.requests.length, 4)
    t.ok(fake.requests.every((r) => r.api === name && r.authorization?.includes(KEY)), 'the key goes to the provider')
    const first_ = JSON.stringify(fake.requests[0]?.body)
    t.match(first_, /Lakeside Roofing repairs and replaces roofs/, 'the model sees the brief')
    t.match(first_, /Dana Reyes/, "and the lead's name")
    t.match(first_, /roof-form/, 'and source')
    t.match(first_, /roof_age: 20 years/, 'and fields')
    t.notMatch(first_, /4242424242424242/, 'never payment data a webhook sent')
    t.notMatch(first_, /whsec_|sk_live|lk_/, 'nor keys')
    t.ok(fake.requests[0]?.body.stream, 'streamed')
    const tools = (fake.requests[0]?.body.tools as Array<Record<string, unknown>>).map((tool) => (tool.function as { name: string } | undefined)?.name ?? tool.name)
    t.same(tools, ['record_answer', 'book_callback', 'transfer_to_person', 'mark_do_not_call', 'end_call'])
    t.match(JSON.stringify(fake.requests[2]?.body), /ok: recorded/, 'the tool result goes back to the model')
  })

  t.test(`${name}: a callback outside the hours is refused, explained to the model, and corrected`, async (t) => {
    // Monday 30 November 2026, 10:00 in Chicago; calls mon-fri 09:00-17:00.
    const clock = manualClock('2026-11-30T16:00:00Z')
    const { fake, call, c } = await setUp(t, make, { clock: clock.now, settings: { callingHours: 'mon-fri 09:00-17:00' } })
    fake.reply({ tools: [{ name: 'book_callback', args: { at: '2026-12-06T20:00:00-06:00' } }] }, { text: ['Sorry, we cannot call on Sunday. Would Tuesday at ten work?'] })
    t.equal((await drain(c.prompt('Call me Sunday at 8 pm'))).text, 'Sorry, we cannot call on Sunday. Would Tuesday at ten work?')
    t.match(JSON.stringify(fake.requests[1]?.body), /refused: we may not call then: [^"]*calling hours[^"]*2026-12-07T09:00:00-06:00/, 'the refusal, with the next time allowed, goes back to the model')
    fake.reply({ tools: [{ name: 'book_callback', args: { at: '2026-12-01T10:00:00-06:00' } }] }, { text: ['Booked for Tuesday at ten. Goodbye.'], tools: [{ name: 'end_call', args: { disposition: 'callback_booked' } }] })
    const out = await drain(c.prompt('Yes, Tuesday at ten'))
    t.equal(out.text, 'Booked for Tuesday at ten. Goodbye.')
    t.ok(out.end)
    await c.close('ended')
    const { outcome, events } = await ended(call)
    t.match(outcome, { disposition: 'callback_booked', callbackAt: '2026-12-01T16:00:00.000Z' })
    t.equal(events.filter((e) => e.type === 'CallbackRequested').length, 1, 'only the allowed time was booked')
    t.equal(DateTime.fromISO(outcome.callbackAt as string).setZone('America/Chicago').hour, 10)
  })

  t.test(`${name}: a model that hangs is abandoned; the lead hears an apology and an offer; no_conversation with why`, async (t) => {
    const { fake, call, c } = await setUp(t, make, { turnTimeoutMs: 300 })
    fake.reply({ fault: 'hang' })
    // The turn's timeout (300 ms) answers: the SDK's own default (10 minutes) would outlast the test's time limit.
    const out = await drain(c.prompt('Hello?'))
    t.equal(out.text, 'Sorry, I am having trouble on my end. Would you like to speak with someone now?')
    t.ok(out.last)
    t.equal(out.end, null)
    await c.close('socket_dropped')
    const { outcome, events } = await ended(call)
    t.match(outcome, { disposition: 'no_conversation', why: /the model did not answer within 0 s|the model did not answer within/ })
    t.ok(events.some((e) => e.type === 'FollowUpScheduled'), 'the lead goes back to follow-up')
  })

  t.test(`${name}: a model error: apology, then the person the lead asks for`, async (t) => {
    const { fake, call, c } = await setUp(t, make)
    fake.reply({ fault: 'status', status: 500 })
    t.match((await drain(c.prompt('Hello?'))).text, /^Sorry, I am having trouble on my end/)
    const out = await drain(c.prompt('yes please'))
    t.same(out.end, { type: 'end', handoff: { to: '+13125550177', whisper: 'Transfer from the assistant: Dana Reyes, from roof-form.' } })
    await c.close('ended')
    const { outcome } = await ended(call)
    t.match(outcome, { disposition: 'transferred', why: /the model failed \(\w*Error 500\)/, provider: `${name}, then scripted` })
  })

  t.test(`${name}: an interruption stops the old answer; what was heard is kept`, async (t) => {
    const { fake, call, c } = await setUp(t, make)
    fake.reply({ text: ['Our roofs ', 'come with ', 'a lifetime ', 'warranty.'] })
    const iterator = c.prompt('Tell me about the warranty')[Symbol.asyncIterator]()
    const firstToken = await iterator.next()
    t.match(firstToken.value, { type: 'text', token: 'Our roofs ' })
    c.interrupt('Our roofs')
    const rest: unknown[] = []
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value)
    t.same(rest, [], 'nothing more of the old answer')
    fake.reply({ text: ['Sure, go ahead.'] })
    t.equal((await drain(c.prompt('Wait, one question'))).text, 'Sure, go ahead.')
    const messages = JSON.stringify(fake.requests[1]?.body)
    t.match(messages, /Our roofs/, 'the model knows what was heard')
    t.notMatch(messages, /lifetime/, 'and not what was not')
    await (c as Conversation).close('ended')
  })
}

t.test('the model sees only what it needs: none of the withheld fields or values, by name or by value, declared or not, nor a card number the lead reads out', async (t) => {
  const fields = Object.fromEntries(WITHHELD.map(([name, value]) => [name, value]))
  const declared = ['roof_age', ...WITHHELD.map(([name]) => name)]
  const { fake, c } = await setUp(t, PROVIDERS[0]?.[1] as (fake: FakeModel) => AssistantProvider, { brief: { ...BRIEF, leadFields: declared }, fields: { ...fields, source: 'roof-form 4111111111111111' } })
  fake.reply({ text: ['Thanks. Do you own the home?'] })
  await drain(c.prompt('Sure, my card is 4111 1111 1111 1111 and my social is 078-05-1120.'))
  await c.close('ended')
  const sent = JSON.stringify(fake.requests.map((r) => r.body))
  t.match(sent, /roof_age: 20 years/, 'a declared ordinary field is shown')
  t.match(sent, /Dana Reyes/, 'and the name')
  for (const [name, value] of WITHHELD) {
    t.notMatch(sent, `${name}: `, `${name} is not shown`)
    if (value.length >= 6) t.notOk(sent.includes(value) || sent.includes(JSON.stringify(value).slice(1, -1)), `${name}'s value is not sent`)
  }
  t.notMatch(sent, /4111[ -]?1111[ -]?1111[ -]?1111/, 'nor the card the lead read out')
  t.notMatch(sent, /078-05-1120/, 'nor the social security number')
  t.notMatch(sent, /4242424242424242/)
})
