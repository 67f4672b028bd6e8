/** The scripted assistant (no model) through the engine, turn by turn: the brief's questions, a callback, a handoff, opt-outs. */
import t from 'tap'
import { DateTime } from 'luxon'
import { assistantCall, BRIEF, drain } from './assistant-call.ts'
import { leadEvents, manualClock } from '../../helpers/dialing-app.ts'

t.test('greeting, each question in turn, then the handoff to a person', async (t) => {
  const call = await assistantCall(t)
  const { leadline } = call.t
  const prepared = await leadline.assistant.prepare(call.start)
  if (!('greeting' in prepared)) throw new Error(`refused: ${JSON.stringify(prepared)}`)
  t.match(prepared.greeting, /^Hi Dana Reyes, this is Robin, an automated assistant \(a simple scripted one, not a person\), calling for Lakeside Roofing about the request you sent us\. Is now a good time/)
  t.equal(prepared.language, 'en-US')
  t.equal(prepared.voice, null)
  const opened = await leadline.assistant.open(call.start)
  if (!opened || !('conversation' in opened)) throw new Error('refused')
  const c = opened.conversation

  const first = await drain(c.prompt('Yes, sure.'))
  t.equal(first.text, 'Do you own the home?')
  t.ok(first.last, 'the last token says last')
  t.equal(first.end, null)
  t.equal((await drain(c.prompt('Yes I do, bought it in 2010'))).text, 'What is wrong with the roof?')
  const closing = await drain(c.prompt('It leaks when it rains'))
  t.match(closing.text, /that is all my questions\. Would you like to speak with someone from Lakeside Roofing now\?/)
  const handoff = await drain(c.prompt('Yes please'))
  t.equal(handoff.text, 'Connecting you now.')
  t.same(handoff.end, { type: 'end', handoff: { to: '+13125550177', whisper: 'Transfer from the assistant: Dana Reyes, from roof-form. They answered 2 of 2 questions.' } })
  t.same(await drain(c.prompt('hello?')), { text: '', last: false, end: null, tokens: 0 }, 'an ended conversation says nothing more')
  await c.close('ended')
  await c.close('ended')

  const events = await leadEvents(leadline, call.accountId, call.phone)
  const ended = events.filter((e) => e.type === 'AssistantCallEnded')
  t.equal(ended.length, 1, 'recorded once')
  t.match(ended[0]?.data, {
    disposition: 'transferred', provider: 'scripted', callbackAt: null,
    answers: [{ question: 'Do you own the home?', answer: 'Yes I do, bought it in 2010' }, { question: 'What is wrong with the roof?', answer: 'It leaks when it rains' }],
  })
  const transcript = events.find((e) => e.type === 'AssistantTranscriptRecorded')?.data as { transcript: Array<{ speaker: string; text: string }> }
  t.same(transcript.transcript.map((turn) => turn.speaker), ['assistant', 'lead', 'assistant', 'lead', 'assistant', 'lead', 'assistant', 'lead', 'assistant'])
  t.equal((leadline.assistant as unknown as { openCalls(id: string): number }).openCalls(call.accountId), 0, "the slot is free again")
})

t.test('no transfer number: a callback at the time the lead names, a refused time corrected', async (t) => {
  // Monday 30 November 2026, 10:00 in Chicago.
  const clock = manualClock('2026-11-30T16:00:00Z')
  const call = await assistantCall(t, { clock: clock.now, brief: { ...BRIEF, transferNumber: null, questions: [BRIEF.questions[0]] }, settings: { callingHours: 'mon-fri 09:00-17:00' } })
  const opened = await call.t.leadline.assistant.open(call.start)
  if (!opened || !('conversation' in opened)) throw new Error(`refused ${JSON.stringify(opened)}`)
  const c = opened.conversation
  t.equal((await drain(c.prompt('Not now, I am driving'))).text, 'No problem. When would be a better time to call you back?')
  const refused = await drain(c.prompt('Sunday at 8 pm'))
  t.match(refused.text, /Sorry, we cannot call you at that time/)
  const booked = await drain(c.prompt('Tuesday at 10 am'))
  t.equal(booked.text, 'Thank you. We will call you back Tuesday at 10:00 AM. Goodbye.')
  t.same(booked.end, { type: 'end', handoff: null })
  await c.close('ended')
  const events = await leadEvents(call.t.leadline, call.accountId, call.phone)
  const ended = events.find((e) => e.type === 'AssistantCallEnded')?.data as { disposition: string; callbackAt: string }
  t.equal(ended.disposition, 'callback_booked')
  const at = DateTime.fromISO(ended.callbackAt).setZone('America/Chicago')
  t.equal(at.toISO(), '2026-12-01T10:00:00.000-06:00')
  t.ok(events.some((e) => e.type === 'FollowUpScheduled' && (e.data as { dueAt: string }).dueAt === ended.callbackAt), 'follow-up calls them then')
})

t.test('opt-out by phrase and by key 9, without the model', async (t) => {
  for (const [how, act] of [['phrase', (c: { prompt(text: string): AsyncIterable<unknown> }) => c.prompt('Please stop calling me')], ['key', (c: { dtmf(d: string): AsyncIterable<unknown> }) => c.dtmf('9')]] as const) {
    const call = await assistantCall(t)
    const opened = await call.t.leadline.assistant.open(call.start)
    if (!opened || !('conversation' in opened)) throw new Error('refused')
    const out = await drain(act(opened.conversation as never) as never)
    t.match(out.text, /You will not be called again\. Goodbye\./, how)
    t.same(out.end, { type: 'end', handoff: null })
    await opened.conversation.close('ended')
    const types = (await leadEvents(call.t.leadline, call.accountId, call.phone)).map((e) => e.type)
    t.ok(types.includes('LeadMarkedDoNotCall'), `${how}: do-not-call`)
    const again = await call.t.leadline.assistant.prepare(call.start)
    t.match(again, { refuse: { reason: 'do_not_call' } }, `${how}: a do-not-call lead's call ends at once`)
  }
})
