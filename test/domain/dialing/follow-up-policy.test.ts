/** The follow-up policy: its syntax (parse, canonical form, refusals), due times and the rolling daily limit. */
import t from 'tap'
import {
  DEFAULT_FOLLOW_UP, followUpDueAt, formatFollowUpPolicy, normaliseFollowUpPolicy, parseFollowUpPolicy, withinDailyLimit,
} from '../../../src/domain/dialing/follow-up-policy.ts'

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
  for (const [written, stored] of table) {
    t.equal(normaliseFollowUpPolicy(written), stored, written)
    t.equal(normaliseFollowUpPolicy(stored), stored, `${stored} is stable`)
  }
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
    ['10m; max 3 per 24h; again', /only one ";"/],
    [Array.from({ length: 11 }, () => '10m').join(', '), /at most 10 steps/],
    ['-5m', /unknown step/],
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
