/**
 * When the phone is answered (issue #26), as agents read it: get_lead's call summary, get_next_actions'
 * callbacks due and missed connects above the stale leads, and the new events in get_lead_history
 * (never a recording or a transcript). Histories are made by the lead decider's own commands, run
 * through leadline.commands as the carrier's reports run them; no process manager runs (start: false),
 * so nothing calls on its own while the clock moves.
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { mcpApp, placeNewestCall, runLeadCommand, type McpTestAccount, type McpTestApp } from './mcp-helpers.ts'

const OWNER = '+15125550199'
const DIALING = {
  speedToLead: true, callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false,
  timeZone: 'America/New_York', onAnswer: `greeting+bridge:${OWNER}`,
}
const RECORDING_URL = 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE0123456789abcdef0123456789abcdef'
const MIN = 60_000

interface Clock {
  now: Date
}

function at(clock: Clock, iso: string): string {
  clock.now = new Date(iso)
  return clock.now.toISOString()
}

async function app_(t: Parameters<typeof mcpApp>[0], clock: Clock): Promise<{ app: McpTestApp; account: McpTestAccount }> {
  const app = await mcpApp(t, { start: false, clock: () => clock.now })
  return { app, account: await app.account('Acme Roofing', DIALING) }
}

/** Runs one of the lead decider's commands on the lead's stream, as the carrier's reports do. */
const run = runLeadCommand

async function settings(app: McpTestApp, account: McpTestAccount) {
  return (await app.leadline.accounts.require(account.accountId)).settings
}

const place = placeNewestCall

async function getLead(app: McpTestApp, account: McpTestAccount, phone: string) {
  const answer = await app.call(account.keys.read, 'get_lead', { phone })
  return answer.result?.structuredContent as { lead: { do_not_call: boolean }; calls: Record<string, unknown> }
}

async function nextActions(app: McpTestApp, account: McpTestAccount) {
  await app.settle()
  return (await app.call(account.keys.read, 'get_next_actions', {})).result?.structuredContent as { summary: string; stale_leads: Array<Record<string, unknown>> }
}

t.test('get_lead: a machine with a voicemail, then a follow-up answered with 2; attempts today in the account\'s zone; the history shows both, never a recording', async (t) => {
  const clock = { now: new Date('2026-03-10T03:30:00Z') } // 23:30 on March 9 in New York
  const { app, account } = await app_(t, clock)
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  t.same((await getLead(app, account, '3125550142')).calls, { attempts_today: 1, attempts_total: 1, last_outcome: null, next_follow_up_at: null }, 'speed to lead decided a call: no outcome yet')

  const first = await place(app, account, '3125550142', 'CA1')
  at(clock, '2026-03-10T03:30:20Z')
  await run(app, account, '3125550142', { type: 'RecordAnsweredBy', settings: await settings(app, account), callId: 'CA1', answeredBy: 'machine_end_beep', node: 'test' })
  at(clock, '2026-03-10T03:30:45Z')
  await run(app, account, '3125550142', { type: 'RecordVoicemailOutcome', decisionId: first, failure: null })
  const ended = at(clock, '2026-03-10T03:30:50Z')
  await run(app, account, '3125550142', { type: 'RecordCallStatus', settings: await settings(app, account), update: { callId: 'CA1', status: 'completed', durationSeconds: 48, timestamp: '', carrier: 'twilio' } })
  t.same((await getLead(app, account, '3125550142')).calls, {
    attempts_today: 1,
    attempts_total: 1,
    last_outcome: { result: 'machine', answered_by: 'machine_end_beep', voicemail_left: true, menu_choice: null, callback_at: null, connected_to_owner: null, opted_out: false, at: ended },
    next_follow_up_at: '2026-03-10T03:40:20.000Z', // the policy's first step, 10 minutes after the machine's verdict
  }, 'a machine is not an answer: follow-up goes on')

  // 00:05 in New York: a new day there (not yet in UTC terms, where both calls are on March 10).
  at(clock, '2026-03-10T04:05:00Z')
  await run(app, account, '3125550142', { type: 'ClaimFollowUp', settings: await settings(app, account), attempt: 2, decisionId: 'dec_followup_jane_1' })
  const second = await place(app, account, '3125550142', 'CA2')
  t.equal(second, 'dec_followup_jane_1')
  const pressed = at(clock, '2026-03-10T04:05:30Z')
  await run(app, account, '3125550142', { type: 'PressMenuKey', settings: await settings(app, account), decisionId: second, digit: '2', ownerNumber: OWNER })
  t.same((await getLead(app, account, '3125550142')).calls, {
    attempts_today: 1,
    attempts_total: 2,
    last_outcome: { result: 'answered', answered_by: 'human', voicemail_left: false, menu_choice: 'callback', callback_at: '2026-03-10T05:05:30.000Z', connected_to_owner: null, opted_out: false, at: pressed },
    next_follow_up_at: '2026-03-10T05:05:30.000Z',
  }, 'the callback the lead asked for is the next follow-up')

  // The call ends; its recording and transcript are stored for the account, never shown.
  at(clock, '2026-03-10T04:06:30Z')
  await run(app, account, '3125550142', {
    type: 'RecordCallStatus', settings: await settings(app, account),
    update: { callId: 'CA2', status: 'completed', durationSeconds: 60, timestamp: '', carrier: 'twilio', recordingUrl: RECORDING_URL, transcript: 'CALL ME AT FIVE PLEASE' },
  })
  const lead = await getLead(app, account, '3125550142')
  t.match(lead.calls, { last_outcome: { result: 'answered', menu_choice: 'callback', at: '2026-03-10T04:06:30.000Z' } }, 'at: when the outcome was last recorded (the call ended)')

  const history = (await app.call(account.keys.read, 'get_lead_history', { phone: '3125550142' })).result?.structuredContent as { events: Array<{ type: string; data: Record<string, unknown> }> }
  const types = history.events.map((e) => e.type)
  t.ok(types.includes('CallReachedMachine') && types.includes('VoicemailLeft'), 'the voicemail is in the history')
  t.match(history.events.find((e) => e.type === 'MenuKeyPressed'), { data: { digit: '2', choice: 'callback' } }, 'the key is in the history')
  t.match(history.events.find((e) => e.type === 'CallbackRequested'), { data: { callbackAt: '2026-03-10T05:05:30.000Z' } })
  const text = JSON.stringify([history, lead])
  t.notOk(text.includes('Recordings/') || text.includes('CALL ME AT FIVE'), 'no recording URL, no transcript')
})

