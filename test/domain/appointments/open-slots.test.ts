/**
 * Open slots (src/domain/appointments/open-slots.ts): bookable hours less busy times and buffers, less
 * the minimum notice and full days, in the account's and the lead's zones, across daylight-saving days.
 */
import t from 'tap'
import { appointmentType, type AppointmentType } from '../../../src/domain/appointments/appointment-type.ts'
import { openSlots, type OpenSlotsQuery } from '../../../src/domain/appointments/open-slots.ts'
import { DomainError } from '../../../src/domain/shared/decider.ts'

const type = (over: Partial<AppointmentType> = {}): AppointmentType =>
  appointmentType({ id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bookableHours: 'mon-fri 09:00-12:00', minimumNoticeMinutes: 0, calendarId: 'cal', ...over })

// Tuesday 10 March 2026 in New York (EDT since the 8th, UTC-4).
const tuesday = { from: '2026-03-10T04:00:00Z', to: '2026-03-11T04:00:00Z' }
const query = (over: Partial<OpenSlotsQuery> = {}): OpenSlotsQuery => ({
  type: type(),
  accountZone: 'America/New_York',
  accountHours: 'mon-fri 09:00-18:00',
  leadZone: null,
  busy: [],
  ...tuesday,
  ...over,
})
const early = new Date('2026-03-01T00:00:00Z')
const starts = (q: OpenSlotsQuery, now = early) => openSlots(q, now).map((s) => s.start)

const cases: { name: string; query: OpenSlotsQuery; now?: Date; starts: string[] }[] = [
  { name: 'bookable hours on a plain day', query: query(), starts: ['2026-03-10T13:00:00.000Z', '2026-03-10T14:00:00.000Z', '2026-03-10T15:00:00.000Z'] },
  { name: 'a type without hours takes the account business hours', query: query({ type: type({ bookableHours: null }), accountHours: 'tue 16:00-18:00' }), starts: ['2026-03-10T20:00:00.000Z', '2026-03-10T21:00:00.000Z'] },
  { name: 'a busy time blocks the slot it overlaps', query: query({ busy: [{ start: '2026-03-10T14:15:00Z', end: '2026-03-10T14:45:00Z' }] }), starts: ['2026-03-10T13:00:00.000Z', '2026-03-10T15:00:00.000Z'] },
  {
    name: 'busy times given with an offset count by their instant',
    query: query({ busy: [{ start: '2026-03-10T09:00:00-04:00', end: '2026-03-10T09:01:00-04:00' }] }),
    starts: ['2026-03-10T14:00:00.000Z', '2026-03-10T15:00:00.000Z'],
  },
  {
    name: 'a 15-minute buffer exactly meets a busy time on both sides (half-open)',
    query: query({ type: type({ bufferMinutes: 15 }), busy: [{ start: '2026-03-10T14:15:00Z', end: '2026-03-10T14:45:00Z' }] }),
    starts: ['2026-03-10T13:00:00.000Z', '2026-03-10T15:00:00.000Z'],
  },
  { name: 'a 16-minute buffer reaches it from both sides', query: query({ type: type({ bufferMinutes: 16 }), busy: [{ start: '2026-03-10T14:15:00Z', end: '2026-03-10T14:45:00Z' }] }), starts: [] },
  { name: 'minimum notice: a slot starting exactly at now + notice is open', query: query({ type: type({ minimumNoticeMinutes: 60 }) }), now: new Date('2026-03-10T12:00:00.000Z'), starts: ['2026-03-10T13:00:00.000Z', '2026-03-10T14:00:00.000Z', '2026-03-10T15:00:00.000Z'] },
  { name: 'minimum notice: a millisecond later it is not', query: query({ type: type({ minimumNoticeMinutes: 60 }) }), now: new Date('2026-03-10T12:00:00.001Z'), starts: ['2026-03-10T14:00:00.000Z', '2026-03-10T15:00:00.000Z'] },
  { name: 'a range starting inside a window keeps the slots on the hour', query: query({ from: '2026-03-10T13:30:00Z' }), starts: ['2026-03-10T14:00:00.000Z', '2026-03-10T15:00:00.000Z'] },
  { name: 'at most one a day: a booking that day (23:30 local, 03:30Z next day) fills it', query: query({ type: type({ maxPerDay: 1 }), booked: ['2026-03-11T03:30:00Z'] }), starts: [] },
  {
    name: 'at most one a day: a booking just after local midnight is the next day',
    query: query({ type: type({ maxPerDay: 1 }), booked: ['2026-03-11T04:30:00Z'] }),
    starts: ['2026-03-10T13:00:00.000Z', '2026-03-10T14:00:00.000Z', '2026-03-10T15:00:00.000Z'],
  },
  {
    name: 'across the spring-forward weekend, 09:00 is 14:00Z on Friday and 13:00Z on Monday',
    query: query({ type: type({ bookableHours: 'mon-fri 09:00-10:00' }), from: '2026-03-06T05:00:00Z', to: '2026-03-10T04:00:00Z' }),
    starts: ['2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z'],
  },
  {
    name: 'spring-forward day: 01:00-04:00 holds two real hours (02:00 does not exist)',
    query: query({ type: type({ bookableHours: 'sun 01:00-04:00' }), from: '2026-03-08T05:00:00Z', to: '2026-03-09T04:00:00Z' }),
    starts: ['2026-03-08T06:00:00.000Z', '2026-03-08T07:00:00.000Z'],
  },
  {
    name: 'spring-forward day: a window starting in the gap begins when the gap ends (03:00 EDT)',
    query: query({ type: type({ bookableHours: 'sun 02:30-05:00' }), from: '2026-03-08T05:00:00Z', to: '2026-03-09T04:00:00Z' }),
    starts: ['2026-03-08T07:00:00.000Z', '2026-03-08T08:00:00.000Z'],
  },
  {
    name: 'fall-back day: 00:00-03:00 holds four real hours (01:00 twice)',
    query: query({ type: type({ bookableHours: 'sun 00:00-03:00' }), from: '2026-11-01T04:00:00Z', to: '2026-11-02T05:00:00Z' }),
    starts: ['2026-11-01T04:00:00.000Z', '2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T07:00:00.000Z'],
  },
  {
    name: 'a window crossing midnight belongs to the day it starts',
    query: query({ type: type({ bookableHours: 'tue 23:00-01:00' }), from: '2026-03-10T04:00:00Z', to: '2026-03-12T04:00:00Z' }),
    starts: ['2026-03-11T03:00:00.000Z', '2026-03-11T04:00:00.000Z'],
  },
  {
    name: 'overlapping windows give each start once',
    query: query({ type: type({ bookableHours: 'mon-fri 09:00-11:00, tue 10:00-12:00' }) }),
    starts: ['2026-03-10T13:00:00.000Z', '2026-03-10T14:00:00.000Z', '2026-03-10T15:00:00.000Z'],
  },
]

