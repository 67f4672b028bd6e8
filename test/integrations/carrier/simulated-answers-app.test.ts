/**
 * The simulated carrier's answers through the whole app (the embedded default, no Twilio): a machine
 * gets one voicemail and follow-up goes on; a person who presses 9 becomes do-not-call.
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import type { SimulatedCarrier } from '../../../src/integrations/carrier/simulated/index.ts'
import { DIALING, dialingApp, leadEventTypes, manualClock, postLead, waitForEvent } from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'
const NOW = '2026-03-10T15:00:00Z'

t.test('a machine answers: one voicemail is left, the call is not an answer, and follow-up calls again', async (t) => {
  const clock = manualClock(NOW)
  const built = await dialingApp(t, { clock, env: { LEADLINE_SIMULATED_ANSWERS: 'machine', LEADLINE_SIMULATED_DELAY_MS: '5' } })
  const { account, token } = await built.createAccount('Acme Roofing', { ...DIALING, callsPerSecond: 100 })
  await postLead(built.app, token, { phone: PHONE, name: 'Jane Doe' })
  const carrier = built.leadline.carrier as SimulatedCarrier

  await waitForEvent(built.leadline, account.accountId, PHONE, 'CallNotAnswered')
  const placed = await waitForEvent(built.leadline, account.accountId, PHONE, 'CallPlaced')
  t.match(placed.data, { machineDetection: true }, 'placed with machine detection (the default)')
  t.match(carrier.calls(), [{ request: { detectAnsweringMachine: true }, outcome: 'machine' }])
  const callId = (placed.data as { callId: string }).callId
  t.match(carrier.updates(), [{ callId, instructions: { kind: 'say', text: /Jane.*Acme Roofing/s } }], 'one voicemail into the live call')
  const first = await leadEventTypes(built.leadline, account.accountId, PHONE)
  t.same(first.slice(first.indexOf('CallPlaced')), ['CallPlaced', 'CallReachedMachine', 'FollowUpScheduled', 'VoicemailStarted', 'VoicemailLeft', 'CallNotAnswered'])
  t.notOk(first.includes('CallAnswered') || first.includes('FollowUpStopped'), 'a machine is not an answer')

  // Follow-up's next attempt comes due: the machine again, and the day's one voicemail is spent.
  const { state } = await built.leadline.commands.load(leadStream(account.accountId, PHONE), leadDecider)
  clock.set(new Date(Date.parse(state.dialing.pendingFollowUp?.dueAt as string) + 1000))
  await waitForEvent(built.leadline, account.accountId, PHONE, 'CallNotAnswered', 2)
  t.match(await waitForEvent(built.leadline, account.accountId, PHONE, 'VoicemailSkipped'), { data: { reason: 'voicemail_limit' } })
  t.same(
    carrier.updates().map((u) => u.instructions.kind),
    ['say', 'hang_up'],
    'the second machine is hung up on without a message',
  )
  t.equal(carrier.calls().length, 2, 'follow-up called again')
})

t.test('a person answers and presses 9: the lead is do-not-call', async (t) => {
  const built = await dialingApp(t, { env: { LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_KEYS: '9', LEADLINE_SIMULATED_DELAY_MS: '5' } })
  const { account, token } = await built.createAccount('Acme Roofing', DIALING)
  await postLead(built.app, token, { phone: PHONE, name: 'Jane Doe' })

  await waitForEvent(built.leadline, account.accountId, PHONE, 'CallCompleted')
  const types = await leadEventTypes(built.leadline, account.accountId, PHONE)
  t.same(types.slice(types.indexOf('CallPlaced')), ['CallPlaced', 'CallAnswered', 'MenuKeyPressed', 'LeadMarkedDoNotCall', 'CallCompleted'])
  t.match(await waitForEvent(built.leadline, account.accountId, PHONE, 'CallAnswered'), { data: { answeredBy: 'human' } })
  t.match(await waitForEvent(built.leadline, account.accountId, PHONE, 'MenuKeyPressed'), { data: { digit: '9', choice: 'opt_out' } })
  t.match(await waitForEvent(built.leadline, account.accountId, PHONE, 'LeadMarkedDoNotCall'), { data: { source: 'in_call_keypress' } })
  const { state } = await built.leadline.commands.load(leadStream(account.accountId, PHONE), leadDecider)
  t.ok(state.doNotCall, 'no more calls, texts or pay-links')
  t.same((built.leadline.carrier as SimulatedCarrier).updates(), [], 'a person gets no voicemail')
})

t.test('machine detection off (the account\'s choice): a machine that picks up counts as the lead answering', async (t) => {
  const built = await dialingApp(t, { env: { LEADLINE_SIMULATED_ANSWERS: 'machine', LEADLINE_SIMULATED_DELAY_MS: '5' } })
  const { account, token } = await built.createAccount('Acme Roofing', { ...DIALING, amd: false })
  await postLead(built.app, token, { phone: PHONE, name: 'Jane Doe' })

  await waitForEvent(built.leadline, account.accountId, PHONE, 'CallCompleted')
  t.match((built.leadline.carrier as SimulatedCarrier).calls(), [{ request: { detectAnsweringMachine: false }, outcome: 'machine' }])
  t.notOk(((await waitForEvent(built.leadline, account.accountId, PHONE, 'CallPlaced')).data as { machineDetection?: boolean }).machineDetection, 'placed without machine detection')
  const types = await leadEventTypes(built.leadline, account.accountId, PHONE)
  t.same(types.slice(types.indexOf('CallPlaced')), ['CallPlaced', 'CallAnswered', 'CallCompleted'], 'no voicemail, no follow-up')
  t.same((built.leadline.carrier as SimulatedCarrier).updates(), [])
})

t.test('agent-first in the simulation: the owner answers and presses 1, then the lead is dialed and answers', async (t) => {
  const built = await dialingApp(t, { env: { LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_KEYS: '1', LEADLINE_SIMULATED_DELAY_MS: '5' } })
  const { account, token } = await built.createAccount('Acme Roofing', { ...DIALING, onAnswer: 'agent-first:+13125550199' })
  await postLead(built.app, token, { phone: PHONE, name: 'Jane Doe' })
  const carrier = built.leadline.carrier as SimulatedCarrier
  await waitForEvent(built.leadline, account.accountId, PHONE, 'CallAnswered')
  t.match(carrier.calls(), [{ request: { to: '+13125550199' } }], 'the owner is rung, not the lead')
  const types = await leadEventTypes(built.leadline, account.accountId, PHONE)
  const dialed = types.indexOf('LeadDialStarted')
  t.ok(dialed !== -1 && dialed < types.indexOf('CallAnswered'), 'the lead is dialed after the owner pressed 1, and only then answers')
  t.match(await waitForEvent(built.leadline, account.accountId, PHONE, 'CallAnswered'), { data: { answeredBy: 'human' } })
})

t.test('agent-first in the simulation: an owner who presses nothing leaves the lead undialed and followed up', async (t) => {
  const built = await dialingApp(t, { env: { LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_DELAY_MS: '5' } })
  const { account, token } = await built.createAccount('Acme Roofing', { ...DIALING, onAnswer: 'agent-first:+13125550199' })
  await postLead(built.app, token, { phone: PHONE, name: 'Jane Doe' })
  t.match(await waitForEvent(built.leadline, account.accountId, PHONE, 'AgentUnavailable'), { data: { reason: 'no_key' } })
  await waitForEvent(built.leadline, account.accountId, PHONE, 'FollowUpScheduled')
  const types = await leadEventTypes(built.leadline, account.accountId, PHONE)
  t.notOk(types.includes('LeadDialStarted'), 'the lead was never dialed')
})

t.test('agent-first then=assistant in the simulation: no owner presses 1, so the lead is called once and talks with the assistant', async (t) => {
  const built = await dialingApp(t, { env: { LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_DELAY_MS: '5' } })
  const { account, token } = await built.createAccount('Acme Roofing', { ...DIALING, onAnswer: 'agent-first:+13125550199;then=assistant' })
  await postLead(built.app, token, { phone: PHONE, name: 'Jane Doe' })
  t.match(await waitForEvent(built.leadline, account.accountId, PHONE, 'AgentUnavailable'), { data: { reason: 'no_key', nextLeg: null } })
  await waitForEvent(built.leadline, account.accountId, PHONE, 'AssistantFallbackStarted')
  await waitForEvent(built.leadline, account.accountId, PHONE, 'AssistantCallEnded', 1)
  const carrier = built.leadline.carrier as SimulatedCarrier
  const toLead = carrier.calls().filter((c) => c.request.to.endsWith(PHONE))
  t.equal(toLead.length, 1, 'one direct call to the lead')
  t.equal(carrier.assistantCalls().length, 1, 'the assistant took that call')
  t.equal(carrier.assistantCalls()[0]?.callId, toLead[0]?.callId)
  const types = await leadEventTypes(built.leadline, account.accountId, PHONE)
  t.equal(types.filter((type) => type === 'AssistantFallbackStarted').length, 1)
  t.notOk(types.includes('LeadDialStarted'))
})
