/**
 * Appointment confirmations and reminders (issue #45) through the real Twilio adapter (the official SDK)
 * against the fake Twilio, on the injected clock: a booking recorded on the lead (as the booking
 * command records it) is confirmed at once with the time in the lead's zone; reminders go 24 h and 1 h
 * before; a reminder due in quiet hours waits for the window, or is skipped with the window's rule when
 * the window opens too late; a cancelled appointment gets nothing more; a moved one gets its new times
 * only; a do-not-call lead gets nothing, each refusal naming the rule; a restart loses nothing and sends
 * nothing twice, on one node or two; the settings turn it off; CANCEL after a reminder opts the lead out.
 */
import t from 'tap'
import { receiveLead } from '../../../src/commands/receive-lead.command.ts'
import { markDoNotCall } from '../../../src/commands/mark-do-not-call.command.ts'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import type { Leadline } from '../../../src/leadline.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { inboundText } from '../../helpers/inbound-text.ts'
import { AppointmentTextsQueries } from '../../../projections/appointment-texts/appointment-texts.queries.ts'
import { CALLER_ID, dialingApp, fakeTwilio, leadEvents, leadEventTypes, manualClock, reopen, sleep, waitFor, waitForEvent, type ManualClock } from '../../helpers/dialing-app.ts'

const PHONE = '+13125550142'
const ALWAYS = 'mon-sun 00:00-24:00'
const SETTINGS = { callerId: CALLER_ID, callingHours: ALWAYS, leadTimeGuard: false, speedToLead: false, timeZone: 'America/Chicago', alerts: 'none' }
const HOUR = 60 * 60_000
const agent = { actor: { kind: 'api_key', id: 'key_test' } } as const

type Fake = Awaited<ReturnType<typeof fakeTwilio>>
const bodiesTo = (fake: Fake, to = PHONE) => fake.messageRequests().filter((r) => r.form.To === to).map((r) => r.form.Body as string)

async function setUp(leadline: Leadline, createAccount: (name: string, settings: Record<string, unknown>) => Promise<{ account: { accountId: string } }>, settings: Record<string, unknown> = {}, lead: Record<string, unknown> = {}) {
  const { account } = await createAccount('Acme Roofing', { ...SETTINGS, ...settings })
  await receiveLead(leadline, (await leadline.accounts.get(account.accountId))!, { phone: PHONE, name: 'Jane Doe', ...lead }, operatorContext)
  return { accountId: account.accountId, stream: leadStream(account.accountId, PHONE.slice(-10)) }
}

function on(leadline: Pick<Leadline, 'commands'>, stream: string, command: LeadCommand) {
  return leadline.commands.handle(stream, leadDecider, command, agent)
}

function book(leadline: Pick<Leadline, 'commands'>, stream: string, appointmentId: string, start: string) {
  const end = new Date(Date.parse(start) + HOUR).toISOString()
  return on(leadline, stream, {
    type: 'RecordAppointmentBooked', appointmentId, appointmentTypeId: 'roof', typeName: 'Roof estimate', start, end, provider: 'simulated', calendarId: 'main',
    eventUid: `leadline-${appointmentId}`, leadZone: 'America/Chicago', by: 'agent', idempotencyKey: null,
  })
}

/** Moves the clock and lets the reminders' tick (every 50 ms in tests) and the texter act. */
async function at(clock: ManualClock, leadline: Leadline, iso: string): Promise<void> {
  clock.set(iso)
  await leadline.appointmentReminders.tick()
}

async function pending(leadline: Leadline, stream: string): Promise<number> {
  await leadline.runner.catchUp()
  return new AppointmentTextsQueries(leadline.views).pendingFor(stream)
}

async function textsSent(leadline: Leadline, accountId: string): Promise<number> {
  return (await leadEventTypes(leadline, accountId, PHONE)).filter((type) => type === 'TextSent').length
}

const CONFIRMED = 'Confirmed: your Roof estimate with Acme Roofing is tomorrow, Thu Mar 12 at 10:00 AM CDT. To change the time, reply with a time that suits you or call +13125550100.\nReply STOP to opt out.'

