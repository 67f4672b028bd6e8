import t from 'tap'
import type { Test } from 'tap'
import { DomainError } from '../../../src/domain/shared/decider.ts'
import { DateTime } from 'luxon'
import { callPermission, nextAllowedAt, withinWindows } from '../../../src/domain/dialing/calling-window.ts'
import type { CallingPolicy, CallTarget } from '../../../src/domain/dialing/calling-window.ts'

const NY = 'America/New_York'
const LA = 'America/Los_Angeles'
const BERLIN = 'Europe/Berlin'

type Expect =
  | { allowed: true }
  | { reason: 'outside_calling_hours' | 'outside_lead_hours' | 'no_calling_hours'; next: string | null }

interface Case {
  name: string
  /** Account zone; New York unless given. */
  zone?: string
  hours: string
  /** The lead-time guard; off unless given, so calling-hours cases test calling hours alone. */
  guard?: boolean
  target?: CallTarget
  at: string
  expect: Expect
}

// Allowed, or refused with a reason and the next allowed instant; and nextAllowedAt agrees.
function check(t: Test, c: Case): void {
  const policy: CallingPolicy = { timeZone: c.zone ?? NY, callingHours: c.hours, leadTimeGuard: c.guard ?? false }
  const target = c.target ?? {}
  const now = new Date(c.at)
  const permission = callPermission(policy, target, now)
  const next = nextAllowedAt(policy, target, now)
  if ('allowed' in c.expect) {
    t.equal(permission.allowed, true, `${c.name}: allowed`)
    t.equal(next?.toISOString(), now.toISOString(), `${c.name}: next allowed is now`)
    return
  }
  const expectedNext = c.expect.next === null ? null : new Date(c.expect.next).toISOString()
  t.match(permission, { allowed: false, reason: c.expect.reason, nextAllowedAt: expectedNext }, c.name)
  t.equal(next === null ? null : next.toISOString(), expectedNext, `${c.name}: nextAllowedAt`)
}

function runAll(t: Test, cases: readonly Case[]): void {
  for (const c of cases) check(t, c)
}

const allowed = { allowed: true } as const
const outsideHours = (next: string | null): Expect => ({ reason: 'outside_calling_hours', next })
const outsideLead = (next: string | null): Expect => ({ reason: 'outside_lead_hours', next })

t.test('every weekday opens only its own window', async (t) => {
  // Monday 08:00-09:00, Tuesday 09:00-10:00 … Sunday 14:00-15:00; week of Mon 12 Jan 2026 (EST, UTC-5).
  const hours = 'mon 08:00-09:00, tue 09:00-10:00, wed 10:00-11:00, thu 11:00-12:00, fri 12:00-13:00, sat 13:00-14:00, sun 14:00-15:00'
  const names = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
  const cases: Case[] = names.flatMap((day, i) => {
    const date = `2026-01-${12 + i}`
    const utcHour = 8 + i + 5
    const nextOpen = i < 6 ? `2026-01-${13 + i}T${utcHour + 1}:00:00Z` : '2026-01-19T13:00:00Z'
    return [
      { name: `${day} inside its window`, hours, at: `${date}T${utcHour}:30:00Z`, expect: allowed },
      { name: `${day} an hour after its window`, hours, at: `${date}T${utcHour + 1}:30:00Z`, expect: outsideHours(nextOpen) },
      { name: `${day} an hour before its window`, hours, at: `${date}T${utcHour - 1}:30:00Z`, expect: outsideHours(`${date}T${utcHour}:00:00Z`) },
    ]
  })
  runAll(t, cases)
})

