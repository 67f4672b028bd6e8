/**
 * Appointment texts on the lead aggregate, as given/when/then: planned once per appointment and start,
 * the confirmation decided in the same append; reminders at start − offset, none already past at
 * booking; a late reminder only while it still says something; outside the window a text waits for it
 * when it opens in time, else it is skipped naming the rule; a moved appointment's old texts are
 * skipped and its new ones get fresh ids (moved back, never an id twice); the settings, checked.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, validateSettingsChange, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand, type LeadState } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { appointmentTextBody, appointmentWhen } from '../../../../src/domain/lead/texts/appointment-text-body.ts'
import { formatReminderOffsets, parseReminderOffsets } from '../../../../src/domain/lead/texts/appointment-texts-setting.ts'

const BOOKED_AT = new Date('2026-03-10T17:00:00Z') // Tue 12:00 PM in Chicago
const START = '2026-03-12T15:00:00.000Z' // Thu 10:00 AM CDT
const SETTINGS: AccountSettings = { ...DEFAULT_SETTINGS, callerId: '+13125550100', callingHours: 'mon-sun 08:00-20:00', timeZone: 'America/Chicago', leadTimeGuard: false }

const received = {
  type: 'LeadReceived',
  data: { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', firstName: 'Jane', industryFields: {}, extraFields: [] }, receivedAt: BOOKED_AT.toISOString() },
} as LeadEvent

const booked = (start = START, leadZone: string | null = 'America/Chicago'): LeadEvent => ({
  type: 'AppointmentBooked',
  data: {
    leadId: 'ld_1', appointmentId: 'bk1', appointmentTypeId: 'roof', typeName: 'Roof estimate', start, end: new Date(Date.parse(start) + 3600_000).toISOString(), provider: 'caldav',
    calendarId: 'main', eventUid: 'leadline-bk1', leadZone, by: 'agent', idempotencyKey: null, at: BOOKED_AT.toISOString(),
  },
})

const plan = (settings = SETTINGS): LeadCommand => ({ type: 'ScheduleAppointmentTexts', settings, business: 'Acme Roofing', appointmentId: 'bk1' })
const due = (textId: string, settings = SETTINGS): LeadCommand => ({ type: 'DecideAppointmentText', settings, business: 'Acme Roofing', textId })

/** Runs each command on the state the events so far make, appending what it decides. */
function play(start: readonly LeadEvent[], commands: ReadonlyArray<readonly [Date | string, LeadCommand]>): LeadEvent[] {
  const events = [...start]
  for (const [now, command] of commands) events.push(...leadDecider.decide(command, stateOf(events), new Date(now)))
  return events
}

function stateOf(events: readonly LeadEvent[]): LeadState {
  return events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
}

const ofType = <T extends LeadEvent['type']>(events: readonly LeadEvent[], type: T) => events.filter((e): e is Extract<LeadEvent, { type: T }> => e.type === type)

const C = 'txt_bk1_c_20260312T150000000Z'
const R24 = 'txt_bk1_r1440_20260312T150000000Z'
const R1 = 'txt_bk1_r60_20260312T150000000Z'

t.test('booked: the plan once, its confirmation decided in the same append with the time in the lead zone', async (t) => {
  const decided = leadDecider.decide(plan(), stateOf([received, booked()]), BOOKED_AT)
  t.same(decided.map((e) => e.type), ['AppointmentTextsScheduled', 'TextDecided'])
  t.same((decided[0] as Extract<LeadEvent, { type: 'AppointmentTextsScheduled' }>).data.texts, [
    { textId: C, kind: 'confirmation', minutesBefore: null, dueAt: BOOKED_AT.toISOString() },
    { textId: R24, kind: 'reminder', minutesBefore: 1440, dueAt: '2026-03-11T15:00:00.000Z' },
    { textId: R1, kind: 'reminder', minutesBefore: 60, dueAt: '2026-03-12T14:00:00.000Z' },
  ])
  t.match(decided[1]?.data, {
    textId: C, reason: 'appointment_confirmation', appointmentId: 'bk1', to: '+13125550142',
    body: 'Confirmed: your Roof estimate with Acme Roofing is Thu Mar 12 at 10:00 AM CDT. To change the time, reply with a time that suits you or call +13125550100.\nReply STOP to opt out.',
  })
  // A redelivery, another node: planned for this start already.
  t.same(leadDecider.decide(plan(), stateOf([received, booked(), ...decided]), BOOKED_AT), [])
  t.same(leadDecider.decide(due(C), stateOf([received, booked(), ...decided]), BOOKED_AT), [], 'the confirmation is decided once')
})