t.test('a booking: confirmed at once in the lead zone, reminded 24 h and 1 h before, each once', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-11T14:00:00Z')
  const built = await dialingApp(t, { fake, clock })
  const { accountId, stream } = await setUp(built.leadline, built.createAccount)
  await book(built.leadline, stream, 'bk1', '2026-03-12T15:00:00.000Z')

  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent')
  t.same(bodiesTo(fake), [CONFIRMED], 'the time in the lead zone, how to change it without CANCEL, the opt-out line')
  const scheduled = (await leadEvents(built.leadline, accountId, PHONE)).find((e) => e.type === 'AppointmentTextsScheduled')
  t.match(scheduled?.data, {
    appointmentId: 'bk1', start: '2026-03-12T15:00:00.000Z',
    texts: [
      { kind: 'confirmation', dueAt: '2026-03-11T14:00:00.000Z' },
      { kind: 'reminder', minutesBefore: 1440, dueAt: '2026-03-11T15:00:00.000Z' },
      { kind: 'reminder', minutesBefore: 60, dueAt: '2026-03-12T14:00:00.000Z' },
    ],
  })
  const decided = (await leadEvents(built.leadline, accountId, PHONE)).find((e) => e.type === 'TextDecided')
  t.match(decided?.data, { reason: 'appointment_confirmation', appointmentId: 'bk1' })

  await at(clock, built.leadline, '2026-03-11T14:59:00Z')
  await sleep(100)
  t.equal(bodiesTo(fake).length, 1, 'no reminder before its time')
  await at(clock, built.leadline, '2026-03-11T15:00:00Z')
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent', 2)
  t.equal(bodiesTo(fake)[1], 'Reminder: your Roof estimate with Acme Roofing is tomorrow, Thu Mar 12 at 10:00 AM CDT. To change the time, reply with a time that suits you or call +13125550100.\nReply STOP to opt out.')
  await at(clock, built.leadline, '2026-03-12T14:00:00Z')
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent', 3)
  t.match(bodiesTo(fake)[2], /^Reminder: your Roof estimate with Acme Roofing is today at 10:00 AM CDT\. /)
  for (const body of bodiesTo(fake)) t.notMatch(body, /cancel/i, 'never tells them to reply CANCEL')

  // Ticks again and again, a repeat of the booking: nothing more.
  await book(built.leadline, stream, 'bk1', '2026-03-12T15:00:00.000Z')
  await at(clock, built.leadline, '2026-03-12T14:30:00Z')
  await built.leadline.appointmentReminders.tick()
  await sleep(200)
  t.equal(bodiesTo(fake).length, 3, 'three texts in all')
  const reasons = (await leadEvents(built.leadline, accountId, PHONE)).filter((e) => e.type === 'TextDecided').map((e) => (e.data as { reason: string }).reason)
  t.same(reasons, ['appointment_confirmation', 'appointment_reminder', 'appointment_reminder'])
})

t.test('quiet hours: a reminder waits for the window when it opens before the appointment, else it is skipped with the window rule', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T17:00:00Z') // Tue 12:00 PM CDT
  const built = await dialingApp(t, { fake, clock })
  const { accountId, stream } = await setUp(built.leadline, built.createAccount, { callingHours: 'mon-sun 09:00-20:00' })
  await book(built.leadline, stream, 'bk2', '2026-03-12T13:00:00.000Z') // Thu 8:00 AM CDT
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent')

  // The 24 h reminder falls at Wed 8:00 AM, before the 9:00 window: it waits for 9:00.
  await at(clock, built.leadline, '2026-03-11T13:00:00Z')
  const deferred = await waitForEvent(built.leadline, accountId, PHONE, 'AppointmentTextDeferred')
  t.match(deferred.data, { until: '2026-03-11T14:00:00.000Z', reason: 'outside_calling_hours' })
  await built.leadline.appointmentReminders.tick()
  await sleep(100)
  t.equal(bodiesTo(fake).length, 1, 'nothing in quiet hours')
  await at(clock, built.leadline, '2026-03-11T14:00:00Z')
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent', 2)
  t.match(bodiesTo(fake)[1], /^Reminder: your Roof estimate with Acme Roofing is tomorrow, Thu Mar 12 at 8:00 AM CDT\./)

  // The 1 h reminder falls at Thu 7:00 AM; the window opens at 9:00, after the start: skipped, naming the rule.
  await at(clock, built.leadline, '2026-03-12T12:00:00Z')
  const skipped = await waitForEvent(built.leadline, accountId, PHONE, 'AppointmentTextSkipped')
  t.match(skipped.data, { kind: 'reminder', reason: 'outside_calling_hours' })
  t.match((skipped.data as { message: string }).message, /window opens too late/)
  await sleep(100)
  t.equal(bodiesTo(fake).length, 2)
})