t.test('weekday hours are half-open and skip the weekend', async (t) => {
  const hours = 'mon-fri 09:00-18:00'
  runAll(t, [
    { name: 'Mon 09:00 opens', hours, at: '2026-01-12T14:00:00Z', expect: allowed },
    { name: 'Mon 08:59 waits a minute', hours, at: '2026-01-12T13:59:00Z', expect: outsideHours('2026-01-12T14:00:00Z') },
    { name: 'seconds before opening wait for the minute', hours, at: '2026-01-12T13:59:30.500Z', expect: outsideHours('2026-01-12T14:00:00Z') },
    { name: 'Mon 17:59 still open', hours, at: '2026-01-12T22:59:00Z', expect: allowed },
    { name: 'Mon 18:00 closed until Tue 09:00', hours, at: '2026-01-12T23:00:00Z', expect: outsideHours('2026-01-13T14:00:00Z') },
    { name: 'Fri 18:00 waits over the weekend', hours, at: '2026-01-16T23:00:00Z', expect: outsideHours('2026-01-19T14:00:00Z') },
    { name: 'Sat 10:00', hours, at: '2026-01-17T15:00:00Z', expect: outsideHours('2026-01-19T14:00:00Z') },
    { name: 'Sun 10:00', hours, at: '2026-01-18T15:00:00Z', expect: outsideHours('2026-01-19T14:00:00Z') },
    { name: 'Wed noon, odd seconds: now itself', hours, at: '2026-01-14T17:00:27.123Z', expect: allowed },
  ])
})

t.test('US spring-forward day, Sun 8 Mar 2026', async (t) => {
  runAll(t, [
    // New York: 02:00 EST becomes 03:00 EDT at 07:00Z, so 02:30 never happens.
    { name: 'NY 02:30 window opens at 03:00 EDT', hours: 'sun 02:30-04:00', at: '2026-03-07T12:00:00Z', expect: outsideHours('2026-03-08T07:00:00Z') },
    { name: 'NY 01:59 EST waits for the gap to end', hours: 'sun 02:30-04:00', at: '2026-03-08T06:59:00Z', expect: outsideHours('2026-03-08T07:00:00Z') },
    { name: 'NY 03:00 EDT open', hours: 'sun 02:30-04:00', at: '2026-03-08T07:00:00Z', expect: allowed },
    { name: 'NY 03:59 EDT open', hours: 'sun 02:30-04:00', at: '2026-03-08T07:59:00Z', expect: allowed },
    { name: 'NY 04:00 EDT closed; next Sunday 02:30 EDT', hours: 'sun 02:30-04:00', at: '2026-03-08T08:00:00Z', expect: outsideHours('2026-03-15T06:30:00Z') },
    { name: 'NY window wholly in the gap skips the day', hours: 'sun 02:00-02:30', at: '2026-03-07T12:00:00Z', expect: outsideHours('2026-03-15T06:00:00Z') },
    { name: 'NY Sat 23:00 to 02:30 ends at the gap', hours: 'sat 23:00-02:30', at: '2026-03-08T06:59:00Z', expect: allowed },
    { name: 'NY Sat 23:00 to 02:30 is over at 03:00 EDT', hours: 'sat 23:00-02:30', at: '2026-03-08T07:00:00Z', expect: outsideHours('2026-03-15T03:00:00Z') },
    { name: 'NY 09:00 on the day is 13:00Z', hours: 'sun 09:00-17:00', at: '2026-03-08T12:59:00Z', expect: outsideHours('2026-03-08T13:00:00Z') },
    { name: 'NY Fri 18:30 EST to Mon 09:00 EDT', hours: 'mon-fri 09:00-18:00', at: '2026-03-06T23:30:00Z', expect: outsideHours('2026-03-09T13:00:00Z') },
    // Los Angeles: 02:00 PST becomes 03:00 PDT at 10:00Z.
    { name: 'LA 02:30 window opens at 03:00 PDT', zone: LA, hours: 'sun 02:30-03:30', at: '2026-03-07T20:00:00Z', expect: outsideHours('2026-03-08T10:00:00Z') },
    { name: 'LA 03:29 PDT open', zone: LA, hours: 'sun 02:30-03:30', at: '2026-03-08T10:29:00Z', expect: allowed },
    { name: 'LA 03:30 PDT closed', zone: LA, hours: 'sun 02:30-03:30', at: '2026-03-08T10:30:00Z', expect: outsideHours('2026-03-15T09:30:00Z') },
  ])
})

