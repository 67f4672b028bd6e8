/**
 * The assistant hears an opt-out with the classifier that reads texts (issue #40): the same words get
 * the same verdict, so what a lead could text to opt out, they can say, and it marks them do-not-call
 * at once, without the model; an ordinary sentence that merely contains "stop" goes on to the script.
 */
import t from 'tap'
import { assistantCall, drain } from './assistant-call.ts'
import { leadEvents } from '../../helpers/dialing-app.ts'
import { classifyConsent } from '../../../src/domain/consent/consent-classifier.ts'

const OPT_OUTS = ['Leave me alone.', 'Wrong number.', 'No more calls please', "Don't contact me.", 'Stop. I am not interested.']

for (const said of OPT_OUTS) {
  t.test(`"${said}" said on the call is an opt-out, as it is by text`, async (t) => {
    t.equal(classifyConsent(said).verdict, 'opt_out', 'the classifier says so')
    const call = await assistantCall(t)
    const opened = await call.t.leadline.assistant.open(call.start)
    if (!opened || !('conversation' in opened)) throw new Error('refused')
    const out = await drain(opened.conversation.prompt(said))
    t.match(out.text, /You will not be called again\. Goodbye\./)
    await opened.conversation.close('ended')
    const events = await leadEvents(call.t.leadline, call.accountId, call.phone)
    t.match(events.find((e) => e.type === 'LeadMarkedDoNotCall')?.data, { source: 'assistant_call' })
    t.match(events.find((e) => e.type === 'AssistantCallEnded')?.data, { disposition: 'opted_out' })
  })
}

t.test('"Can you stop by at 5?" is no opt-out: the conversation goes on', async (t) => {
  const said = 'Can you stop by at 5?'
  t.equal(classifyConsent(said).verdict, 'reply')
  const call = await assistantCall(t)
  const opened = await call.t.leadline.assistant.open(call.start)
  if (!opened || !('conversation' in opened)) throw new Error('refused')
  const out = await drain(opened.conversation.prompt(said))
  t.equal(out.end, null, 'the call goes on')
  t.notMatch(out.text, /not be called again/)
  await opened.conversation.close('ended')
  const types = (await leadEvents(call.t.leadline, call.accountId, call.phone)).map((e) => e.type)
  t.notOk(types.includes('LeadMarkedDoNotCall'))
})