for (const c of cases) {
  t.test(c.name, async (t) => {
    t.same(starts(c.query, c.now), c.starts)
  })
}

t.test("each slot in the account's and the lead's wall clock, whichever side of their DST changes", async (t) => {
  const slots = openSlots(query({ leadZone: 'Europe/London' }), early)
  t.same(slots[0], {
    start: '2026-03-10T13:00:00.000Z',
    end: '2026-03-10T14:00:00.000Z',
    accountTime: '2026-03-10T09:00:00.000-04:00',
    leadTime: '2026-03-10T13:00:00.000+00:00',
  })
  const fallBack = openSlots(query({ type: type({ bookableHours: 'sun 00:00-03:00' }), leadZone: 'America/Los_Angeles', from: '2026-11-01T04:00:00Z', to: '2026-11-02T05:00:00Z' }), early)
  t.same(
    fallBack.map((s) => s.accountTime),
    ['2026-11-01T00:00:00.000-04:00', '2026-11-01T01:00:00.000-04:00', '2026-11-01T01:00:00.000-05:00', '2026-11-01T02:00:00.000-05:00'],
  )
  t.same(
    fallBack.map((s) => s.leadTime),
    ['2026-10-31T21:00:00.000-07:00', '2026-10-31T22:00:00.000-07:00', '2026-10-31T23:00:00.000-07:00', '2026-11-01T00:00:00.000-07:00'],
  )
  const spring = openSlots(query({ type: type({ bookableHours: 'sun 01:00-04:00' }), from: '2026-03-08T05:00:00Z', to: '2026-03-09T04:00:00Z' }), early)
  t.same(spring.map((s) => s.accountTime), ['2026-03-08T01:00:00.000-05:00', '2026-03-08T03:00:00.000-04:00'])
  t.equal(spring[0]!.leadTime, null, 'no lead zone, no lead time')
})

t.test('bad questions are refused with a stable code', async (t) => {
  const code = (q: OpenSlotsQuery) => {
    try {
      openSlots(q, early)
      return 'none'
    } catch (error) {
      return error instanceof DomainError ? error.code : String(error)
    }
  }
  t.equal(code(query({ accountZone: 'Mars/Olympus' })), 'invalid_time_zone')
  t.equal(code(query({ leadZone: 'EST5EDT-nope' })), 'invalid_time_zone')
  t.equal(code(query({ to: tuesday.from })), 'invalid_range')
  t.equal(code(query({ from: '2026-03-10T04:00:00' })), 'invalid_range', 'a time without a zone is ambiguous')
  t.equal(code(query({ busy: [{ start: 'soon', end: 'later' }] })), 'invalid_range')
  t.equal(code(query({ to: '2026-05-12T04:00:00Z' })), 'range_too_long')
  t.equal(code(query({ to: '2026-05-11T04:00:00Z' })), 'none', '62 days is allowed')
})
