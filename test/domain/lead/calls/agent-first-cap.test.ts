/**
 * Agent-first and the lead's daily cap (issue #40 item 12a): only calls that ring the lead count. An
 * owner who never picks up does not lock the lead out for a day, and get_lead's `attempts_today`
 * (callSummary) counts the same calls the cap does; the cap is checked again as the lead is dialed.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { callSummary } from '../../../../src/domain/lead/calls/call-summary.ts'
import type { LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { leadDecider } from '../../../../src/domain/lead/lead.decider.ts'
import { leadFields as fields, play, plus, stateOf } from '../../../helpers/lead-play.ts'

const NOW = new Date('2026-03-10T15:00:00Z') // a Tuesday, 11:00 in New York
const OWNER = '+13125550199'
const AGENT: AccountSettings = {
  ...DEFAULT_SETTINGS, callerId: '+13125550100', leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00', onAnswer: `agent-first:${OWNER}`,
  followUp: 'off',
}

const received: LeadCommand = { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: fields(), speedToLead: { settings: AGENT, decisionId: 'dec_stl' } } as LeadCommand
const decide = (n: number): LeadCommand => ({ type: 'DecidePlaceCall', settings: AGENT, decisionId: `dec_${n}`, idempotencyKey: `k${n}` })
const start = (n: number): LeadCommand => ({ type: 'StartCallAttempt', decisionId: `dec_${n}`, node: 'n1', settings: AGENT })
const placed = (n: number): LeadCommand => ({ type: 'RecordCallPlaced', decisionId: `dec_${n}`, callId: `CA${n}`, carrier: 'twilio', ownerLeg: 0, to: OWNER })
const noAnswer = (n: number): LeadCommand => ({ type: 'RecordCallStatus', settings: AGENT, node: 'n1', update: { callId: `CA${n}`, status: 'no-answer', timestamp: '', carrier: 'twilio' } }) as LeadCommand
const key = (n: number): LeadCommand => ({ type: 'PressAgentKey', settings: AGENT, decisionId: `dec_${n}`, callId: `CA${n}`, digit: '1', node: 'n1' })

/** Call n rings the owner, who does not answer. */
const ownerMissed = (n: number, at: Date): Array<readonly [Date, LeadCommand]> => [[at, decide(n)], [at, start(n)], [at, placed(n)], [plus(at, 30_000), noAnswer(n)]]
/** Call n rings the owner, who presses 1: the lead is dialed. */
const leadDialed = (n: number, at: Date): Array<readonly [Date, LeadCommand]> => [[at, decide(n)], [at, start(n)], [at, placed(n)], [plus(at, 20_000), key(n)]]

t.test("owner legs that nobody answered do not use up the lead's cap", async (t) => {
  const steps = [[NOW, received] as const, ...[1, 2, 3, 4, 5].flatMap((n) => ownerMissed(n, plus(NOW, n * 60_000)))]
  const events = play(steps)
  const decided = events.filter((e) => e.type === 'CallDecided').length
  t.equal(decided, 5, 'five calls decided in an hour under max 3 per 24h: none rang the lead')
  t.equal(events.filter((e) => e.type === 'AgentUnavailable').length, 5)
  const summary = callSummary(stateOf(events).dialing, 'America/New_York', plus(NOW, 10 * 60_000))
  t.equal(summary.attemptsToday, 0, 'attempts_today: no call rang the lead')
  t.equal(summary.attemptsTotal, 5, 'attempts_total: every decision')
})

t.test('calls that dialed the lead count, and the cap is checked again as the lead is about to ring', async (t) => {
  // Two calls dialed the lead; two more ring the owner at once, and both owners press 1.
  const steps = [[NOW, received] as const, ...leadDialed(1, plus(NOW, 60_000)), ...leadDialed(2, plus(NOW, 120_000))]
  let events: LeadEvent[] = play(steps)
  t.equal(callSummary(stateOf(events).dialing, 'America/New_York', plus(NOW, 200_000)).attemptsToday, 2)
  events = play([[plus(NOW, 180_000), decide(3)], [plus(NOW, 180_000), start(3)], [plus(NOW, 180_000), placed(3)],
    [plus(NOW, 181_000), decide(4)], [plus(NOW, 181_000), start(4)], [plus(NOW, 181_000), placed(4)]], events)
  t.equal(events.filter((e) => e.type === 'CallDecided').length, 4, 'both decided: neither rang the lead yet')
  const first = leadDecider.decide(key(3), stateOf(events), plus(NOW, 200_000))
  t.match(first, [{ type: 'LeadDialStarted', data: { decisionId: 'dec_3' } }], 'the third call to ring the lead is dialed')
  events = [...events, ...first]
  const second = leadDecider.decide(key(4), stateOf(events), plus(NOW, 201_000))
  t.match(second[0], { type: 'AgentUnavailable', data: { decisionId: 'dec_4', reason: 'lead_not_allowed', refusal: 'daily_limit' } }, 'a fourth would break the cap: refused')
  t.notOk(second.some((e) => e.type === 'LeadDialStarted'), 'the lead is not dialed a fourth time')
  events = [...events, ...second]
  t.equal(callSummary(stateOf(events).dialing, 'America/New_York', plus(NOW, 202_000)).attemptsToday, 3)
  t.throws(() => leadDecider.decide(decide(5), stateOf(events), plus(NOW, 203_000)), { code: 'daily_limit' }, 'a new call is refused too')
})
