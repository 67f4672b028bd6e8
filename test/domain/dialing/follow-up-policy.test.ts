/** The follow-up policy: its syntax (parse, canonical form, refusals), due times and the rolling daily limit. */
import t, { type Test } from 'tap'
import {
  DEFAULT_FOLLOW_UP, followUpDueAt, formatFollowUpPolicy, MAX_FOLLOW_UP_TEXT, normaliseFollowUpPolicy, parseFollowUpPolicy, withinDailyLimit,
} from '../../../src/domain/dialing/follow-up-policy.ts'

/** Each spelling is stored in its canonical form, which is stable and means what was written. */
function roundTrips(t: Test, table: ReadonlyArray<readonly [written: string, stored: string]>): void {
  for (const [written, stored] of table) {
    t.equal(normaliseFollowUpPolicy(written), stored, written)
    t.equal(normaliseFollowUpPolicy(stored), stored, `${stored} is stable`)
    t.same(parseFollowUpPolicy(stored), parseFollowUpPolicy(written), `${stored} means what was written`)
  }
}

t.test('the default: 10 minutes, 1 hour, next day 10:00; at most 3 calls in any 24 hours', async (t) => {
  t.same(parseFollowUpPolicy(DEFAULT_FOLLOW_UP), {
    steps: [{ kind: 'delay', seconds: 600 }, { kind: 'delay', seconds: 3600 }, { kind: 'next-day', minutes: 600 }],
    maxPer24h: 3,
  })
  t.equal(formatFollowUpPolicy(parseFollowUpPolicy(DEFAULT_FOLLOW_UP)), DEFAULT_FOLLOW_UP, 'the default is already canonical')
})

t.test('spellings and their canonical form', async (t) => {
  const table: Array<[string, string]> = [
    ['10m, 1h, next-day 10:00; max 3 per 24h', '10m, 1h, next-day 10:00; max 3 per 24h'],
    ['5m, 30m, next-day 9:30; max 4 per 24h', '5m, 30m, next-day 09:30; max 4 per 24h'],
    ['10m,1h', '10m, 1h; max 3 per 24h'],
    ['  10M , 2H ', '10m, 2h; max 3 per 24h'],
    ['90s', '90s; max 3 per 24h'],
    ['60s, 120m, 48h', '1m, 2h, 2d; max 3 per 24h'],
    ['30s; max 1 per 24h', '30s; max 1 per 24h'],
    ['1d, next-day 00:00; MAX 10 PER 24H', '1d, next-day 00:00; max 10 per 24h'],
    ['next-day 23:59', 'next-day 23:59; max 3 per 24h'],
    ['10m;', '10m; max 3 per 24h'],
    ['off', 'off'],
    ['OFF', 'off'],
    ['none', 'off'],
  ]
  roundTrips(t, table)
})

t.test('refusals name the problem (invalid_follow_up)', async (t) => {
  const table: Array<[string, RegExp]> = [
    ['10 minutes', /unknown step "10 minutes"/],
    ['', /no steps/],
    [' ; max 3 per 24h', /no steps/],
    ['10s', /between 30s and 30d/],
    ['31d', /between 30s and 30d/],
    ['0m', /between 30s and 30d/],
    ['next-day 24:00', /bad time/],
    ['next-day 10:60', /bad time/],
    ['next-day 10am', /unknown step/],
    ['10m; max 0 per 24h', /at least 1/],
    ['10m; max 3 per day', /unknown limit/],
    ['10m; max 3 per 24h; again', /the limit comes last: "again" follows it/],
    ['10m; max 3 per 24h; max 2 per 24h', /only one limit/],
    [Array.from({ length: 11 }, () => '10m').join(', '), /at most 10 steps/],
    ['-5m', /unknown step/],
    ['10m walk', /unknown step "10m walk"/],
  ]
  for (const [spec, message] of table) {
    t.throws(() => parseFollowUpPolicy(spec), { name: 'DomainError', code: 'invalid_follow_up', message }, JSON.stringify(spec))
  }
})

