/**
 * The calling rules as data (issue #27 item 6): each state row's hours and daily cap through the one
 * policy, mayCall; the stricter rule wins; a multi-zone state with the lead's zone unknown is read in
 * every zone it spans. Winter dates: Eastern is UTC-5, Central UTC-6.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../src/domain/account/account-settings.ts'
import { CONTACT_RULES, stateRulesFor } from '../../../src/domain/dialing/contact-rules.ts'
import { mayCall, type CallTargetFacts } from '../../../src/domain/dialing/may-call.ts'
import { DateTime, IANAZone } from 'luxon'
import fc from 'fast-check'

const ALWAYS: AccountSettings = { ...DEFAULT_SETTINGS, callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: true }
const MIAMI = '+13055550142'
const ATLANTA = '+14045550142'
const DALLAS = '+12145550142'
const TULSA = '+19185550142'
const PENSACOLA = '+18505550142'
const lead = (phone: string, state?: string, attemptTimes?: readonly string[]): CallTargetFacts => ({
  phone,
  doNotCall: false,
  suppressed: false,
  ...(state === undefined ? {} : { state }),
  ...(attemptTimes === undefined ? {} : { attemptTimes }),
})
const at = (iso: string) => new Date(iso)

t.test('every row has a citation, hours and valid zones', async (t) => {
  for (const row of CONTACT_RULES) {
    t.ok(row.citation.length > 0 && row.rule.length > 0, `${row.jurisdiction}: cited`)
    t.match(row.hours, { start: /^\d\d:\d\d$/, end: /^\d\d:\d\d$/ }, `${row.jurisdiction}: hours`)
    for (const zone of row.zones) t.ok(IANAZone.isValidZone(zone), `${row.jurisdiction}: ${zone}`)
  }
  t.same(new Set(CONTACT_RULES.map((r) => r.jurisdiction)).size, CONTACT_RULES.length, 'one row per jurisdiction')
})

t.test('a Florida lead at 20:30 Eastern is refused under FL 501.616 until 08:00 the next day', async (t) => {
  const check = mayCall(ALWAYS, lead(MIAMI, 'FL'), at('2026-12-02T01:30:00Z'))
  t.match(check, { allowed: false, reason: 'outside_lead_hours', rule: 'FL 501.616', nextAllowedAt: '2026-12-02T13:00:00.000Z' })
  t.match(check.message, /Fla\. Stat\. § 501\.616\(6\)/)
  t.match(mayCall(ALWAYS, lead(MIAMI, 'FL'), at('2026-12-02T00:59:00Z')), { allowed: true }, '19:59 Eastern is allowed')
})

t.test('a 305 number with state GA is held to Florida rule by its area code', async (t) => {
  t.match(mayCall(ALWAYS, lead(MIAMI, 'GA'), at('2026-12-02T01:30:00Z')), {
    allowed: false,
    reason: 'outside_lead_hours',
    rule: 'FL 501.616',
    nextAllowedAt: '2026-12-02T13:00:00.000Z',
  })
  t.match(stateRulesFor({ phone: MIAMI, state: 'GA' }), [{ rule: { jurisdiction: 'FL' }, zones: ['America/New_York'], from: 'area_code' }])
})

t.test('Texas at 20:30 Central is allowed (federal hours only)', async (t) => {
  t.match(mayCall(ALWAYS, lead(DALLAS, 'TX'), at('2026-12-02T02:30:00Z')), { allowed: true, rule: undefined })
  t.match(mayCall(ALWAYS, lead(DALLAS, 'TX'), at('2026-12-02T03:30:00Z')), {
    allowed: false,
    reason: 'outside_lead_hours',
    rule: 'TCPA 64.1200(c)(1)',
    nextAllowedAt: '2026-12-02T14:00:00.000Z',
  }, '21:30 Central is refused under the federal rule')
})

t.test('the stricter rule wins: a Texas lead with an Oklahoma number, an Oklahoma lead with a Texas number', async (t) => {
  const half8Central = at('2026-12-02T02:30:00Z')
  t.match(mayCall(ALWAYS, lead(TULSA, 'TX'), half8Central), { allowed: false, reason: 'outside_lead_hours', rule: 'OK 775C.4' })
  t.match(mayCall(ALWAYS, lead(DALLAS, 'OK'), half8Central), { allowed: false, reason: 'outside_lead_hours', rule: 'OK 775C.4' })
  t.match(mayCall(ALWAYS, lead(DALLAS, 'OK'), at('2026-12-02T01:59:00Z')), { allowed: true }, '19:59 Central is allowed')
  t.match(mayCall({ ...ALWAYS, leadTimeGuard: false }, lead(TULSA, 'OK'), half8Central), { allowed: true }, 'the guard off, no row applies')
})

t.test('a multi-zone state with the lead zone unknown is read in every zone it spans', async (t) => {
  // State FL with a Georgia number: Eastern or Central unknown, so 08:00 Central and 20:00 Eastern.
  t.match(mayCall(ALWAYS, lead(ATLANTA, 'FL'), at('2026-12-01T13:30:00Z')), {
    allowed: false,
    reason: 'outside_lead_hours',
    rule: 'FL 501.616',
    nextAllowedAt: '2026-12-01T14:00:00.000Z',
  }, '08:30 Eastern is 07:30 Central: refused until 08:00 Central')
  t.match(mayCall(ALWAYS, lead(ATLANTA, 'FL'), at('2026-12-02T01:30:00Z')), { allowed: false, rule: 'FL 501.616', nextAllowedAt: '2026-12-02T14:00:00.000Z' })
  t.match(mayCall(ALWAYS, lead(ATLANTA, 'FL'), at('2026-12-01T14:00:00Z')), { allowed: true })
  t.match(stateRulesFor({ phone: ATLANTA, state: 'FL' }), [{ zones: ['America/New_York', 'America/Chicago'], from: 'state' }])
  // The area code places the lead in Florida: its own zone is known.
  t.match(mayCall(ALWAYS, lead(MIAMI, 'FL'), at('2026-12-01T13:30:00Z')), { allowed: true }, 'a Miami number at 08:30 Eastern')
  t.match(mayCall(ALWAYS, lead(PENSACOLA), at('2026-12-02T01:30:00Z')), { allowed: true }, 'a Pensacola number at 19:30 Central')
  t.match(mayCall(ALWAYS, lead(PENSACOLA), at('2026-12-02T02:30:00Z')), { allowed: false, rule: 'FL 501.616', nextAllowedAt: '2026-12-02T14:00:00.000Z' })
})

t.test('a fourth call in 24 hours to a Florida lead is refused whatever the account cap', async (t) => {
  const loose: AccountSettings = { ...ALWAYS, followUp: '10m, 1h; max 10 per 24h' }
  const three = ['2026-12-01T14:00:00Z', '2026-12-01T15:00:00Z', '2026-12-01T16:00:00Z']
  const now = at('2026-12-01T17:00:00Z')
  const check = mayCall(loose, lead(MIAMI, 'FL', three), now)
  t.match(check, { allowed: false, reason: 'daily_limit', rule: 'FL 501.616', dailyLimit: 3, nextAllowedAt: '2026-12-02T14:00:01.000Z' })
  t.match(check.message, /Fla\. Stat\./)
  t.match(mayCall(loose, lead(MIAMI, 'FL', three.slice(1)), now), { allowed: true, dailyLimit: 3 }, 'a third is allowed')
  t.match(mayCall(loose, lead(MIAMI, 'GA', three), now), { allowed: false, reason: 'daily_limit', rule: 'FL 501.616' }, 'by area code too')
  t.match(mayCall(loose, lead(DALLAS, 'TX', three), now), { allowed: true, dailyLimit: 10 }, 'Texas keeps the account cap')
  t.match(mayCall({ ...ALWAYS, followUp: '10m; max 2 per 24h' }, lead(MIAMI, 'FL', three.slice(1)), now), {
    allowed: false,
    reason: 'daily_limit',
    dailyLimit: 2,
    rule: undefined,
  }, 'a stricter account cap is the account’s own')
  t.match(mayCall({ ...loose, leadTimeGuard: false }, lead(MIAMI, 'FL', three), now), { allowed: true, dailyLimit: 10 }, 'the guard off')
})

// Rows with their own week (issue #27 item 6). Wednesday 2 Dec 2026, Saturday 5, Sunday 6, Monday 7.
// Winter offsets: Pacific UTC-8, Mountain UTC-7, Central UTC-6, Eastern UTC-5.
const SEATTLE = '+12065550142'
const SALT_LAKE = '+18015550142'
const JACKSON = '+16015550142'
const NEW_ORLEANS = '+15045550142'
const PROVIDENCE = '+14015550142'

t.test('Washington: 08:00-20:00 Pacific', async (t) => {
  t.match(mayCall(ALWAYS, lead(SEATTLE, 'WA'), at('2026-12-03T03:59:00Z')), { allowed: true }, '19:59 is allowed')
  t.match(mayCall(ALWAYS, lead(SEATTLE, 'WA'), at('2026-12-03T04:00:00Z')), {
    allowed: false,
    reason: 'outside_lead_hours',
    rule: 'WA 19.158.040',
    nextAllowedAt: '2026-12-03T16:00:00.000Z',
  }, '20:00 is refused until 08:00 the next day')
  t.match(mayCall(ALWAYS, lead(SEATTLE, 'WA'), at('2026-12-02T15:59:00Z')), { allowed: false, rule: 'WA 19.158.040' }, '07:59 is refused')
  t.match(mayCall(ALWAYS, lead(SEATTLE, 'WA'), at('2026-12-02T16:00:00Z')), { allowed: true }, '08:00 is allowed')
})

t.test('Utah: 08:00-21:00 Mountain, no calls on Sunday', async (t) => {
  t.match(mayCall(ALWAYS, lead(SALT_LAKE, 'UT'), at('2026-12-06T03:59:00Z')), { allowed: true }, 'Saturday 20:59 is allowed')
  t.match(mayCall(ALWAYS, lead(SALT_LAKE, 'UT'), at('2026-12-06T04:00:00Z')), {
    allowed: false,
    reason: 'outside_lead_hours',
    rule: 'UT 13-25a-103',
    nextAllowedAt: '2026-12-07T15:00:00.000Z',
  }, 'Saturday 21:00 is refused until Monday 08:00, skipping Sunday')
  const sunday = mayCall(ALWAYS, lead(SALT_LAKE, 'UT'), at('2026-12-06T17:00:00Z'))
  t.match(sunday, { allowed: false, reason: 'outside_lead_hours', rule: 'UT 13-25a-103', nextAllowedAt: '2026-12-07T15:00:00.000Z' }, 'Sunday noon is refused')
  t.match(sunday.message, /Mon-Sat 08:00-21:00, Sun no calls America\/Denver: UT 13-25a-103, Utah Code § 13-25a-103\(3\)/)
  t.match(mayCall(ALWAYS, lead(SALT_LAKE, 'UT'), at('2026-12-07T15:00:00Z')), { allowed: true }, 'Monday 08:00 is allowed')
})

t.test('Mississippi: 08:00-20:00 Central, no calls on Sunday', async (t) => {
  t.match(mayCall(ALWAYS, lead(JACKSON, 'MS'), at('2026-12-03T01:59:00Z')), { allowed: true }, 'Wednesday 19:59 is allowed')
  t.match(mayCall(ALWAYS, lead(JACKSON, 'MS'), at('2026-12-03T02:00:00Z')), {
    allowed: false,
    rule: 'MS 77-3-723',
    nextAllowedAt: '2026-12-03T14:00:00.000Z',
  }, 'Wednesday 20:00 is refused until Thursday 08:00')
  t.match(mayCall(ALWAYS, lead(JACKSON, 'MS'), at('2026-12-06T18:00:00Z')), {
    allowed: false,
    rule: 'MS 77-3-723',
    nextAllowedAt: '2026-12-07T14:00:00.000Z',
  }, 'Sunday noon is refused until Monday 08:00')
})

t.test('Louisiana: 08:00-20:00 Central Monday to Saturday, no calls on Sunday', async (t) => {
  t.match(mayCall(ALWAYS, lead(NEW_ORLEANS, 'LA'), at('2026-12-06T01:59:00Z')), { allowed: true }, 'Saturday 19:59 is allowed')
  t.match(mayCall(ALWAYS, lead(NEW_ORLEANS, 'LA'), at('2026-12-06T02:00:00Z')), {
    allowed: false,
    rule: 'LA 45:811',
    nextAllowedAt: '2026-12-07T14:00:00.000Z',
  }, 'Saturday 20:00 is refused until Monday 08:00')
})

t.test('Rhode Island: weekdays 09:00-18:00, Saturday 10:00-17:00, no calls on Sunday (Eastern)', async (t) => {
  t.match(mayCall(ALWAYS, lead(PROVIDENCE, 'RI'), at('2026-12-02T13:59:00Z')), {
    allowed: false,
    rule: 'RI 5-61-3.6',
    nextAllowedAt: '2026-12-02T14:00:00.000Z',
  }, 'Wednesday 08:59 is refused until 09:00, though the federal hours allow it')
  t.match(mayCall(ALWAYS, lead(PROVIDENCE, 'RI'), at('2026-12-04T22:59:00Z')), { allowed: true }, 'Friday 17:59 is allowed')
  t.match(mayCall(ALWAYS, lead(PROVIDENCE, 'RI'), at('2026-12-04T23:00:00Z')), {
    allowed: false,
    rule: 'RI 5-61-3.6',
    nextAllowedAt: '2026-12-05T15:00:00.000Z',
  }, 'Friday 18:00 is refused until Saturday 10:00')
  t.match(mayCall(ALWAYS, lead(PROVIDENCE, 'RI'), at('2026-12-05T14:59:00Z')), { allowed: false, rule: 'RI 5-61-3.6' }, 'Saturday 09:59 is refused')
  t.match(mayCall(ALWAYS, lead(PROVIDENCE, 'RI'), at('2026-12-05T21:59:00Z')), { allowed: true }, 'Saturday 16:59 is allowed')
  t.match(mayCall(ALWAYS, lead(PROVIDENCE, 'RI'), at('2026-12-05T22:00:00Z')), {
    allowed: false,
    rule: 'RI 5-61-3.6',
    nextAllowedAt: '2026-12-07T14:00:00.000Z',
  }, 'Saturday 17:00 is refused until Monday 09:00')
  const sunday = mayCall(ALWAYS, lead(PROVIDENCE, 'RI'), at('2026-12-06T16:00:00Z'))
  t.match(sunday, { allowed: false, rule: 'RI 5-61-3.6', nextAllowedAt: '2026-12-07T14:00:00.000Z' }, 'Sunday 11:00 is refused')
  t.match(sunday.message, /Mon-Fri 09:00-18:00, Sat 10:00-17:00, Sun no calls/)
})

t.test('the new rows reach a lead by its state field or by its area code, as the others do', async (t) => {
  t.match(stateRulesFor({ phone: SEATTLE, state: 'CA' }), [{ rule: { jurisdiction: 'WA' }, zones: ['America/Los_Angeles'], from: 'area_code' }])
  t.match(stateRulesFor({ phone: ATLANTA, state: 'Utah' }), [{ rule: { jurisdiction: 'UT' }, zones: ['America/Denver'], from: 'state' }])
  t.match(mayCall(ALWAYS, lead(SALT_LAKE, 'NV'), at('2026-12-06T17:00:00Z')), { allowed: false, rule: 'UT 13-25a-103' }, 'a Utah number on Sunday')
  t.same(stateRulesFor({ phone: DALLAS, state: 'TX' }), [], 'Texas has no row: the federal hours alone')
  t.match(mayCall(ALWAYS, lead(DALLAS, 'TX'), at('2026-12-07T02:30:00Z')), { allowed: true }, 'Texas on Sunday 20:30 Central is allowed')
})

// The weekly rows against an oracle written here from the statutes' words, not from the code: at any
// instant in 2025-2027 (DST switches included), allowed exactly when the lead's wall clock is inside
// the week below, and next_allowed_at is the first allowed minute.
const WEEKS: ReadonlyArray<{ phone: string; state: string; zone: string; week: readonly (readonly [number, number] | null)[] }> = [
  // index 0 unused; 1 = Monday … 7 = Sunday; minutes after midnight, already within the federal 08:00-21:00
  { phone: SALT_LAKE, state: 'UT', zone: 'America/Denver', week: [null, [480, 1260], [480, 1260], [480, 1260], [480, 1260], [480, 1260], [480, 1260], null] },
  { phone: PROVIDENCE, state: 'RI', zone: 'America/New_York', week: [null, [540, 1080], [540, 1080], [540, 1080], [540, 1080], [540, 1080], [600, 1020], null] },
  { phone: NEW_ORLEANS, state: 'LA', zone: 'America/Chicago', week: [null, [480, 1200], [480, 1200], [480, 1200], [480, 1200], [480, 1200], [480, 1200], null] },
]

function weekAllows(week: (typeof WEEKS)[number], ms: number): boolean {
  const local = DateTime.fromMillis(ms, { zone: week.zone })
  const span = week.week[local.weekday]
  const minutes = local.hour * 60 + local.minute
  return span !== null && span !== undefined && minutes >= span[0] && minutes < span[1]
}

t.test('weekly rows agree with the statutes week, and next_allowed_at is the first allowed minute', async (t) => {
  const MINUTE = 60_000
  fc.assert(
    fc.property(
      fc.constantFrom(...WEEKS),
      fc.integer({ min: Date.parse('2025-01-01T00:00:00Z') / MINUTE, max: Date.parse('2027-12-31T00:00:00Z') / MINUTE }),
      (week, minute) => {
        const ms = minute * MINUTE
        const check = mayCall(ALWAYS, lead(week.phone, week.state), new Date(ms))
        if (check.allowed !== weekAllows(week, ms)) return false
        if (check.allowed) return true
        if (check.nextAllowedAt === null || check.nextAllowedAt === undefined) return false
        const next = Date.parse(check.nextAllowedAt)
        if (!weekAllows(week, next)) return false
        // No allowed minute between now and next_allowed_at (every minute checked: at most three days).
        for (let m = ms + MINUTE; m < next; m += MINUTE) if (weekAllows(week, m)) return false
        return true
      },
    ),
    { numRuns: 300 },
  )
  t.pass('300 instants')
})