t.test('US fall-back day, Sun 1 Nov 2026: a repeated hour is inside the window both times', async (t) => {
  runAll(t, [
    // New York: 02:00 EDT becomes 01:00 EST at 06:00Z.
    { name: 'NY before: first 01:00 EDT', hours: 'sun 01:00-02:00', at: '2026-10-31T12:00:00Z', expect: outsideHours('2026-11-01T05:00:00Z') },
    { name: 'NY 00:59 EDT', hours: 'sun 01:00-02:00', at: '2026-11-01T04:59:00Z', expect: outsideHours('2026-11-01T05:00:00Z') },
    { name: 'NY 01:00 EDT', hours: 'sun 01:00-02:00', at: '2026-11-01T05:00:00Z', expect: allowed },
    { name: 'NY 01:59 EDT', hours: 'sun 01:00-02:00', at: '2026-11-01T05:59:00Z', expect: allowed },
    { name: 'NY 01:00 EST, the second time', hours: 'sun 01:00-02:00', at: '2026-11-01T06:00:00Z', expect: allowed },
    { name: 'NY 01:59 EST', hours: 'sun 01:00-02:00', at: '2026-11-01T06:59:00Z', expect: allowed },
    { name: 'NY 02:00 EST closed; next Sunday 01:00 EST', hours: 'sun 01:00-02:00', at: '2026-11-01T07:00:00Z', expect: outsideHours('2026-11-08T06:00:00Z') },
    { name: 'NY Sat 22:00-02:00 runs five real hours', hours: 'sat 22:00-02:00', at: '2026-11-01T06:30:00Z', expect: allowed },
    { name: 'NY Sat 22:00-02:00 over at 02:00 EST', hours: 'sat 22:00-02:00', at: '2026-11-01T07:00:00Z', expect: outsideHours('2026-11-08T03:00:00Z') },
    { name: 'NY Fri 18:30 EDT to Mon 09:00 EST', hours: 'mon-fri 09:00-18:00', at: '2026-10-30T22:30:00Z', expect: outsideHours('2026-11-02T14:00:00Z') },
    // Los Angeles: 02:00 PDT becomes 01:00 PST at 09:00Z.
    { name: 'LA 01:00 PDT', zone: LA, hours: 'sun 01:00-02:00', at: '2026-11-01T08:00:00Z', expect: allowed },
    { name: 'LA 01:30 PST, the second time', zone: LA, hours: 'sun 01:00-02:00', at: '2026-11-01T09:30:00Z', expect: allowed },
    { name: 'LA 02:00 PST closed', zone: LA, hours: 'sun 01:00-02:00', at: '2026-11-01T10:00:00Z', expect: outsideHours('2026-11-08T09:00:00Z') },
  ])
})