t.test('due times: a delay after the previous attempt, or the next calendar day in the account zone', async (t) => {
  const after = new Date('2026-03-10T15:00:00Z')
  t.equal(followUpDueAt({ kind: 'delay', seconds: 600 }, after, 'America/New_York').toISOString(), '2026-03-10T15:10:00.000Z')
  t.equal(followUpDueAt({ kind: 'next-day', minutes: 600 }, after, 'America/New_York').toISOString(), '2026-03-11T14:00:00.000Z', '10:00 EDT')
  t.equal(followUpDueAt({ kind: 'next-day', minutes: 600 }, after, 'Asia/Tokyo').toISOString(), '2026-03-12T01:00:00.000Z', 'already the 11th in Tokyo')
  // The evening before the spring change: the next day's 10:00 is in summer time.
  t.equal(followUpDueAt({ kind: 'next-day', minutes: 600 }, new Date('2026-03-08T02:00:00Z'), 'America/New_York').toISOString(), '2026-03-08T14:00:00.000Z', 'Saturday 21:00 EST → Sunday 10:00 EDT')
  t.equal(followUpDueAt({ kind: 'next-day', minutes: 600 }, new Date('2026-10-31T12:00:00Z'), 'Europe/London').toISOString(), '2026-11-01T10:00:00.000Z', '10:00 GMT after the autumn change')
  t.equal(followUpDueAt({ kind: 'next-day', minutes: 30 }, new Date('2026-03-10T23:50:00Z'), 'UTC').toISOString(), '2026-03-11T00:30:00.000Z', 'just after midnight is still the next day')
})

t.test('the rolling 24-hour limit', async (t) => {
  const from = new Date('2026-03-10T15:00:00Z')
  const iso = (ms: number) => new Date(from.getTime() + ms).toISOString()
  const H = 3600_000
  t.equal(withinDailyLimit(from, [], 3).toISOString(), from.toISOString(), 'no earlier attempts')
  t.equal(withinDailyLimit(from, [iso(-2 * H), iso(-H)], 3).toISOString(), from.toISOString(), 'two earlier: a third is fine')
  t.equal(withinDailyLimit(from, [iso(-2 * H), iso(-H), iso(-0.5 * H)], 3).toISOString(), iso(22 * H + 1000), 'three: wait until the oldest is a day old')
  t.equal(withinDailyLimit(from, [iso(-0.5 * H), iso(-2 * H), iso(-H)], 3).toISOString(), iso(22 * H + 1000), 'in any order')
  t.equal(withinDailyLimit(from, [iso(-25 * H), iso(-H)], 2).toISOString(), from.toISOString(), 'older than a day does not count')
  t.equal(withinDailyLimit(from, [iso(-3 * H), iso(-2 * H), iso(-H)], 1).toISOString(), iso(23 * H + 1000), 'max 1: after the newest is a day old')
  // A later stamp means the clock was moved back since that attempt: it happened, so it counts (docs/reliability.md#clock-jumps).
  t.equal(withinDailyLimit(from, [iso(H)], 1).toISOString(), iso(25 * H + 1000), 'an attempt stamped later (the clock went back) still counts')
})

const ISSUE_EXAMPLE = `10m call; 25m text "Hi {first_name}, it's {business} about your request. Reply STOP to opt out."; 1h call; next-day 10:00 call; max 3 calls per 24h`
const ISSUE_CANONICAL = `10m, 25m text "Hi {first_name}, it's {business} about your request. Reply STOP to opt out.", 1h, next-day 10:00; max 3 per 24h`

t.test('text steps: a time, then text and the message in double quotes; a step without a kind is a call', async (t) => {
  const policy = parseFollowUpPolicy(ISSUE_EXAMPLE)
  t.same(policy, {
    steps: [
      { kind: 'delay', seconds: 600 },
      { kind: 'delay', seconds: 1500, text: "Hi {first_name}, it's {business} about your request. Reply STOP to opt out." },
      { kind: 'delay', seconds: 3600 },
      { kind: 'next-day', minutes: 600 },
    ],
    maxPer24h: 3,
  })
  t.notOk('text' in (policy.steps[0] as object), 'a call step carries no text')
  t.equal(formatFollowUpPolicy(policy), ISSUE_CANONICAL, 'shown back with the older spelling: calls without a kind, "max N per 24h"')
  t.same(parseFollowUpPolicy(ISSUE_CANONICAL), policy, 'the canonical form reads back as the same policy')
})