t.test('cancelled: nothing more; moved: a confirmation of the new time and reminders for it only', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-11T14:00:00Z')
  const built = await dialingApp(t, { fake, clock })
  const { accountId, stream } = await setUp(built.leadline, built.createAccount)
  await book(built.leadline, stream, 'gone', '2026-03-12T15:00:00.000Z')
  await book(built.leadline, stream, 'moved', '2026-03-12T18:00:00.000Z')
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent', 2)

  await on(built.leadline, stream, { type: 'RecordAppointmentCancelled', appointmentId: 'gone', by: 'owner', reason: null })
  await on(built.leadline, stream, { type: 'RecordAppointmentRescheduled', appointmentId: 'moved', start: '2026-03-13T18:00:00.000Z', end: '2026-03-13T19:00:00.000Z', by: 'agent' })
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent', 3)
  t.equal(bodiesTo(fake)[2], 'Confirmed: your Roof estimate with Acme Roofing is Fri Mar 13 at 1:00 PM CDT. To change the time, reply with a time that suits you or call +13125550100.\nReply STOP to opt out.')

  // Every old time passes: nothing for the cancelled appointment, nothing at the moved one's old times.
  for (const when of ['2026-03-11T15:00:00Z', '2026-03-11T18:00:00Z', '2026-03-12T14:00:00Z', '2026-03-12T17:00:00Z']) await at(clock, built.leadline, when)
  await sleep(200)
  t.equal(bodiesTo(fake).length, 3, 'no reminder of a cancelled appointment nor of an old time')
  await at(clock, built.leadline, '2026-03-12T18:00:00Z')
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent', 4)
  t.match(bodiesTo(fake)[3], /^Reminder: your Roof estimate with Acme Roofing is tomorrow, Fri Mar 13 at 1:00 PM CDT\./)
  await at(clock, built.leadline, '2026-03-13T17:00:00Z')
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent', 5)
  t.match(bodiesTo(fake)[4], /today at 1:00 PM CDT/)
  t.equal(await pending(built.leadline, stream), 0, 'nothing left pending')
})

t.test('a do-not-call lead gets nothing, and each refusal names the rule; marked do-not-call later, pending texts are dropped', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-11T14:00:00Z')
  const built = await dialingApp(t, { fake, clock })
  const { accountId, stream } = await setUp(built.leadline, built.createAccount, {}, { dnc: 'yes' })
  await book(built.leadline, stream, 'bk3', '2026-03-12T15:00:00.000Z')
  const skipped = await waitForEvent(built.leadline, accountId, PHONE, 'AppointmentTextSkipped')
  t.match(skipped.data, { kind: 'confirmation', reason: 'do_not_call' })
  await at(clock, built.leadline, '2026-03-11T15:00:00Z')
  const reminder = await waitForEvent(built.leadline, accountId, PHONE, 'AppointmentTextSkipped', 2)
  t.match(reminder.data, { kind: 'reminder', reason: 'do_not_call' })
  await sleep(100)
  t.same(bodiesTo(fake), [])

  const other = '+13125550143'
  const account = (await built.leadline.accounts.get(accountId))!
  await receiveLead(built.leadline, account, { phone: other, name: 'Bo Diaz' }, operatorContext)
  const otherStream = leadStream(accountId, other.slice(-10))
  await book(built.leadline, otherStream, 'bk4', '2026-03-12T16:00:00.000Z')
  await waitFor('the confirmation', () => bodiesTo(fake, other).length === 1)
  t.ok(await pending(built.leadline, otherStream) > 0, 'reminders pending')
  await markDoNotCall(built.leadline, otherStream, false, operatorContext)
  t.equal(await pending(built.leadline, otherStream), 0, 'dropped with the mark')
  await at(clock, built.leadline, '2026-03-12T15:30:00Z')
  await sleep(200)
  t.equal(bodiesTo(fake, other).length, 1, 'no reminder after the do-not-call mark')
})

t.test('settings off: no confirmation, no reminder', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-11T14:00:00Z')
  const built = await dialingApp(t, { fake, clock })
  const { accountId, stream } = await setUp(built.leadline, built.createAccount, { appointmentTexts: { confirmation: false, remindersMinutesBefore: [] } })
  await book(built.leadline, stream, 'bk5', '2026-03-12T15:00:00.000Z')
  const scheduled = await waitForEvent(built.leadline, accountId, PHONE, 'AppointmentTextsScheduled')
  t.same((scheduled.data as { texts: unknown[] }).texts, [])
  for (const when of ['2026-03-11T15:00:00Z', '2026-03-12T14:00:00Z']) await at(clock, built.leadline, when)
  await sleep(200)
  t.same(bodiesTo(fake), [])
})

