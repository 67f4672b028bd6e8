/**
 * The assistant's outcomes reach get_lead, get_next_actions and the outbound events; the transcript
 * (every word the lead and the model said) reaches none of them, nor the lead's history or list_leads.
 * The fake model's own sentences are searched for in every output.
 */
import t from 'tap'
import { mcpApp } from './mcp-helpers.ts'
import { startFakeModel } from '../../doubles/fake-model.ts'
import { createOpenAiAssistant } from '../../../src/integrations/assistant/openai/index.ts'
import { DIALING, leadEvents, waitFor } from '../../helpers/dialing-app.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { outboundEventOf } from '../../../src/domain/outbound-events/outbound-events.ts'
import { BRIEF, drain } from '../../processes/assistant/assistant-call.ts'
import { withoutRecordings } from '../../../src/domain/recordings-policy.ts'

const MODEL_SAID = ['Wonderful, our purple shingles glow at dusk.', 'Tell me about the leaky skylight please.', 'Marvellous, goodbye from the roof people.']
const LEAD_SAID = ['Yes go ahead zebra crossing', 'I own it since the blue moon festival', 'The skylight drips on my cat Archibald']

t.test('outcomes leave, the transcript never does', async (t) => {
  const fake = await startFakeModel()
  t.teardown(() => fake.close())
  // The simulated carrier never plays this call (it would be a second caller on it): the test is the caller.
  const app = await mcpApp(t, { env: { LEADLINE_SIMULATED_DELAY_MS: '600000' }, assistantProvider: createOpenAiAssistant({ apiKey: 'sk-test-0123456789', baseUrl: fake.openaiUrl }) })
  const account = await app.account('Lakeside Roofing', { ...DIALING, onAnswer: 'assistant', assistantBrief: BRIEF })
  const { phone } = await account.pushLead({ phone: '+13125550142', first_name: 'Dana', source: 'roof-form' })
  const stream = leadStream(account.accountId, phone.slice(-10))
  const call = await waitFor('the call placed', async () => (await app.settle(), app.leadline.calls.forStream(stream).find((row) => row.callId !== null)))
  const opened = await app.leadline.assistant.open({ accountId: account.accountId, decisionId: call.decisionId, callSid: call.callId as string })
  if (!opened || !('conversation' in opened)) throw new Error('refused')
  const c = opened.conversation
  fake.reply({ text: [MODEL_SAID[0] as string, ' Do you own the home?'] })
  await drain(c.prompt(LEAD_SAID[0] as string))
  fake.reply({ text: [MODEL_SAID[1] as string], tools: [{ name: 'record_answer', args: { question: '1', answer: 'Owns the home' } }] }, { text: ['What is wrong with the roof?'] })
  await drain(c.prompt(LEAD_SAID[1] as string))
  fake.reply({ text: [MODEL_SAID[2] as string], tools: [{ name: 'record_answer', args: { question: '2', answer: 'Skylight leak' } }, { name: 'end_call', args: { disposition: 'qualified' } }] })
  t.ok((await drain(c.prompt(LEAD_SAID[2] as string))).end)
  await c.close('ended')
  await app.quiet()

  const events = await leadEvents(app.leadline, account.accountId, phone)
  const transcript = JSON.stringify(events.find((e) => e.type === 'AssistantTranscriptRecorded'))
  for (const sentence of [...MODEL_SAID, ...LEAD_SAID]) t.ok(transcript.includes(sentence), `the log keeps "${sentence}"`)

  const outputs: Record<string, unknown> = {}
  const lead = await app.call(account.keys.all, 'get_lead', { phone })
  outputs.get_lead = lead
  t.match(lead.result?.structuredContent.assistant, {
    calls: 1,
    last: { disposition: 'qualified', answers: [{ question: 'Do you own the home?', answer: 'Owns the home' }, { question: 'What is wrong with the roof?', answer: 'Skylight leak' }], callback_at: null },
  })
  outputs.history = await app.call(account.keys.all, 'get_lead_history', { phone, limit: 100 })
  const history = (outputs.history as { result: { structuredContent: { events: Array<{ type: string; data: Record<string, unknown> }> } } }).result.structuredContent.events
  t.match(history.find((e) => e.type === 'AssistantCallEnded')?.data, { disposition: 'qualified' })
  t.same(Object.keys(history.find((e) => e.type === 'AssistantTranscriptRecorded')?.data ?? {}), ['decisionId', 'callId', 'at'], 'the transcript event is listed without its transcript')
  outputs.list = await app.call(account.keys.all, 'list_leads', {})
  const next = await app.call(account.keys.all, 'get_next_actions', {})
  outputs.next = next
  t.match(next.result?.structuredContent.stale_leads[0], { phone, why: 'assistant_qualified' })
  const payloads = events.map((e) => outboundEventOf(e)).filter((o) => o !== null)
  outputs.outbound = payloads.map((p) => withoutRecordings(p.event))
  const ended = payloads.find((p) => p.event.type === 'assistant.call_ended')
  t.match(ended?.event.data, { disposition: 'qualified', answers: [{ question: 'Do you own the home?', answer: 'Owns the home' }, { question: 'What is wrong with the roof?', answer: 'Skylight leak' }] })
  t.notOk(payloads.some((p) => JSON.stringify(p.event).includes('transcript')), 'no outbound event carries a transcript')
  outputs.withoutRecordings = withoutRecordings(events.map((e) => e.data))

  for (const [where, output] of Object.entries(outputs)) {
    const text = JSON.stringify(output)
    for (const sentence of [...MODEL_SAID, ...LEAD_SAID]) t.notOk(text.includes(sentence), `${where} does not carry "${sentence}"`)
  }
})