t.test('get_lead: pressing 1 that reached nobody, and pressing 9', async (t) => {
  const clock = { now: new Date('2026-03-10T15:00:00Z') }
  const { app, account } = await app_(t, clock)
  await account.pushLead({ name: 'Cat Lee', phone: '(617) 555-0100' })
  const call = await place(app, account, '6175550100', 'CA1')
  const pressed = at(clock, '2026-03-10T15:00:30Z')
  await run(app, account, '6175550100', { type: 'PressMenuKey', settings: await settings(app, account), decisionId: call, digit: '1', ownerNumber: OWNER })
  t.match((await getLead(app, account, '6175550100')).calls, { last_outcome: { result: 'answered', menu_choice: 'connect', connected_to_owner: null, at: pressed } }, "while the owner's phone rings")
  const missed = at(clock, '2026-03-10T15:01:00Z')
  await run(app, account, '6175550100', { type: 'RecordOwnerConnect', decisionId: call, status: 'no-answer', durationSeconds: null })
  t.same((await getLead(app, account, '6175550100')).calls, {
    attempts_today: 1,
    attempts_total: 1,
    last_outcome: { result: 'answered', answered_by: 'human', voicemail_left: false, menu_choice: 'connect', callback_at: null, connected_to_owner: false, opted_out: false, at: missed },
    next_follow_up_at: null,
  })

  await account.pushLead({ name: 'Otto Out', phone: '(617) 555-0199' })
  const optOut = await place(app, account, '6175550199', 'CA2')
  const stop = at(clock, '2026-03-10T15:02:00Z')
  await run(app, account, '6175550199', { type: 'PressMenuKey', settings: await settings(app, account), decisionId: optOut, digit: '9', ownerNumber: OWNER })
  const otto = await getLead(app, account, '6175550199')
  t.equal(otto.lead.do_not_call, true, 'do-not-call at once')
  t.same(otto.calls.last_outcome, { result: 'answered', answered_by: 'human', voicemail_left: false, menu_choice: 'opt_out', callback_at: null, connected_to_owner: null, opted_out: true, at: stop })
})