t.test('CANCEL in reply to a reminder opts the lead out: no further reminder', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-11T14:00:00Z')
  const built = await dialingApp(t, { fake, clock })
  const { accountId, stream } = await setUp(built.leadline, built.createAccount)
  await book(built.leadline, stream, 'bk6', '2026-03-12T15:00:00.000Z')
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent')
  await at(clock, built.leadline, '2026-03-11T15:00:00Z')
  await waitForEvent(built.leadline, accountId, PHONE, 'TextSent', 2)

  // A reply to a reminder is a reply, as to any text.
  t.equal(await inboundText(built.app, fake, 'Can we make it 11?', { from: PHONE }), 200)
  await waitForEvent(built.leadline, accountId, PHONE, 'LeadReplied')
  t.equal(await inboundText(built.app, fake, 'CANCEL', { from: PHONE }), 200)
  await waitForEvent(built.leadline, accountId, PHONE, 'NumberSuppressed')
  await at(clock, built.leadline, '2026-03-12T14:00:00Z')
  await sleep(200)
  const toLead = bodiesTo(fake)
  t.equal(toLead.filter((body) => body.startsWith('Reminder:')).length, 1, 'no reminder after the opt-out')
  t.equal(await textsSent(built.leadline, accountId), 2)
})

t.test('a restart between planning and sending: each text sent once; two nodes: once', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-11T14:00:00Z')
  const first = await dialingApp(t, { fake, clock, store: 'sqlite' })
  const { accountId, stream } = await setUp(first.leadline, first.createAccount)
  await first.app.close()
  await first.leadline.close()

  // A node books, plans and decides the confirmation, and dies before its texter claims it.
  const dying = await reopen(t, first, { fake, clock, start: false })
  await book(dying.leadline, stream, 'bk7', '2026-03-12T15:00:00.000Z')
  await dying.leadline.appointmentReminders.tick()
  t.ok((await leadEventTypes(dying.leadline, accountId, PHONE)).includes('TextDecided'), 'the confirmation decided')
  await dying.app.close()
  await dying.leadline.close()
  t.same(bodiesTo(fake), [], 'not sent before the crash')

  clock.advance(60_000)
  const restarted = await reopen(t, first, { fake, clock })
  await waitForEvent(restarted.leadline, accountId, PHONE, 'TextSent')
  await restarted.app.close()
  await restarted.leadline.close()

  // The 24 h reminder's moment passes while nothing runs: sent late, once, as it still says something.
  clock.set('2026-03-11T16:00:00Z')
  const back = await reopen(t, first, { fake, clock })
  await waitForEvent(back.leadline, accountId, PHONE, 'TextSent', 2)
  t.match(bodiesTo(fake)[1], /^Reminder: /)

  // A second node on the same log: the 1 h reminder is decided once between them.
  const second = await reopen(t, { store: first.store, viewsPath: `${first.viewsPath}.node2` }, { fake, clock })
  await at(clock, back.leadline, '2026-03-12T14:00:00Z')
  await second.leadline.appointmentReminders.tick()
  await waitForEvent(back.leadline, accountId, PHONE, 'TextSent', 3)
  await sleep(300)
  t.equal(bodiesTo(fake).length, 3, 'confirmation and two reminders, none twice')
  const decided = (await leadEventTypes(back.leadline, accountId, PHONE)).filter((type) => type === 'TextDecided')
  t.equal(decided.length, 3)
})

t.test('server down past a reminder: the 24 h one is skipped once less than the 1 h offset remains, the 1 h one goes', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-11T14:00:00Z')
  const built = await dialingApp(t, { fake, clock, start: false })
  const { accountId, stream } = await setUp(built.leadline, built.createAccount)
  await book(built.leadline, stream, 'bk8', '2026-03-12T15:00:00.000Z')
  await built.leadline.appointmentReminders.tick()
  clock.set('2026-03-12T14:10:00Z')
  await built.leadline.appointmentReminders.tick()
  const types = await leadEvents(built.leadline, accountId, PHONE)
  const skipped = types.find((e) => e.type === 'AppointmentTextSkipped')
  t.match(skipped?.data, { kind: 'reminder', reason: 'too_late' })
  t.same(types.filter((e) => e.type === 'TextDecided').map((e) => (e.data as { reason: string }).reason), ['appointment_confirmation', 'appointment_reminder'])
})