t.test('text steps: spellings and their canonical form (round trips)', async (t) => {
  const table: Array<[string, string]> = [
    [ISSUE_EXAMPLE, ISSUE_CANONICAL],
    ['10m CALL, 1H Call', '10m, 1h; max 3 per 24h'],
    ['10m; 1h; max 4 per 24h', '10m, 1h; max 4 per 24h'],
    ['5m text "Hi {first_name}"', '5m text "Hi {first_name}"; max 3 per 24h'],
    ['5m TEXT "Keep THIS case, and; these, separators"', '5m text "Keep THIS case, and; these, separators"; max 3 per 24h'],
    ['next-day 9:00   text   "Good morning from {business}!"', 'next-day 09:00 text "Good morning from {business}!"; max 3 per 24h'],
    ['2h text "She said \\"call me\\" at {callback_number}", 1d', '2h text "She said \\"call me\\" at {callback_number}", 1d; max 3 per 24h'],
    ['30s text "a back\\\\slash"', '30s text "a back\\\\slash"; max 3 per 24h'],
    ['30s text "  spaces kept  "', '30s text "  spaces kept  "; max 3 per 24h'],
    ['10m, 25m text "x"; max 2 calls per 24h', '10m, 25m text "x"; max 2 per 24h'],
  ]
  roundTrips(t, table)
  t.equal(parseFollowUpPolicy('2h text "She said \\"call me\\""').steps[0]?.text, 'She said "call me"', 'escapes are read')
  t.equal(parseFollowUpPolicy('30s text "a back\\\\slash"').steps[0]?.text, 'a back\\slash')
})

t.test('every policy accepted before text steps reads and prints as it did', async (t) => {
  // Stored in accounts and shown in the docs: each must keep its meaning and its canonical form.
  const stored = ['10m, 1h, next-day 10:00; max 3 per 24h', '5m, 30m, next-day 09:30; max 4 per 24h', '30s, 30s, 30s; max 3 per 24h', '1m, 2h, 2d; max 3 per 24h', 'off']
  for (const spec of stored) t.equal(normaliseFollowUpPolicy(spec), spec, spec)
  t.same(parseFollowUpPolicy('5m, 30m').steps.map((s) => 'text' in s), [false, false], 'no step of an old policy is a text')
})

t.test('text steps: refusals name the problem (invalid_follow_up)', async (t) => {
  const long = 'x'.repeat(MAX_FOLLOW_UP_TEXT + 1)
  const table: Array<[string, RegExp]> = [
    ['10m, 25m text "Hi {name}"', /text step 2: unknown placeholder \{name\} \(use \{first_name\}, \{business\}, \{callback_number\}\)/],
    ['10m text "Hi {first_name}', /unterminated quote: the text after "10m text" has no closing "/],
    ['10m text "She said \\"hi\\"', /unterminated quote/],
    ['10m text ""', /text step 1: must not be empty/],
    ['10m text "   "', /text step 1: must not be empty/],
    [`10m text "${long}"`, new RegExp(`text step 1: must be at most ${MAX_FOLLOW_UP_TEXT} characters`)],
    [`10m text "${'x'.repeat(MAX_FOLLOW_UP_TEXT)}"`, /^$/],
    ['10m text', /step 1 "10m text": a text step needs its message in double quotes/],
    ['10m text Hi there', /unknown step "10m text hi there"/],
    ['10m "Hi"', /a quoted text must follow "text"/],
    ['10m call "Hi"', /a quoted text must follow "text"/],
    ['10m text "Hi" please', /step 1: unexpected "please" after the text's closing quote/],
    ['10m text "Hi" "again"', /a step holds one quoted text/],
    ['10m text "line\none"', /must be one line/],
    ['text "Hi"', /step 1: a text step starts with its time/],
    ['10 minutes text "Hi"', /unknown step "10 minutes"/],
    ['5s text "Hi"', /between 30s and 30d/],
    [Array.from({ length: 11 }, (_, i) => (i % 2 === 0 ? '10m' : '10m text "Hi"')).join('; '), /at most 10 steps/],
    ['max 3 per 24h', /no steps/],
  ]
  for (const [spec, message] of table) {
    if (message.source === '^$') {
      t.doesNotThrow(() => parseFollowUpPolicy(spec), 'exactly the most characters is fine')
      continue
    }
    t.throws(() => parseFollowUpPolicy(spec), { name: 'DomainError', code: 'invalid_follow_up', message }, JSON.stringify(spec))
  }
})
