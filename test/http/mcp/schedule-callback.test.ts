/**
 * schedule_callback through the tool endpoint (issue #30), on a clock the test sets: a time inside the
 * account's calling hours in the lead's zone, refused with next_allowed_at outside them, in the past
 * or too far ahead; follow-up then decides the call at that time (no process manager runs: the test
 * ticks the follow-up timer itself).
 */
import t from 'tap'
import { CALLER_ID, manualClock } from '../../helpers/dialing-app.ts'
import { janeApp, writeToolChecks } from './write-tool-checks.ts'

// Tuesday 10:00 in Chicago (CDT, UTC-5).
const TUESDAY_10AM = '2026-03-10T15:00:00Z'
const SETTINGS = { callerId: CALLER_ID, callingHours: 'mon-fri 09:00-17:00', timeZone: 'America/Chicago', leadTimeGuard: false }
const WEDNESDAY_10AM = '2026-03-11T10:00:00-05:00'

writeToolChecks(t, {
  tool: 'schedule_callback',
  scope: 'dial',
  settings: SETTINGS,
  options: { clock: manualClock(TUESDAY_10AM).now, start: false },
  args: { callback_at: WEDNESDAY_10AM },
  event: 'CallbackScheduled',
  bad: [
    { args: { callback_at: 'tomorrow at ten' }, code: 'invalid_arguments' },
    { args: { callback_at: '2026-03-10T08:00:00-05:00' }, code: 'callback_in_past' },
    { args: { callback_at: '2026-05-01T10:00:00-05:00' }, code: 'callback_too_far' },
    { args: { callback_at: '2026-03-14T10:00:00-05:00' }, code: 'outside_calling_hours' },
  ],
})

async function callbackApp(t: Parameters<typeof janeApp>[0]) {
  const clock = manualClock(TUESDAY_10AM)
  const built = await janeApp(t, { settings: SETTINGS, options: { clock: clock.now, start: false } })
  const decided = async () => (await built.app.leadline.store.readStream(`lead-${built.acme.accountId}-3125550142`)).filter((e) => e.type === 'CallDecided')
  return { ...built, clock, decided }
}

t.test('outside calling hours: refused with the next allowed moment, in the lead\'s zone', async (t) => {
  const { app, acme, types } = await callbackApp(t)
  const before = await types()
  const saturday = await app.call(acme.keys.dial, 'schedule_callback', { phone: '(312) 555-0142', callback_at: '2026-03-14T10:00:00-05:00', idempotency_key: 'sat' })
  t.match(saturday.error?.data, { code: 'outside_calling_hours', next_allowed_at: '2026-03-16T14:00:00.000Z' })
  const evening = await app.call(acme.keys.dial, 'schedule_callback', { phone: '(312) 555-0142', callback_at: '2026-03-11T18:30:00-05:00', idempotency_key: 'eve' })
  t.match(evening.error?.data, { code: 'outside_calling_hours', next_allowed_at: '2026-03-12T14:00:00.000Z' })
  t.same(await types(), before, 'nothing recorded')
})

t.test('follow-up decides the call at the callback time, not before; get_lead and the history show it', async (t) => {
  const { app, acme, clock, decided } = await callbackApp(t)
  const answer = await app.call(acme.keys.dial, 'schedule_callback', { lead_id: (await app.call(acme.keys.read, 'get_lead', { phone: '3125550142' })).result?.structuredContent.lead.lead_id, callback_at: WEDNESDAY_10AM, idempotency_key: 'cb-1' })
  t.match(answer.result?.structuredContent, { callback_at: '2026-03-11T15:00:00.000Z', replaced_follow_up_at: null, next_follow_up_at: '2026-03-11T15:00:00.000Z', dry_run: false })
  const lead = (await app.call(acme.keys.read, 'get_lead', { phone: '3125550142' })).result?.structuredContent
  t.same(lead.follow_up, { paused: false, paused_at: null, next_at: '2026-03-11T15:00:00.000Z' })
  const history = (await app.call(acme.keys.read, 'get_lead_history', { phone: '3125550142' })).result?.structuredContent
  t.match(history.events[1], { type: 'CallbackScheduled', summary: 'callback scheduled for 2026-03-11T15:00:00.000Z' })

  clock.set('2026-03-11T14:59:00Z')
  await app.leadline.followUps.tick()
  t.same(await decided(), [], 'not a minute early')
  clock.set('2026-03-11T15:00:00Z')
  await app.leadline.followUps.tick()
  t.match((await decided()).map((e) => e.data), [{ purpose: 'follow_up', to: '+13125550142', from: CALLER_ID }], 'the callback is decided as a follow-up call')
})

t.test('a second callback takes the place of the first; a do-not-call lead is refused; a write key is not enough', async (t) => {
  const { app, acme } = await callbackApp(t)
  await app.call(acme.keys.dial, 'schedule_callback', { phone: '3125550142', callback_at: WEDNESDAY_10AM, idempotency_key: 'cb-1' })
  const second = await app.call(acme.keys.dial, 'schedule_callback', { phone: '3125550142', callback_at: '2026-03-12T09:30:00-05:00', idempotency_key: 'cb-2' })
  t.match(second.result?.structuredContent, { replaced_follow_up_at: '2026-03-11T15:00:00.000Z', next_follow_up_at: '2026-03-12T14:30:00.000Z' })
  await app.call(acme.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'dnc' })
  const refused = await app.call(acme.keys.dial, 'schedule_callback', { phone: '3125550142', callback_at: WEDNESDAY_10AM, idempotency_key: 'cb-3' })
  t.equal(refused.error?.data.code, 'do_not_call')
})

t.test('a scheduled callback that falls due with no call decided is listed by get_next_actions, until a call is decided for it', async (t) => {
  const { app, acme, clock } = await callbackApp(t)
  await app.call(acme.keys.dial, 'schedule_callback', { phone: '3125550142', callback_at: WEDNESDAY_10AM, idempotency_key: 'cb-1' })
  await app.call(acme.keys.write, 'pause_follow_up', { phone: '3125550142', idempotency_key: 'pause' })
  // No runner runs here (start: false): the read models catch up before each read.
  const nextActions = async () => {
    await app.leadline.runner.catchUp()
    return (await app.call(acme.keys.read, 'get_next_actions', {})).result?.structuredContent
  }

  clock.set('2026-03-11T14:59:00Z')
  t.notOk((await nextActions()).stale_leads.some((l: { why: string }) => l.why === 'callback_due'), 'not due a minute early')
  clock.set('2026-03-11T15:05:00Z')
  const due = await nextActions()
  t.match(due.stale_leads[0], { phone: '+13125550142', why: 'callback_due', suggested_action: 'call back: a callback was scheduled (schedule_callback) for 2026-03-11T15:00:00.000Z' })
  t.match(due.summary, /^1 lead is due the callback/)

  const placed = await app.call(acme.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: 'call-back' })
  t.equal(placed.result?.structuredContent.status, 'placed', placed.error?.message ?? 'the call is placed')
  t.notOk((await nextActions()).stale_leads.some((l: { why: string }) => l.why === 'callback_due'), 'a call decided for it answers the callback')
})
