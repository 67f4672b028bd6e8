/**
 * The stricter clock wins (issue #40 item 11): when the lead's `state` and its number place it in
 * different zones, a call or a text is allowed only while every one of them is inside the lead's
 * hours, the next allowed time waits for all of them, and the answer names both zones.
 * A GB mobile with `state: CA`: London (GMT, BST from 29 Mar 2026 01:00Z, back on 25 Oct 2026 01:00Z)
 * and Los Angeles (PST UTC-8, PDT from 8 Mar 2026 10:00Z, back on 1 Nov 2026 09:00Z).
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../src/domain/account/account-settings.ts'
import { callPermission, nextAllowedAt, type CallingPolicy } from '../../../src/domain/dialing/calling-window.ts'
import { leadTimeZone, leadTimeZones } from '../../../src/domain/dialing/lead-time-zone.ts'
import { mayContact, type CallTargetFacts } from '../../../src/domain/dialing/may-call.ts'

const LONDON = 'Europe/London'
const LA = 'America/Los_Angeles'
const NY = 'America/New_York'
const GB_MOBILE = '+447400123456'
const HONOLULU = '+18085550123'
const ALWAYS: AccountSettings = {
  ...DEFAULT_SETTINGS,
  callerId: '+13125550100',
  callingHours: 'mon-sun 00:00-24:00',
  leadTimeGuard: true,
  allowedCountries: ['US', 'GB'],
}
const POLICY: CallingPolicy = { timeZone: NY, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: true }
const GB_CA = { phone: GB_MOBILE, state: 'CA' }
const lead = (phone: string, state?: string): CallTargetFacts => ({ phone, doNotCall: false, suppressed: false, ...(state === undefined ? {} : { state }) })

t.test('a lead whose state and number disagree is in both zones, state first', async (t) => {
  t.same(leadTimeZones(GB_CA), [{ zone: LA, from: 'state' }, { zone: LONDON, from: 'area_code' }])
  t.same(leadTimeZones({ phone: HONOLULU, state: 'NY' }).map((z) => z.zone), [NY, 'Pacific/Honolulu'])
  t.same(leadTimeZones({ phone: '+12125550123', state: 'NY' }), [{ zone: NY, from: 'state' }], 'agreeing: one zone')
  t.same(leadTimeZones({ phone: GB_MOBILE }), [{ zone: LONDON, from: 'area_code' }])
  t.same(leadTimeZones({}), [])
  t.same(leadTimeZone(GB_CA), { zone: LA, from: 'state' }, "the first zone is still the state's")
})

t.test("a GB mobile with state CA is not called or texted at 01:25 London time", async (t) => {
  // 01:25 London is 17:25 the evening before in Los Angeles: the state's clock alone would allow it.
  const now = new Date('2026-12-02T01:25:00Z')
  for (const channel of ['call', 'text'] as const) {
    const check = mayContact(channel, ALWAYS, lead(GB_MOBILE, 'CA'), now)
    t.match(check, { allowed: false, reason: 'outside_lead_hours', leadZone: LA, nextAllowedAt: '2026-12-02T16:00:00.000Z' }, channel)
    t.same(check.leadZones, [LA, LONDON], `${channel}: both zones named`)
    t.match(check.message, /America\/Los_Angeles/, `${channel}: the message names Los Angeles`)
    t.match(check.message, /Europe\/London/, `${channel}: the message names London`)
  }
  // 16:00Z: 08:00 in Los Angeles and 16:00 in London, the first minute both are inside.
  const next = mayContact('call', ALWAYS, lead(GB_MOBILE, 'CA'), new Date('2026-12-02T10:00:00Z'))
  t.match(next.message, /08:00 America\/Los_Angeles, 16:00 Europe\/London/, 'the next time on both clocks')
})

t.test('each window edge, a minute either side, in winter', async (t) => {
  const cases: Array<[string, boolean, string]> = [
    ['2026-12-02T07:59:00Z', false, 'London 07:59 (LA 23:59 the day before)'],
    ['2026-12-02T08:00:00Z', false, 'London 08:00 but LA 00:00'],
    ['2026-12-02T15:59:00Z', false, 'LA 07:59'],
    ['2026-12-02T16:00:00Z', true, 'LA 08:00, London 16:00'],
    ['2026-12-02T20:59:00Z', true, 'London 20:59'],
    ['2026-12-02T21:00:00Z', false, 'London 21:00 (LA 13:00)'],
    ['2026-12-03T04:59:00Z', false, 'LA 20:59 but London 04:59'],
    ['2026-12-03T05:00:00Z', false, 'LA 21:00'],
  ]
  for (const [iso, allowed, name] of cases) {
    const now = new Date(iso)
    t.equal(callPermission(POLICY, GB_CA, now).allowed, allowed, name)
    t.equal(mayContact('text', ALWAYS, lead(GB_MOBILE, 'CA'), now).allowed, allowed, `${name}: a text alike`)
    const next = nextAllowedAt(POLICY, GB_CA, now)
    t.equal(next?.toISOString(), allowed ? now.toISOString() : new Date(iso < '2026-12-02T16:00:00Z' ? '2026-12-02T16:00:00Z' : '2026-12-03T16:00:00Z').toISOString(), `${name}: next allowed`)
  }
})

t.test("London's spring-forward day ends the shared window an hour earlier in UTC", async (t) => {
  // 28 Mar: London GMT, LA PDT: both inside 15:00Z-21:00Z. 29 Mar: London BST: 15:00Z-20:00Z.
  const cases: Array<[string, boolean]> = [
    ['2026-03-28T14:59:00Z', false],
    ['2026-03-28T15:00:00Z', true],
    ['2026-03-28T20:59:00Z', true],
    ['2026-03-28T21:00:00Z', false],
    ['2026-03-29T14:59:00Z', false],
    ['2026-03-29T15:00:00Z', true],
    ['2026-03-29T19:59:00Z', true],
    ['2026-03-29T20:00:00Z', false],
  ]
  for (const [iso, allowed] of cases) t.equal(callPermission(POLICY, GB_CA, new Date(iso)).allowed, allowed, iso)
  t.equal(nextAllowedAt(POLICY, GB_CA, new Date('2026-03-29T20:00:00Z'))?.toISOString(), '2026-03-30T15:00:00.000Z')
})

t.test("the US fall-back day moves the shared window's start an hour later in UTC", async (t) => {
  // 31 Oct: LA PDT (08:00 = 15:00Z); 1 Nov: LA PST from 09:00Z (08:00 = 16:00Z); London GMT both days.
  const cases: Array<[string, boolean]> = [
    ['2026-10-31T14:59:00Z', false],
    ['2026-10-31T15:00:00Z', true],
    ['2026-11-01T15:00:00Z', false],
    ['2026-11-01T15:59:00Z', false],
    ['2026-11-01T16:00:00Z', true],
    ['2026-11-01T20:59:00Z', true],
    ['2026-11-01T21:00:00Z', false],
  ]
  for (const [iso, allowed] of cases) t.equal(callPermission(POLICY, GB_CA, new Date(iso)).allowed, allowed, iso)
  t.equal(nextAllowedAt(POLICY, GB_CA, new Date('2026-11-01T01:25:00Z'))?.toISOString(), '2026-11-01T16:00:00.000Z')
})

t.test('a Hawaii number with state NY waits for 08:00 in Honolulu too', async (t) => {
  // 09:00 in New York is 04:00 in Honolulu.
  const check = mayContact('call', ALWAYS, lead(HONOLULU, 'NY'), new Date('2026-03-10T13:00:00Z'))
  t.match(check, { allowed: false, reason: 'outside_lead_hours', nextAllowedAt: '2026-03-10T18:00:00.000Z', rule: 'TCPA 64.1200(c)(1)' })
  t.same(check.leadZones, [NY, 'Pacific/Honolulu'])
  t.match(mayContact('call', ALWAYS, lead(HONOLULU, 'NY'), new Date('2026-03-10T18:00:00Z')), { allowed: true })
})

t.test('with the guard off, only the calling hours count', async (t) => {
  t.equal(callPermission({ ...POLICY, leadTimeGuard: false }, GB_CA, new Date('2026-12-02T01:25:00Z')).allowed, true)
})
