/**
 * Agent-first owner legs do not count toward the lead's daily cap (issue #40 item 12a), as agents read
 * it: after three calls whose owner never picked up, get_lead says `attempts_today: 0`, place_call may
 * call again and get_next_actions says the call is allowed now (the calls read model counts the same).
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { mcpApp, runLeadCommand } from './mcp-helpers.ts'

const OWNER = '+15125550199'
const AGENT = {
  callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, timeZone: 'America/New_York',
  onAnswer: `agent-first:${OWNER}`, followUp: 'off',
}

t.test('three owner legs nobody answered leave the lead callable, attempts_today 0', async (t) => {
  const clock = { now: new Date('2026-03-10T15:00:00Z') }
  const app = await mcpApp(t, { start: false, clock: () => clock.now })
  const account = await app.account('Acme', AGENT)
  const settings = (await app.leadline.accounts.require(account.accountId)).settings
  const lead = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  for (const n of [1, 2, 3]) {
    clock.now = new Date(clock.now.getTime() + 5 * 60_000)
    await runLeadCommand(app, account, '3125550142', { type: 'DecidePlaceCall', settings, decisionId: `dec_${n}`, idempotencyKey: `k${n}` })
  }
  // No process runs here (start: false): each decision is placed to the owner by hand, and the owner never answers.
  const { state } = await app.leadline.commands.load(leadStream(account.accountId, '3125550142'), leadDecider)
  t.equal(state.dialing.order.length, 3, 'three calls decided')
  for (const [i, decisionId] of state.dialing.order.entries()) {
    await runLeadCommand(app, account, '3125550142', { type: 'StartCallAttempt', decisionId, node: 'test' })
    await runLeadCommand(app, account, '3125550142', { type: 'RecordCallPlaced', decisionId, callId: `CA${i}`, carrier: 'twilio', ownerLeg: 0, to: OWNER })
    await runLeadCommand(app, account, '3125550142', { type: 'RecordCallStatus', settings, node: 'test', update: { callId: `CA${i}`, status: 'no-answer', timestamp: '', carrier: 'twilio' } })
  }
  await app.settle()
  const got = (await app.call(account.keys.read, 'get_lead', { lead_id: lead.leadId })).result?.structuredContent
  t.match(got.calls, { attempts_today: 0, attempts_total: 3 }, "get_lead: the owner's legs are not attempts on the lead")
  clock.now = new Date(clock.now.getTime() + 60_000)
  t.match(await app.call(account.keys.all, 'place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: 'k4', dry_run: true }), {
    result: { structuredContent: { check: { allowed: true } } },
  }, 'a fourth call is allowed under max 3 per 24h')
  clock.now = new Date(clock.now.getTime() + 24 * 60 * 60_000 - 30 * 60_000)
  const next = (await app.call(account.keys.read, 'get_next_actions', {})).result?.structuredContent
  t.match(next.stale_leads, [{ lead_id: lead.leadId, next_allowed_at: clock.now.toISOString() }], 'get_next_actions: allowed now')
})