t.test('a European switch day, Europe/Berlin', async (t) => {
  runAll(t, [
    // Sun 29 Mar 2026: 02:00 CET becomes 03:00 CEST at 01:00Z.
    { name: 'spring: 02:15 opens at 03:00 CEST', zone: BERLIN, hours: 'sun 02:15-04:00', at: '2026-03-28T12:00:00Z', expect: outsideHours('2026-03-29T01:00:00Z') },
    { name: 'spring: 03:59 CEST open', zone: BERLIN, hours: 'sun 02:15-04:00', at: '2026-03-29T01:59:00Z', expect: allowed },
    { name: 'spring: 04:00 CEST closed', zone: BERLIN, hours: 'sun 02:15-04:00', at: '2026-03-29T02:00:00Z', expect: outsideHours('2026-04-05T00:15:00Z') },
    { name: 'spring: a window wholly in the gap skips the day', zone: BERLIN, hours: 'sun 02:00-03:00', at: '2026-03-28T12:00:00Z', expect: outsideHours('2026-04-05T00:00:00Z') },
    // Sun 25 Oct 2026: 03:00 CEST becomes 02:00 CET at 01:00Z.
    { name: 'autumn: 01:59 CEST', zone: BERLIN, hours: 'sun 02:00-03:00', at: '2026-10-24T23:59:00Z', expect: outsideHours('2026-10-25T00:00:00Z') },
    { name: 'autumn: 02:30 CEST', zone: BERLIN, hours: 'sun 02:00-03:00', at: '2026-10-25T00:30:00Z', expect: allowed },
    { name: 'autumn: 02:30 CET, the second time', zone: BERLIN, hours: 'sun 02:00-03:00', at: '2026-10-25T01:30:00Z', expect: allowed },
    { name: 'autumn: 03:00 CET closed', zone: BERLIN, hours: 'sun 02:00-03:00', at: '2026-10-25T02:00:00Z', expect: outsideHours('2026-11-01T01:00:00Z') },
  ])
})

t.test('windows across midnight belong to the day they start', async (t) => {
  runAll(t, [
    { name: 'Fri 23:00', hours: 'fri 22:00-02:00', at: '2026-01-17T04:00:00Z', expect: allowed },
    { name: 'Sat 01:59', hours: 'fri 22:00-02:00', at: '2026-01-17T06:59:00Z', expect: allowed },
    { name: 'Sat 02:00 closed until next Fri 22:00', hours: 'fri 22:00-02:00', at: '2026-01-17T07:00:00Z', expect: outsideHours('2026-01-24T03:00:00Z') },
    { name: 'Sat 22:30 is not a Saturday window', hours: 'fri 22:00-02:00', at: '2026-01-18T03:30:00Z', expect: outsideHours('2026-01-24T03:00:00Z') },
    { name: 'Thu 23:00 waits for Fri 22:00', hours: 'fri 22:00-02:00', at: '2026-01-16T04:00:00Z', expect: outsideHours('2026-01-17T03:00:00Z') },
    { name: 'Sun into Mon: Mon 01:00', hours: 'sun 22:00-02:00', at: '2026-01-19T06:00:00Z', expect: allowed },
    { name: 'Sun into Mon: Sun 21:59', hours: 'sun 22:00-02:00', at: '2026-01-19T02:59:00Z', expect: outsideHours('2026-01-19T03:00:00Z') },
    { name: 'Sun into Mon: Mon 02:00', hours: 'sun 22:00-02:00', at: '2026-01-19T07:00:00Z', expect: outsideHours('2026-01-26T03:00:00Z') },
    { name: 'Sun into Mon: Mon 23:00 is not a Monday window', hours: 'sun 22:00-02:00', at: '2026-01-20T04:00:00Z', expect: outsideHours('2026-01-26T03:00:00Z') },
  ])
})

t.test('00:00-24:00 is the whole day', async (t) => {
  runAll(t, [
    { name: 'every day, Sun 23:59', hours: 'mon-sun 00:00-24:00', at: '2026-01-19T04:59:00Z', expect: allowed },
    { name: 'every day, Mon 00:00', hours: 'mon-sun 00:00-24:00', at: '2026-01-19T05:00:00Z', expect: allowed },
    { name: 'Monday only, Mon 23:59', hours: 'mon 00:00-24:00', at: '2026-01-13T04:59:00Z', expect: allowed },
    { name: 'Monday only, Tue 00:00', hours: 'mon 00:00-24:00', at: '2026-01-13T05:00:00Z', expect: outsideHours('2026-01-19T05:00:00Z') },
    { name: 'guard on, 03:00', hours: 'mon-sun 00:00-24:00', guard: true, at: '2026-01-12T08:00:00Z', expect: outsideLead('2026-01-12T13:00:00Z') },
    { name: 'guard on, 21:00', hours: 'mon-sun 00:00-24:00', guard: true, at: '2026-01-13T02:00:00Z', expect: outsideLead('2026-01-13T13:00:00Z') },
    { name: 'guard on, 20:59', hours: 'mon-sun 00:00-24:00', guard: true, at: '2026-01-13T01:59:00Z', expect: allowed },
  ])
})

