/**
 * `leadline simulate inbound-call`: each scenario plays an inbound call on the simulated carrier through
 * the inbound reports Twilio's voice webhook reaches, and records the events a real call records
 * (owner answers, owner declines, no answer, voicemail, the call-back key, the assistant); the output
 * says SIMULATED. Refusals: an unknown scenario, an account with no number, a carrier that is not
 * simulated. Through a running server, a simulated missed call is texted back, alerted and listed.
 */
import path from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'
import { buildApp } from '../helpers/build-app.ts'
import { simulateInboundCall } from '../../src/commands/simulate-inbound-call.command.ts'
import type { SimulatedCarrier } from '../../src/integrations/carrier/simulated/index.ts'

function cli(t: Test) {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'silent' }
  return async (...args: string[]) => {
    const { code, stdout, stderr } = await runLeadlineInProcess(args, env)
    return { code, out: stdout, err: stderr }
  }
}

async function account(run: ReturnType<typeof cli>, ...settings: string[]): Promise<string> {
  const { accountId } = JSON.parse((await run('account', 'create', '--name', 'Acme Plumbing', '--json')).out) as { accountId: string }
  const set = await run('account', 'set', accountId, '--caller-id', '+13125550100', '--calling-hours', 'mon-sun 00:00-24:00', '--inbound-ring', '+13125550101,+13125550102', ...settings)
  if (set.code !== 0) throw new Error(set.err)
  return accountId
}

const types = (out: string) => (JSON.parse(out) as { events: Array<{ type: string }> }).events.map((e) => e.type)

t.test('each scenario plays through the inbound reports and records what a real call records', async (t) => {
  const run = cli(t)
  const id = await account(run)
  const answered = await run('simulate', 'inbound-call', '--account', id, '--from', '+13125550142', '--scenario', 'owner-answers')
  t.equal(answered.code, 0, answered.err)
  t.match(answered.out, /^SIMULATED inbound call CAsim\w+ from \+13125550142 to \+13125550100 \(owner-answers\): no phone rang\n/)
  t.match(answered.out, /owner 1 \(\+13125550101\) hears "Call from [^"]+, press 1 to take it\."\n  owner 1 presses 1: connected\noutcome: connected\n/)
  t.match(answered.out, /  InboundCallConnected: inbound call taken by owner number 1 \(\+13125550101\)\n/)

  const json = async (scenario: string, from: string) => {
    const result = await run('simulate', 'inbound-call', '--account', id, '--from', from, '--scenario', scenario, '--json')
    t.equal(result.code, 0, result.err)
    return result.out
  }
  const declined = await json('owner-declines', '+13125550143')
  t.same(types(declined), ['LeadReceived', 'InboundCallReceived', 'InboundCallMissed', 'InboundCallEnded'], 'a new caller becomes a lead; both owners declined')
  t.match(JSON.parse(declined), { outcome: 'missed', steps: ['the caller hears "Thanks for calling Acme Plumbing. Please hold while we connect you.", then ringing', /owner 1/, 'owner 1 presses 2: declined', /owner 2/, 'owner 2 presses 2: declined', /nobody at Acme Plumbing/, /hangs up/] })
  t.same(types(await json('no-answer', '+13125550143')), ['InboundCallReceived', 'InboundCallMissed', 'InboundCallEnded'])
  t.same(types(await json('voicemail', '+13125550143')), ['InboundCallReceived', 'InboundCallMissed', 'InboundVoicemailLeft', 'InboundCallEnded'])
  t.same(types(await json('callback', '+13125550143')), ['InboundCallReceived', 'InboundCallMissed', 'InboundCallbackRequested', 'InboundCallEnded'])
  const offAssistant = JSON.parse(await json('assistant', '+13125550143')) as { outcome: string; steps: string[] }
  t.equal(offAssistant.outcome, 'missed')
  t.match(offAssistant.steps.at(-1), /the assistant did not answer: it is off for this account/)

  t.equal((await run('account', 'set', id, '--on-answer', 'assistant')).code, 0)
  const assisted = JSON.parse(await json('assistant', '+13125550144')) as { outcome: string; events: Array<{ type: string }>; steps: string[] }
  t.equal(assisted.outcome, 'assistant')
  t.match(assisted.events.map((e) => e.type), ['LeadReceived', 'InboundCallReceived', 'AssistantSessionOpened', 'InboundCallConnected'])
  t.notMatch(assisted.steps.join('\n'), /says/, 'what was said stays on the log (a transcript), never in the output')
})

t.test('refusals: the scenario, the account, its number, the caller\'s number, a carrier that is not simulated', async (t) => {
  const run = cli(t)
  const id = await account(run)
  t.match(await run('simulate', 'inbound-call', '--account', id, '--from', '+13125550142', '--scenario', 'ring-forever'), { code: 2, err: /--scenario takes owner-answers, owner-declines, no-answer, voicemail, assistant, callback/ })
  t.match(await run('simulate', 'inbound-call', '--from', '+13125550142'), { code: 2, err: /--account is required/ })
  t.match(await run('simulate', 'outbound-call'), { code: 2, err: /usage: leadline simulate inbound-call/ })
  t.match(await run('simulate', 'inbound-call', '--account', 'acc_nope', '--from', '+13125550142'), { code: 2, err: /no account acc_nope/ })
  t.match(await run('simulate', 'inbound-call', '--account', id, '--from', 'not a phone'), { code: 2, err: /--from: phone must contain at least 10 digits/ })
  const { accountId: bare } = JSON.parse((await run('account', 'create', '--name', 'No Number', '--json')).out) as { accountId: string }
  t.match(await run('simulate', 'inbound-call', '--account', bare, '--from', '+13125550142'), { code: 2, err: /the account has no number to call/ })
  // A carrier without the simulation (Twilio): refused before anything is recorded.
  const refused = simulateInboundCall({ accounts: { get: async () => null }, carrier: { name: 'twilio' }, commands: { load: async () => { throw new Error('not reached') } } }, id, { from: '+13125550142', scenario: 'no-answer' })
  await t.rejects(refused, { code: 'not_simulated', message: /only the simulated carrier plays an inbound call/ })
})

t.test('through a running server: a simulated missed call is texted back once, alerted, and listed as call_back', async (t) => {
  const built = await buildApp(t, { env: { LEADLINE_SIMULATED_DELAY_MS: '10' } })
  const { account: created } = await built.createAccount('Acme Plumbing', {
    callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, inboundRing: '+13125550101', alertTo: '+13125550199', alerts: 'missed_call',
  })
  const { leadline } = built
  const result = await simulateInboundCall(leadline, created.accountId, { from: '+13125550142', scenario: 'no-answer' })
  t.equal(result.outcome, 'missed')
  const carrier = leadline.carrier as SimulatedCarrier
  const texted = async (to: string) => {
    for (let i = 0; i < 500 && !carrier.texts().some((m) => m.request.to === to); i++) await new Promise((r) => setTimeout(r, 10))
    return carrier.texts().filter((m) => m.request.to === to)
  }
  t.match((await texted('+13125550142')).map((m) => m.request.body), [/^Hi there, sorry we missed your call at Acme Plumbing\./])
  t.match((await texted('+13125550199')).map((m) => m.request.body), [/^Leadline: missed call from \+13125550142 /])
  await leadline.runner.catchUp()
  const next = await leadline.nextActions.getNextActions((await leadline.accounts.get(created.accountId))!)
  t.match(next.stale_leads[0], { phone: '+13125550142', why: 'call_back' })
})
