/**
 * pause_follow_up and resume_follow_up through the tool endpoint (issue #30), on a clock the test
 * sets: a paused lead's pending follow-up is not claimed when due (the timer does not even list it);
 * resume sends a step that fell due meanwhile at the next allowed moment, and get_lead says paused.
 */
import t from 'tap'
import { CALLER_ID, manualClock } from '../../helpers/dialing-app.ts'
import { janeApp, writeToolChecks } from './write-tool-checks.ts'

const TUESDAY_10AM = '2026-03-10T15:00:00Z'
const SETTINGS = { callerId: CALLER_ID, callingHours: 'mon-fri 09:00-17:00', timeZone: 'America/Chicago', leadTimeGuard: false }
const jane = { phone: '(312) 555-0142' }
const bad = [
  { args: { phone: 'call me' }, code: 'invalid_arguments' },
  { args: { lead_id: 'ld_x' }, code: 'invalid_arguments' },
  { args: { paused: true }, code: 'invalid_arguments' },
]

writeToolChecks(t, { tool: 'pause_follow_up', scope: 'write', args: {}, event: 'FollowUpPaused', bad })
writeToolChecks(t, {
  tool: 'resume_follow_up',
  scope: 'write',
  args: {},
  event: 'FollowUpResumed',
  bad,
  prepare: async (app, acme, phone) => {
    await app.call(acme.keys.write, 'pause_follow_up', { phone, idempotency_key: `pause-first-${phone}` })
  },
})

t.test('a paused lead is not followed up when due; resume sends the step at the next allowed moment', async (t) => {
  const clock = manualClock(TUESDAY_10AM)
  const { app, acme } = await janeApp(t, { settings: SETTINGS, options: { clock: clock.now, start: false } })
  const decided = async () => (await app.leadline.store.readStream(`lead-${acme.accountId}-3125550142`)).filter((e) => e.type === 'CallDecided')
  // A pending follow-up: a callback Wednesday 10:00 Chicago.
  await app.call(acme.keys.dial, 'schedule_callback', { ...jane, callback_at: '2026-03-11T10:00:00-05:00', idempotency_key: 'cb' })

  const paused = await app.call(acme.keys.write, 'pause_follow_up', { ...jane, idempotency_key: 'p-1' })
  t.match(paused.result?.structuredContent, { paused: true, changed: true, next_follow_up_at: '2026-03-11T15:00:00.000Z', message: /waits/ })
  const again = await app.call(acme.keys.write, 'pause_follow_up', { ...jane, idempotency_key: 'p-2' })
  t.match(again.result?.structuredContent, { paused: true, changed: false })
  t.match((await app.call(acme.keys.read, 'get_lead', jane)).result?.structuredContent.follow_up, { paused: true, paused_at: TUESDAY_10AM.replace('Z', '.000Z'), next_at: '2026-03-11T15:00:00.000Z' })
  t.equal((await app.call(acme.keys.dial, 'schedule_callback', { ...jane, callback_at: '2026-03-12T10:00:00-05:00', idempotency_key: 'cb-2' })).error?.data.code, 'follow_up_paused')

  // Due, and after hours: nothing is claimed while paused.
  clock.set('2026-03-11T23:30:00Z')
  await app.settle()
  t.same(app.leadline.calls.dueFollowUps(clock.now().toISOString()), [], 'the timer does not list a paused lead')
  await app.leadline.followUps.tick()
  t.same(await decided(), [])

  // 18:30 Chicago: resumed, the step goes out at 09:00 Thursday, the first allowed moment.
  const resumed = await app.call(acme.keys.write, 'resume_follow_up', { ...jane, idempotency_key: 'r-1' })
  t.match(resumed.result?.structuredContent, { paused: false, changed: true, next_follow_up_at: '2026-03-12T14:00:00.000Z' })
  t.match((await app.call(acme.keys.write, 'resume_follow_up', { ...jane, idempotency_key: 'r-2' })).result?.structuredContent, { changed: false, message: /not paused/ })
  const history = (await app.call(acme.keys.read, 'get_lead_history', jane)).result?.structuredContent.events.map((e: { summary: string }) => e.summary)
  t.match(history.slice(0, 3), ['follow-up moved: attempt 1 due 2026-03-12T14:00:00.000Z: follow-up resumed (resumed)', 'follow-up resumed', 'follow-up paused'])

  clock.set('2026-03-12T14:00:00Z')
  await app.leadline.followUps.tick()
  t.match((await decided()).map((e) => e.data), [{ purpose: 'follow_up' }], 'then it is claimed')
})