t.test('none never allows a call', async (t) => {
  for (const at of ['2026-01-12T15:00:00Z', '2026-03-08T07:00:00Z', '2026-11-01T06:30:00Z']) {
    for (const guard of [true, false]) {
      check(t, { name: `none at ${at}, guard ${guard}`, hours: 'none', guard, at, expect: { reason: 'no_calling_hours', next: null } })
    }
  }
  const refused = callPermission({ timeZone: NY, callingHours: 'none', leadTimeGuard: true }, {}, new Date('2026-01-12T15:00:00Z'))
  t.equal(refused.allowed === false && refused.message, 'Calling hours are "none" for this account, so no call is ever allowed.')
})

t.test("the lead-time guard uses the lead's own zone", async (t) => {
  const hours = 'mon-fri 09:00-18:00'
  const guard = true
  runAll(t, [
    // 09:00 EDT is 03:00 HST; 08:00 HST is 18:00Z, 14:00 EDT.
    { name: 'Hawaii by code, 09:00 EDT', hours, guard, target: { state: 'HI' }, at: '2026-03-10T13:00:00Z', expect: outsideLead('2026-03-10T18:00:00Z') },
    { name: 'Hawaii by name', hours, guard, target: { state: 'Hawaii' }, at: '2026-03-10T13:00:00Z', expect: outsideLead('2026-03-10T18:00:00Z') },
    { name: 'Hawaii by name, lower case', hours, guard, target: { state: 'hawaii' }, at: '2026-03-10T13:00:00Z', expect: outsideLead('2026-03-10T18:00:00Z') },
    { name: 'Hawaii by area code', hours, guard, target: { phone: '+18085550123' }, at: '2026-03-10T13:00:00Z', expect: outsideLead('2026-03-10T18:00:00Z') },
    // In January 09:00 EST is 04:00 HST; 08:00 HST is still 18:00Z, now 13:00 EST.
    { name: 'Hawaii in winter, 09:00 EST', hours, guard, target: { state: 'HI' }, at: '2026-01-13T14:00:00Z', expect: outsideLead('2026-01-13T18:00:00Z') },
    { name: 'Hawaii 08:00 HST', hours, guard, target: { state: 'HI' }, at: '2026-03-10T18:00:00Z', expect: allowed },
    { name: 'Hawaii 17:59 EDT', hours, guard, target: { state: 'HI' }, at: '2026-03-10T21:59:00Z', expect: allowed },
    { name: 'guard off ignores the lead', hours, guard: false, target: { state: 'HI' }, at: '2026-03-10T13:00:00Z', expect: allowed },
    { name: 'both fail: calling hours reported first', hours, guard, target: { state: 'HI' }, at: '2026-03-14T07:00:00Z', expect: outsideHours('2026-03-16T18:00:00Z') },
    { name: 'state and area code disagree: both clocks hold', hours, guard, target: { state: 'NY', phone: '+18085550123' }, at: '2026-03-10T13:00:00Z', expect: outsideLead('2026-03-10T18:00:00Z') },
    // Unknown zone: the account's applies, so 07:00 ET waits for 08:00 ET.
    { name: 'toll-free number: account zone', hours: 'mon-sun 00:00-24:00', guard, target: { phone: '+18005550123' }, at: '2026-01-12T12:00:00Z', expect: outsideLead('2026-01-12T13:00:00Z') },
    { name: 'unknown state: account zone', hours: 'mon-sun 00:00-24:00', guard, target: { state: 'Atlantis' }, at: '2026-01-12T12:00:00Z', expect: outsideLead('2026-01-12T13:00:00Z') },
    { name: 'no target: account zone', hours: 'mon-sun 00:00-24:00', guard, at: '2026-01-12T13:00:00Z', expect: allowed },
    // Lead east of the account: 18:00 PST is 21:00 EST.
    { name: 'NY lead of an LA account, 17:59 PST', zone: LA, hours: 'mon-fri 06:00-20:00', guard, target: { phone: '+12125550123' }, at: '2026-01-13T01:59:00Z', expect: allowed },
    { name: 'NY lead of an LA account, 18:00 PST', zone: LA, hours: 'mon-fri 06:00-20:00', guard, target: { phone: '+12125550123' }, at: '2026-01-13T02:00:00Z', expect: outsideLead('2026-01-13T14:00:00Z') },
    // The lead's DST moves alone: a London account, a New York lead on 8 Mar 2026 (07:00 EDT = 11:00Z).
    { name: "lead's own DST change", zone: 'Europe/London', hours: 'mon-sun 00:00-24:00', guard, target: { state: 'NY' }, at: '2026-03-08T11:00:00Z', expect: outsideLead('2026-03-08T12:00:00Z') },
    { name: 'windows and guard never meet', hours: 'mon-sun 02:00-05:00', guard, target: { state: 'CA' }, at: '2026-01-12T12:00:00Z', expect: outsideHours(null) },
    { name: 'windows and guard never meet, inside the window', hours: 'mon-sun 02:00-05:00', guard, target: { state: 'CA' }, at: '2026-01-12T08:00:00Z', expect: outsideLead(null) },
  ])
})