t.test('get_next_actions: callbacks due, then missed connects, newest first each, above the stale leads; each leaves once a call goes out', async (t) => {
  const clock = { now: new Date('2026-03-10T15:00:00Z') }
  const { app, account } = await app_(t, clock)
  const dan = await account.pushLead({ name: 'Dan New', phone: '(212) 555-0101' }) // decided, never placed: never contacted
  const leads: Record<string, string> = {}
  for (const [name, phone, last10, callId] of [
    ['Bob Back', '(415) 555-0101', '4155550101', 'CA1'], ['Eve Back', '(415) 555-0102', '4155550102', 'CA2'],
    ['Cat Missed', '(617) 555-0100', '6175550100', 'CA3'], ['Ann Missed', '(617) 555-0101', '6175550101', 'CA4'],
  ] as const) {
    leads[name] = (await account.pushLead({ name, phone })).leadId
    await place(app, account, last10, callId)
  }
  const key = async (last10: string, digit: string) => {
    const { state } = await app.leadline.commands.load(leadStream(account.accountId, last10), leadDecider)
    await run(app, account, last10, { type: 'PressMenuKey', settings: await settings(app, account), decisionId: state.dialing.order[0] as string, digit, ownerNumber: OWNER })
    return state.dialing.order[0] as string
  }
  at(clock, '2026-03-10T15:01:00Z')
  await key('4155550101', '2') // Bob: back at 16:01
  const cat = await key('6175550100', '1')
  await run(app, account, '6175550100', { type: 'RecordOwnerConnect', decisionId: cat, status: 'busy', durationSeconds: null })
  at(clock, '2026-03-10T15:05:00Z')
  await key('4155550102', '2') // Eve: back at 16:05
  const ann = await key('6175550101', '1')
  await run(app, account, '6175550101', { type: 'RecordOwnerConnect', decisionId: ann, status: 'no-answer', durationSeconds: null })

  const before = await nextActions(app, account)
  t.same(before.stale_leads.map((l) => [l.name, l.why]), [['Ann Missed', 'connect_missed'], ['Cat Missed', 'connect_missed']], 'callbacks not due yet; missed connects newest first; Dan is 5 minutes old')
  t.equal(before.summary, '2 leads pressed 1 to talk to someone and were not connected. No stale leads: every contacted lead was touched within 24 hours and no new lead has waited over 15 minutes for a first contact.')

  const now = at(clock, '2026-03-10T16:10:00Z')
  const after = await nextActions(app, account)
  t.same(after.stale_leads.map((l) => [l.name, l.why]), [
    ['Eve Back', 'callback_due'], ['Bob Back', 'callback_due'], ['Ann Missed', 'connect_missed'], ['Cat Missed', 'connect_missed'], ['Dan New', 'never_contacted'],
  ])
  t.same(after.stale_leads[0], {
    lead_id: leads['Eve Back'], name: 'Eve Back', phone: '+14155550102', source: null, last_touch: '2026-03-10T15:05:00.000Z', attempts: 1,
    why: 'callback_due', suggested_action: 'call back: the lead asked (pressing 2) to be called back at 2026-03-10T16:05:00.000Z', next_allowed_at: now,
    lead_zones: ['America/Los_Angeles'],
  })
  t.same(after.stale_leads[2], {
    lead_id: leads['Ann Missed'], name: 'Ann Missed', phone: '+16175550101', source: null, last_touch: '2026-03-10T15:05:00.000Z', attempts: 1,
    why: 'connect_missed', suggested_action: 'call now: the lead pressed 1 to talk to someone and the owner did not pick up', next_allowed_at: now,
    lead_zones: ['America/New_York'],
  })
  t.equal(after.summary, '2 leads are due the callback they asked for; 2 leads pressed 1 to talk to someone and were not connected. 0 leads were contacted but untouched for over 24 hours; 1 new lead has not been contacted 15 minutes after arriving.')
  t.same((await app.call(account.keys.read, 'get_next_actions', { limit: 3 })).result?.structuredContent.stale_leads.map((l: { name: string }) => l.name), ['Eve Back', 'Bob Back', 'Ann Missed'], 'a short page: the most urgent')

  // Follow-up claims Bob's callback; an agent calls Ann back.
  await run(app, account, '4155550101', { type: 'ClaimFollowUp', settings: await settings(app, account), attempt: 2, decisionId: 'dec_callback_bob' })
  await run(app, account, '6175550101', { type: 'DecidePlaceCall', settings: await settings(app, account), decisionId: 'dec_callback_ann', idempotencyKey: 'ann-1' })
  await place(app, account, '6175550101', 'CA5')
  const last = await nextActions(app, account)
  t.same(last.stale_leads.map((l) => [l.name, l.why]), [['Eve Back', 'callback_due'], ['Cat Missed', 'connect_missed'], ['Dan New', 'never_contacted']])
  t.equal(last.stale_leads.find((l) => l.lead_id === dan.leadId)?.suggested_action, 'call: a new lead nobody has reached yet')
})