t.test('a reminder already past at booking, or within 15 minutes of the confirmation, is not planned', async (t) => {
  const late = new Date('2026-03-12T13:50:00Z') // 70 minutes before: the 24 h one is past, the 1 h one 10 minutes after the confirmation
  const texts = ofType(play([received, booked()], [[late, plan()]]), 'AppointmentTextsScheduled')[0]?.data.texts
  t.same(texts?.map((x) => x.kind), ['confirmation'])
  const noConfirmation = { ...SETTINGS, appointmentTexts: { confirmation: false, remindersMinutesBefore: [1440, 60] } }
  const alone = ofType(play([received, booked()], [[late, plan(noConfirmation)]]), 'AppointmentTextsScheduled')[0]?.data.texts
  t.same(alone?.map((x) => x.textId), [R1], 'without a confirmation the 1 h reminder stays')
  const started = ofType(play([received, booked()], [['2026-03-12T15:00:00Z', plan()]]), 'AppointmentTextsScheduled')[0]?.data.texts
  t.same(started, [], 'begun: nothing planned')
})

t.test('late: the 24 h reminder goes while more than the 1 h offset remains, is too_late after; the 1 h one goes until the start', async (t) => {
  const planned = play([received, booked()], [[BOOKED_AT, plan()]])
  t.same(play(planned, [['2026-03-12T13:59:00Z', due(R24)]]).slice(planned.length).map((e) => e.type), ['TextDecided'], '61 minutes before: still says something')
  const tooLate = play(planned, [['2026-03-12T14:00:00Z', due(R24)]]).slice(planned.length)
  t.match(tooLate, [{ type: 'AppointmentTextSkipped', data: { textId: R24, kind: 'reminder', reason: 'too_late' } }])
  const last = play(planned, [['2026-03-12T14:59:00Z', due(R1)]]).slice(planned.length)
  t.match(last, [{ type: 'TextDecided', data: { reason: 'appointment_reminder', body: /^Reminder: your Roof estimate with Acme Roofing is today at 10:00 AM CDT\./ } }])
  t.match(play(planned, [[START, due(R1)]]).slice(planned.length), [{ type: 'AppointmentTextSkipped', data: { reason: 'appointment_started' } }])
})

t.test('outside the window: waits for it when it opens in time, else skipped naming the rule', async (t) => {
  const early = { ...SETTINGS, callingHours: 'mon-sun 09:00-20:00' }
  const start = '2026-03-12T13:00:00.000Z' // Thu 8:00 AM CDT
  const planned = play([received, booked(start)], [[BOOKED_AT, plan(early)]])
  const r24 = 'txt_bk1_r1440_20260312T130000000Z'
  const r1 = 'txt_bk1_r60_20260312T130000000Z'
  const waited = play(planned, [['2026-03-11T13:00:00Z', due(r24, early)]]).slice(planned.length)
  t.match(waited, [{ type: 'AppointmentTextDeferred', data: { textId: r24, until: '2026-03-11T14:00:00.000Z', reason: 'outside_calling_hours' } }])
  const after = [...planned, ...waited]
  t.equal(stateOf(after).texts.appointmentTexts[r24]?.dueAt, '2026-03-11T14:00:00.000Z', 'due when the window opens')
  t.match(play(after, [['2026-03-11T14:00:00Z', due(r24, early)]]).slice(after.length), [{ type: 'TextDecided', data: { textId: r24 } }])
  t.match(play(planned, [['2026-03-12T12:00:00Z', due(r1, early)]]).slice(planned.length), [{ type: 'AppointmentTextSkipped', data: { reason: 'outside_calling_hours', message: /window opens too late/ } }])
})