t.test('the permission reports the zones it used', async (t) => {
  const policy: CallingPolicy = { timeZone: NY, callingHours: 'mon-fri 09:00-18:00', leadTimeGuard: true }
  const at = new Date('2026-03-10T13:00:00Z')
  t.match(callPermission(policy, { state: 'HI' }, at), { accountZone: NY, leadZone: 'Pacific/Honolulu', leadZoneFrom: 'state' })
  t.match(callPermission(policy, { phone: '+18085550123' }, at), { leadZone: 'Pacific/Honolulu', leadZoneFrom: 'area_code' })
  t.match(callPermission(policy, { phone: '+18005550123' }, at), { allowed: true, leadZone: null, leadZoneFrom: 'account' })
})

t.test('messages name the reason and the next time on the account clock', async (t) => {
  const policy: CallingPolicy = { timeZone: NY, callingHours: 'Mon-Fri 09:00-18:00', leadTimeGuard: true }
  const cases: Array<[CallTarget, string, string]> = [
    [
      { state: 'NY' },
      '2026-03-07T13:00:00Z',
      'Outside calling hours (mon-fri 09:00-18:00, America/New_York); next allowed Mon 9 Mar 2026 09:00 America/New_York.',
    ],
    [
      { state: 'HI' },
      '2026-03-10T13:00:00Z',
      "Outside the lead's hours (08:00-21:00 Pacific/Honolulu, from the lead's state); next allowed Tue 10 Mar 2026 14:00 America/New_York (08:00 for the lead, Pacific/Honolulu).",
    ],
    [
      { phone: '+18085550123' },
      '2026-03-10T13:00:00Z',
      "Outside the lead's hours (08:00-21:00 Pacific/Honolulu, from the lead's phone number); next allowed Tue 10 Mar 2026 14:00 America/New_York (08:00 for the lead, Pacific/Honolulu).",
    ],
  ]
  for (const [target, at, message] of cases) {
    const permission = callPermission(policy, target, new Date(at))
    t.equal(permission.allowed === false && permission.message, message, at)
  }
  const never = callPermission({ ...policy, callingHours: 'mon-sun 02:00-05:00' }, { state: 'CA' }, new Date('2026-01-12T12:00:00Z'))
  t.equal(
    never.allowed === false && never.message,
    "Outside calling hours (mon-sun 02:00-05:00, America/New_York); no time in the next 8 days is inside both the calling hours and the lead's hours.",
  )
  const unknown = callPermission({ ...policy, callingHours: 'mon-sun 00:00-24:00' }, {}, new Date('2026-01-12T12:00:00Z'))
  t.equal(
    unknown.allowed === false && unknown.message,
    "Outside the lead's hours (08:00-21:00 America/New_York, the account's zone, as the lead's is unknown); next allowed Mon 12 Jan 2026 08:00 America/New_York.",
  )
})

