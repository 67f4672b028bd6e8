import t from 'tap'
import fc from 'fast-check'
import { DAY_NAMES, parseCallingHours } from '../../../src/domain/account/calling-hours.ts'
import { callPermission, LOOKAHEAD_DAYS, nextAllowedAt } from '../../../src/domain/dialing/calling-window.ts'
import type { CallTarget } from '../../../src/domain/dialing/calling-window.ts'
import { oracleAllowed, oracleInWindows } from './fixtures/wall-clock-oracle.ts'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

// Zones with DST in either hemisphere, none, half-hour offsets, and Lord Howe's half-hour DST.
const ZONES = [
  'America/New_York',
  'America/Los_Angeles',
  'America/Phoenix',
  'America/St_Johns',
  'Pacific/Honolulu',
  'Europe/Berlin',
  'Europe/London',
  'Asia/Kolkata',
  'Australia/Sydney',
  'Australia/Lord_Howe',
]

// Targets with the zone the guard must use (null: the account's), stated here rather than asked of the code.
const TARGETS: ReadonlyArray<{ target: CallTarget; zone: string | null }> = [
  { target: {}, zone: null },
  { target: { state: 'HI' }, zone: 'Pacific/Honolulu' },
  { target: { state: 'california' }, zone: 'America/Los_Angeles' },
  { target: { phone: '+12125550123' }, zone: 'America/New_York' },
  { target: { phone: '+17095550123' }, zone: 'America/St_Johns' },
  { target: { phone: '+442079460958' }, zone: 'Europe/London' },
  { target: { phone: '+18005550123' }, zone: null },
]

const clock = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`

const windowSpec = fc
  .record({
    days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
    start: fc.integer({ min: 0, max: 1439 }),
    length: fc.integer({ min: 1, max: 1439 }),
    wholeDay: fc.boolean(),
  })
  .map(({ days, start, length, wholeDay }) => {
    const names = days.map((d) => DAY_NAMES[d] as string).join('+')
    if (wholeDay && start % 5 === 0) return `${names} 00:00-24:00`
    const end = (start + length) % 1440
    return `${names} ${clock(start)}-${end === 0 ? '24:00' : clock(end)}`
  })

const hoursSpec = fc.array(windowSpec, { minLength: 1, maxLength: 3 }).map((entries) => entries.join(', '))

// Anywhere in 2025–2027, or within two days of a 2026 switch (US, EU, Australia).
const SWITCHES = ['2026-03-08', '2026-11-01', '2026-03-29', '2026-10-25', '2026-04-05', '2026-10-04'].map((d) => Date.parse(`${d}T00:00:00Z`))
const instant = fc.oneof(
  fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') }),
  fc.tuple(fc.constantFrom(...SWITCHES), fc.integer({ min: -2 * DAY, max: 2 * DAY })).map(([at, shift]) => at + shift),
)

const scenario = fc.record({
  zone: fc.constantFrom(...ZONES),
  hours: hoursSpec,
  guard: fc.boolean(),
  lead: fc.constantFrom(...TARGETS),
  at: instant,
})

t.test('callPermission agrees with an independent check, both ways', async (t) => {
  fc.assert(
    fc.property(scenario, ({ zone, hours, guard, lead, at }) => {
      const windows = parseCallingHours(hours)
      const guardZone = guard ? (lead.zone ?? zone) : null
      const permission = callPermission({ timeZone: zone, callingHours: hours, leadTimeGuard: guard }, lead.target, new Date(at))
      const expected = oracleAllowed(windows, zone, guardZone, at)
      if (permission.allowed !== expected) return false
      if (permission.allowed) return true
      const expectedReason = oracleInWindows(windows, at, zone) ? 'outside_lead_hours' : 'outside_calling_hours'
      return permission.reason === expectedReason
    }),
    { numRuns: 400 },
  )
  t.pass('400 scenarios')
})

// Minute boundaries strictly between `from` and `to`: every 15th, every one in the last 90, and random ones.
function sampleMinutes(from: number, to: number, random: () => number): number[] {
  const first = Math.floor(from / MINUTE) * MINUTE + MINUTE
  const samples: number[] = []
  for (let m = Math.ceil(first / (15 * MINUTE)) * 15 * MINUTE; m < to; m += 15 * MINUTE) samples.push(m)
  for (let m = Math.max(first, Math.ceil(to / MINUTE) * MINUTE - 90 * MINUTE); m < to; m += MINUTE) samples.push(m)
  const span = Math.floor((to - first) / MINUTE)
  for (let i = 0; i < 100 && span > 0; i++) samples.push(first + Math.floor(random() * span) * MINUTE)
  return samples.filter((m) => m > from && m < to)
}

t.test('nextAllowedAt is allowed, and no allowed minute comes before it', async (t) => {
  fc.assert(
    fc.property(scenario, fc.integer(), ({ zone, hours, guard, lead, at }, seed) => {
      const windows = parseCallingHours(hours)
      const guardZone = guard ? (lead.zone ?? zone) : null
      const policy = { timeZone: zone, callingHours: hours, leadTimeGuard: guard }
      const next = nextAllowedAt(policy, lead.target, new Date(at))
      let state = seed >>> 0
      const random = (): number => {
        state = (Math.imul(state, 1664525) + 1013904223) >>> 0
        return state / 2 ** 32
      }
      if (next === null) {
        // Nothing allowed in the look-ahead: no sampled minute may be.
        return sampleMinutes(at, at + LOOKAHEAD_DAYS * DAY, random).every((m) => !oracleAllowed(windows, zone, guardZone, m))
      }
      const n = next.getTime()
      if (n < at || n > at + LOOKAHEAD_DAYS * DAY) return false
      if (!oracleAllowed(windows, zone, guardZone, n)) return false
      if (nextAllowedAt(policy, lead.target, next)?.getTime() !== n) return false
      const permission = callPermission(policy, lead.target, new Date(at))
      if (permission.allowed !== (n === at)) return false
      if (!permission.allowed && permission.nextAllowedAt !== next.toISOString()) return false
      return sampleMinutes(at, n, random).every((m) => !oracleAllowed(windows, zone, guardZone, m))
    }),
    { numRuns: 300 },
  )
  t.pass('300 scenarios')
})