t.test('do-not-call, turned off since, cancelled: skipped, each naming why', async (t) => {
  const planned = play([received, booked()], [[BOOKED_AT, plan()]])
  const dnc = [...planned, { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', markedAt: BOOKED_AT.toISOString() } } as LeadEvent]
  t.match(play(dnc, [['2026-03-11T15:00:00Z', due(R24)]]).slice(dnc.length), [{ type: 'AppointmentTextSkipped', data: { reason: 'do_not_call' } }])
  const off = { ...SETTINGS, appointmentTexts: { confirmation: true, remindersMinutesBefore: [60] } }
  t.match(play(planned, [['2026-03-11T15:00:00Z', due(R24, off)]]).slice(planned.length), [{ type: 'AppointmentTextSkipped', data: { reason: 'reminder_off' } }])
  const cancelled = [...planned, { type: 'AppointmentCancelled', data: { appointmentId: 'bk1', by: 'owner', reason: null, at: BOOKED_AT.toISOString() } } as LeadEvent]
  t.match(play(cancelled, [['2026-03-11T15:00:00Z', due(R24)]]).slice(cancelled.length), [{ type: 'AppointmentTextSkipped', data: { reason: 'appointment_cancelled' } }])
  t.same(play(cancelled, [['2026-03-11T15:00:00Z', plan()]]).slice(cancelled.length), [], 'a cancelled appointment is not planned again')
})

t.test('moved: the old texts are skipped, the new start planned with fresh ids; moved back, no id is decided twice', async (t) => {
  const planned = play([received, booked()], [[BOOKED_AT, plan()]])
  const move = (from: string, to: string, at: string) =>
    ({ type: 'AppointmentRescheduled', data: { appointmentId: 'bk1', previousStart: from, start: to, end: new Date(Date.parse(to) + 3600_000).toISOString(), by: 'agent', at } }) as LeadEvent
  const moved = [...planned, move(START, '2026-03-13T15:00:00.000Z', '2026-03-10T17:05:00.000Z')]
  t.match(play(moved, [['2026-03-11T15:00:00Z', due(R24)]]).slice(moved.length), [{ type: 'AppointmentTextSkipped', data: { reason: 'appointment_moved' } }])
  const replanned = play(moved, [['2026-03-10T17:05:00Z', plan()]])
  t.match(ofType(replanned.slice(moved.length), 'TextDecided'), [{ data: { textId: 'txt_bk1_c_20260313T150000000Z', body: /is Fri Mar 13 at 10:00 AM CDT/ } }])
  const back = [...replanned, move('2026-03-13T15:00:00.000Z', START, '2026-03-10T17:10:00.000Z')]
  const again = play(back, [['2026-03-10T17:10:00Z', plan()]]).slice(back.length)
  t.same(ofType(again, 'AppointmentTextsScheduled')[0]?.data.texts.map((x) => x.textId), [`${C}_2`, `${R24}_2`, `${R1}_2`])
  const ids = ofType([...back, ...again], 'TextDecided').map((e) => e.data.textId)
  t.equal(new Set(ids).size, ids.length, 'every text id decided once')
  t.match(play([...back, ...again], [['2026-03-11T15:00:00Z', due(R24)]]).slice(back.length + again.length), [{ type: 'AppointmentTextSkipped', data: { reason: 'appointment_moved' } }], "the first plan's reminder is not the new one's")
  // Moved away and back before its texts were planned again: planned for the move, not taken as planned already.
  const quick = [...planned, move(START, '2026-03-13T15:00:00.000Z', '2026-03-10T17:05:00.000Z'), move('2026-03-13T15:00:00.000Z', START, '2026-03-10T17:06:00.000Z')]
  t.match(play(quick, [['2026-03-10T17:06:00Z', plan()]]).slice(quick.length).map((e) => e.type), ['AppointmentTextsScheduled', 'TextDecided'])
})

t.test('the body: never CANCEL; the zone named; tomorrow and today on the lead clock', async (t) => {
  const now = new Date('2026-03-11T23:30:00Z') // Wed 6:30 PM in Chicago, already Thu in UTC
  t.equal(appointmentWhen(START, 'America/Chicago', now), 'tomorrow, Thu Mar 12 at 10:00 AM CDT')
  t.equal(appointmentWhen(START, 'America/Los_Angeles', new Date('2026-03-12T08:00:00Z')), 'today at 8:00 AM PDT')
  t.equal(appointmentWhen('2027-01-05T15:00:00Z', 'America/Chicago', now), 'Tue Jan 5, 2027 at 9:00 AM CST')
  const body = appointmentTextBody({ kind: 'reminder', typeName: 'Roof\nestimate', business: 'A'.repeat(80), number: '+13125550100', start: START, zone: 'America/Chicago' }, now)
  t.notMatch(body, /cancel/i)
  t.match(body, /^Reminder: your Roof estimate with A{59}… is tomorrow/, 'names on one line, clipped')
})

t.test('the setting: 0 to 3 reminders, 15 minutes to 7 days, once each, kept longest first; parsed and shown as durations', async (t) => {
  t.same(validateSettingsChange({ appointmentTexts: { confirmation: true, remindersMinutesBefore: [60, 1440] } }).appointmentTexts, { confirmation: true, remindersMinutesBefore: [1440, 60] })
  t.same(validateSettingsChange({ appointmentTexts: { confirmation: false, remindersMinutesBefore: [] } }).appointmentTexts, { confirmation: false, remindersMinutesBefore: [] })
  for (const [value, message] of [
    [{ confirmation: true, remindersMinutesBefore: [14] }, /at least 15 minutes/],
    [{ confirmation: true, remindersMinutesBefore: [10081] }, /at most 7 days/],
    [{ confirmation: true, remindersMinutesBefore: [60, 60] }, /each reminder once/],
    [{ confirmation: true, remindersMinutesBefore: [1440, 120, 60, 30] }, /at most 3 reminders/],
    [{ confirmation: true, remindersMinutesBefore: [59.5] }, /whole number of minutes/],
    [{ confirmation: true }, /appointmentTexts\.remindersMinutesBefore/],
  ] as const) {
    t.throws(() => validateSettingsChange({ appointmentTexts: value }), { code: 'invalid_setting', message }, JSON.stringify(value))
  }
  t.same(parseReminderOffsets('24h, 1h'), [1440, 60])
  t.same(parseReminderOffsets('2d,90m,15'), [2880, 90, 15])
  t.same(parseReminderOffsets('none'), [])
  t.equal(parseReminderOffsets('soon'), null)
  t.equal(formatReminderOffsets([2880, 1440, 90]), '2d,24h,90m')
})
