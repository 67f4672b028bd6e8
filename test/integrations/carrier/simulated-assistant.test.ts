/**
 * The simulated carrier plays `--on-answer assistant` calls end to end, in-process: a seeded simulated
 * caller talks with the real engine (the scripted assistant, the default without a model key), so
 * `npm start` with no credentials demos whole conversations and their recorded outcomes.
 */
import t from 'tap'
import { buildApp } from '../../helpers/build-app.ts'
import { DIALING, leadEventTypes, postLead, waitForEvent } from '../../helpers/dialing-app.ts'
import type { SimulatedCarrier } from '../../../src/integrations/carrier/simulated/index.ts'

const BRIEF = {
  business: 'Lakeside Roofing repairs and replaces roofs in Chicago.',
  questions: [{ question: 'Do you own the home?', goodAnswer: 'yes' }],
  transferNumber: '+13125550177',
  assistantName: 'Robin',
}

/** What each persona's call ends as, as the engine records it. */
const DISPOSITION = { interested: 'transferred', callback: 'callback_booked', person: 'transferred', opt_out: 'opted_out' } as const

t.test('each answered call is a conversation with a seeded simulated caller, recorded like a real one', async (t) => {
  const app = await buildApp(t)
  const carrier = app.leadline.carrier as SimulatedCarrier
  const { account, token } = await app.createAccount('Lakeside Roofing', { ...DIALING, callsPerSecond: 100, onAnswer: 'assistant', assistantBrief: BRIEF, timeZone: 'America/Chicago' })
  const phones = ['3125550142', '3125550143', '3125550144', '3125550145', '3125550146', '3125550147']
  for (const phone of phones) t.equal((await postLead(app.app, token, { phone, first_name: 'Dana' })).status, 201)
  for (const phone of phones) await waitForEvent(app.leadline, account.accountId as string, phone, 'AssistantCallEnded', 1)

  const calls = carrier.assistantCalls()
  t.equal(calls.length, phones.length, 'one conversation per answered call')
  for (const call of calls) {
    t.match(call.heard[0], /automated assistant/, 'the greeting says it is an automated assistant')
    t.not(call.persona, null)
    const phone = phones.find((p) => carrier.calls().some((c) => c.callId === call.callId && c.request.to.endsWith(p))) as string
    const ended = await waitForEvent(app.leadline, account.accountId as string, phone, 'AssistantCallEnded')
    t.equal((ended.data as { disposition: string }).disposition, DISPOSITION[call.persona as keyof typeof DISPOSITION], `${call.persona}: ${call.said.join(' / ')}`)
    t.equal(call.end, call.persona === 'opt_out' || call.persona === 'callback' ? 'ended' : 'transfer')
    if (call.end === 'transfer') t.equal(call.handoffTo, '+13125550177')
    if (call.persona === 'opt_out') t.ok((await leadEventTypes(app.leadline, account.accountId as string, phone)).includes('LeadMarkedDoNotCall'), 'key 9 made the lead do-not-call')
  }
  t.ok(new Set(calls.map((c) => c.persona)).size > 1, 'the seeded draw varies the callers')

  // The same seed plays the same callers.
  const again = await buildApp(t)
  const second = await again.createAccount('Lakeside Roofing', { ...DIALING, callsPerSecond: 100, onAnswer: 'assistant', assistantBrief: BRIEF, timeZone: 'America/Chicago' })
  for (const phone of phones) {
    t.equal((await postLead(again.app, second.token, { phone, first_name: 'Dana' })).status, 201)
    await waitForEvent(again.leadline, second.account.accountId as string, phone, 'AssistantCallEnded', 1)
  }
  t.same((again.leadline.carrier as SimulatedCarrier).assistantCalls().map((c) => c.persona), calls.map((c) => c.persona))
})