t.test('a broken policy throws instead of dialing', async (t) => {
  const at = new Date('2026-01-12T15:00:00Z')
  t.throws(() => callPermission({ timeZone: 'Mars/Olympus_Mons', callingHours: 'mon-fri 09:00-18:00', leadTimeGuard: true }, {}, at), {
    code: 'invalid_time_zone',
  })
  t.throws(() => nextAllowedAt({ timeZone: '', callingHours: 'mon-fri 09:00-18:00', leadTimeGuard: true }, {}, at), { code: 'invalid_time_zone' })
  t.throws(() => callPermission({ timeZone: NY, callingHours: 'weekdays 9-5', leadTimeGuard: true }, {}, at), { code: 'invalid_calling_hours' })
  try {
    callPermission({ timeZone: 'Mars/Olympus_Mons', callingHours: 'none', leadTimeGuard: false }, {}, at)
    t.fail('expected a throw')
  } catch (error) {
    t.ok(error instanceof DomainError, 'a DomainError')
  }
})

t.test('the wall clock of a zone, kept by the hour, is luxon\'s to the minute around every offset change of 2026 and 2027, in zones that move by an hour, half an hour or none', async (t) => {
  const zones = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns', 'Asia/Kathmandu', 'America/Phoenix', 'Asia/Kolkata']
  const MINUTE = 60_000
  let checked = 0
  for (const zone of zones) {
    // Every offset change in the two years (found hour by hour), and 90 minutes each side of it, minute by minute.
    const edges: number[] = []
    let previous = DateTime.fromMillis(Date.UTC(2026, 0, 1), { zone }).offset
    for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2028, 0, 1); ms += 15 * MINUTE) {
      const offset = DateTime.fromMillis(ms, { zone }).offset
      if (offset !== previous) edges.push(ms)
      previous = offset
    }
    // Zones without changes are checked at the turn of each quarter instead.
    const around = edges.length > 0 ? edges : [Date.UTC(2026, 2, 31, 23), Date.UTC(2026, 11, 31, 22)]
    for (const edge of around) {
      for (let ms = edge - 90 * MINUTE; ms <= edge + 90 * MINUTE; ms += MINUTE) {
        const local = DateTime.fromMillis(ms + 17_000, { zone })
        const minute = local.hour * 60 + local.minute
        const exact = [{ days: [local.weekday], start: minute, end: minute + 1 }]
        const next = [{ days: [local.weekday], start: minute + 1, end: minute + 2 }]
        if (!withinWindows(exact, zone, new Date(ms + 17_000)) || withinWindows(next, zone, new Date(ms + 17_000))) {
          t.fail(`${zone} at ${new Date(ms + 17_000).toISOString()}: luxon says ${local.toISO()}`)
          return
        }
        checked++
      }
    }
    t.ok(edges.length > 0 || zone === 'America/Phoenix' || zone === 'Asia/Kathmandu' || zone === 'Asia/Kolkata', `${zone}: ${edges.length} offset changes`)
  }
  t.ok(checked > 4_500, `${checked} instants, each the same weekday and minute as luxon reads`)
  // A zone luxon does not know: no window holds (luxon's answer), from the same code path.
  t.equal(withinWindows([{ days: [1, 2, 3, 4, 5, 6, 7], start: 0, end: 1440 }], 'Mars/Olympus_Mons', new Date()), false)
})
