import t from 'tap'
import {
  ageOn,
  MAX_PLAUSIBLE_AGE,
  parseDateInput,
  parseIsoDate,
  zoneOrUtc,
} from '../../../../src/domain/lead/intake/dates.ts'

const NOW = new Date('2025-06-01T18:00:00Z')
const LA = { now: NOW, timeZone: 'America/Los_Angeles' }

t.test('every accepted spelling of March 15, 1980', async (t) => {
  const inputs = [
    '1980-03-15',
    '1980-3-15',
    '1980/03/15',
    '03/15/1980',
    '3/15/1980',
    '3-15-1980',
    '3/15/80',
    '03/15/80',
    '3-15-80',
    '19800315',
    '1980-03-15T00:00:00Z',
    '1980-03-15T00:00:00.000Z',
    '1980-03-15T00:00:00-05:00',
    '1980-03-15T23:30:00+14:00',
    '1980-03-15T12:00',
    '1980-03-15 12:00:00',
    'March 15, 1980',
    'March 15 1980',
    'march 15, 1980',
    'MARCH 15, 1980',
    'Mar 15 1980',
    'Mar 15, 1980',
    'Mar. 15, 1980',
    'mar 15th, 1980',
    '15 March 1980',
    '15 Mar 1980',
    '15th March 1980',
    '15 march, 1980',
    '  March   15 ,  1980 ',
    '15/03/1980', // day-first, only because month 15 is impossible
    '15/03/80',
  ]
  for (const input of inputs) t.equal(parseIsoDate(input, NOW, 'America/Los_Angeles'), '1980-03-15', JSON.stringify(input))
  t.equal(parseIsoDate('Sept 15 1980', NOW), '1980-09-15', 'Sept')
  t.equal(parseIsoDate('Sep 15 1980', NOW), '1980-09-15', 'Sep')
})

t.test("when both readings are possible, the account's country decides: month first in the US, day first in most of the world", async (t) => {
  t.equal(parseIsoDate('03/04/1980', NOW), '1980-03-04', 'no country: the US reading')
  t.equal(parseIsoDate('3/4/80', NOW), '1980-03-04')
  const read = (text: string, defaultCountry: string) => parseDateInput(text, { ...LA, defaultCountry })?.date ?? null
  for (const country of ['US', 'us', 'CA', 'PR', 'PH']) {
    t.equal(read('03/04/1980', country), '1980-03-04', `${country}: March 4`)
    t.equal(read('3-4-80', country), '1980-03-04', `${country}: two-digit year, March 4`)
  }
  for (const country of ['GB', 'IE', 'AU', 'NZ', 'DE', 'FR', 'IN', 'ZA', 'MX', 'BR']) {
    t.equal(read('03/04/1980', country), '1980-04-03', `${country}: 3 April`)
    t.equal(read('3-4-80', country), '1980-04-03', `${country}: two-digit year, 3 April`)
  }
  // The other order still reads a date that is impossible in the country's own.
  t.equal(read('03/15/1980', 'GB'), '1980-03-15', 'GB: month 15 is impossible, so March 15')
  t.equal(read('3/15/80', 'GB'), '1980-03-15')
  t.equal(read('15/03/1980', 'US'), '1980-03-15')
  // Unambiguous forms read the same everywhere.
  for (const country of ['US', 'GB']) {
    for (const text of ['1980-04-03', 'April 3, 1980', '3 April 1980', '19800403']) t.equal(read(text, country), '1980-04-03', `${country}: ${text}`)
    t.equal(read('03.04.1980', country), '1980-04-03', `${country}: a dotted date is day first`)
    t.equal(read('15.3.1980', country), '1980-03-15')
  }
  t.equal(read('13.13.1980', 'GB'), null, 'no month 13 either way')
})

t.test('two-digit years: the most recent date not after today', async (t) => {
  // NOW is 2025-06-01 (UTC and Los Angeles alike).
  const cases: Array<[string, string | null]> = [
    ['3/15/80', '1980-03-15'],
    ['3/15/25', '2025-03-15'],
    ['6/1/25', '2025-06-01'], // today
    ['6/2/25', '1925-06-02'], // tomorrow would be in the future
    ['12/31/25', '1925-12-31'],
    ['1/1/00', '2000-01-01'],
    ['12/31/99', '1999-12-31'],
    ['2/29/00', '2000-02-29'],
    ['2/29/24', '2024-02-29'],
    ['2/29/28', '1928-02-29'],
    ['2/29/01', null], // neither 2001 nor 1901 is a leap year
    ['13/13/80', null],
  ]
  for (const [input, expected] of cases) t.equal(parseIsoDate(input, NOW), expected, input)
  // Feb 29 that exists only in the previous century.
  t.equal(parseIsoDate('2/29/00', new Date('2150-01-01T00:00:00Z')), '2000-02-29', 'in 2150, 2100 has no Feb 29')
})

t.test('two-digit years read "today" in the account zone', async (t) => {
  // 2025-06-01T05:00Z is June 1 in Auckland but still May 31 in Los Angeles.
  const now = new Date('2025-06-01T05:00:00Z')
  t.equal(parseIsoDate('6/1/25', now, 'Pacific/Auckland'), '2025-06-01')
  t.equal(parseIsoDate('6/1/25', now, 'America/Los_Angeles'), '1925-06-01')
})

t.test('not dates', async (t) => {
  const inputs = [
    '', '   ', 'not a date', 'yesterday', '1980', '1980-03', '2/30/1980', '1980-02-30', '3/15/19800',
    '31/31/1980', 'Smarch 15 1980', '2024-13-01T10:00:00', '1980-03-15T10:00:00 bogus', 'x'.repeat(65),
    `March${' '.repeat(60)}15 1980`, // would parse but for its length
  ]
  for (const input of inputs) t.equal(parseDateInput(input, LA), null, JSON.stringify(input))
})

t.test('date-times keep their time and offset', async (t) => {
  const cases: Array<[string, string, string | null]> = [
    ['1980-03-15T00:00:00Z', '1980-03-15', '1980-03-15T00:00:00Z'],
    ['1980-03-15T00:00:00-05:00', '1980-03-15', '1980-03-15T00:00:00-05:00'],
    ['2024-05-01T10:00:00.250+02:00', '2024-05-01', '2024-05-01T10:00:00.250+02:00'],
    // No offset: the account's zone.
    ['2024-05-01 14:23:11', '2024-05-01', '2024-05-01T14:23:11-07:00'],
    ['2024-01-15T09:00', '2024-01-15', '2024-01-15T09:00:00-08:00'],
    ['5/1/2024 2:23 PM', '2024-05-01', '2024-05-01T14:23:00-07:00'],
    ['5/1/2024 2:23:45 pm', '2024-05-01', '2024-05-01T14:23:45-07:00'],
    ['5/1/2024 12:05 AM', '2024-05-01', '2024-05-01T00:05:00-07:00'],
    ['5/1/2024 12:05 p.m.', '2024-05-01', '2024-05-01T12:05:00-07:00'],
    ['5/1/2024 7:05a', '2024-05-01', '2024-05-01T07:05:00-07:00'],
    ['5/1/2024 17:30', '2024-05-01', '2024-05-01T17:30:00-07:00'],
    ['May 1, 2024 at 9:30', '2024-05-01', '2024-05-01T09:30:00-07:00'],
    ['5/1/24 9:30', '2024-05-01', '2024-05-01T09:30:00-07:00'],
    ['2024-05-01', '2024-05-01', null],
  ]
  for (const [input, date, dateTime] of cases) t.same(parseDateInput(input, LA), { date, dateTime }, input)
})

t.test('impossible clock times are not date-times', async (t) => {
  for (const input of ['5/1/2024 13:00 PM', '5/1/2024 0:30 AM', '5/1/2024 24:00', '5/1/2024 10:61', '5/1/2024 10:30:61', '2024-05-01T25:00']) {
    t.equal(parseDateInput(input, LA), null, input)
  }
})

t.test('an unknown zone falls back to UTC rather than throwing', async (t) => {
  t.equal(zoneOrUtc('Not/A_Zone'), 'UTC')
  t.equal(zoneOrUtc('Pacific/Auckland'), 'Pacific/Auckland')
  t.same(parseDateInput('2024-05-01 10:00', { now: NOW, timeZone: 'Not/A_Zone' }), { date: '2024-05-01', dateTime: '2024-05-01T10:00:00Z' })
  t.same(ageOn('1980-03-15', NOW, 'Not/A_Zone'), { ok: true, age: 45 })
})

t.test('ageOn: whole years around a birthday', async (t) => {
  const at = (iso: string) => new Date(iso)
  t.same(ageOn('1980-06-01', at('2025-05-31T12:00:00Z'), 'UTC'), { ok: true, age: 44 }, 'day before')
  t.same(ageOn('1980-06-01', at('2025-06-01T12:00:00Z'), 'UTC'), { ok: true, age: 45 }, 'on the day')
  t.same(ageOn('1980-06-01', at('2025-06-02T12:00:00Z'), 'UTC'), { ok: true, age: 45 }, 'day after')
  t.same(ageOn('1980-12-31', at('2025-01-01T12:00:00Z'), 'UTC'), { ok: true, age: 44 }, 'new year')
  t.same(ageOn('2025-06-01', at('2025-06-01T12:00:00Z'), 'UTC'), { ok: true, age: 0 }, 'born today')
})

t.test('ageOn: leap-day birthdays fall on March 1 in non-leap years', async (t) => {
  const ages = (dates: string[]) => dates.map((d) => ageOn('2000-02-29', new Date(`${d}T12:00:00Z`), 'UTC'))
  t.same(ages(['2023-02-28', '2023-03-01', '2024-02-28', '2024-02-29', '2024-03-01', '2100-02-28', '2100-03-01']), [
    { ok: true, age: 22 },
    { ok: true, age: 23 },
    { ok: true, age: 23 },
    { ok: true, age: 24 },
    { ok: true, age: 24 },
    { ok: true, age: 99 },
    { ok: true, age: 100 },
  ])
})

t.test('ageOn: today is the account zone\'s date, not the server\'s', async (t) => {
  // 2024-03-15T11:30Z is March 16 00:30 in Auckland (UTC+13) and March 15 04:30 in Los Angeles (UTC-7).
  const now = new Date('2024-03-15T11:30:00Z')
  t.same(ageOn('1980-03-16', now, 'Pacific/Auckland'), { ok: true, age: 44 })
  t.same(ageOn('1980-03-16', now, 'America/Los_Angeles'), { ok: true, age: 43 })
  t.same(ageOn('1980-03-16', now, 'UTC'), { ok: true, age: 43 })
  // Born "today" in Auckland is still a future date in Los Angeles.
  t.same(ageOn('2024-03-16', now, 'Pacific/Auckland'), { ok: true, age: 0 })
  t.match(ageOn('2024-03-16', now, 'America/Los_Angeles'), { ok: false, code: 'dob_in_future' })
})

t.test('ageOn: future and implausible dates are not computed', async (t) => {
  t.match(ageOn('2025-06-02', NOW, 'UTC'), { ok: false, code: 'dob_in_future', message: /2025-06-02 is after today \(2025-06-01\)/ })
  t.match(ageOn('2090-01-01', NOW, 'UTC'), { ok: false, code: 'dob_in_future' })
  t.same(ageOn('1895-06-01', NOW, 'UTC'), { ok: true, age: MAX_PLAUSIBLE_AGE })
  t.match(ageOn('1895-06-02', NOW, 'UTC'), { ok: true, age: 129 })
  t.match(ageOn('1894-06-01', NOW, 'UTC'), { ok: false, code: 'dob_implausible', message: /age 131, over 130/ })
  t.match(ageOn('1880-01-01', NOW, 'UTC'), { ok: false, code: 'dob_implausible' })
})

t.test('ageOn: anything but YYYY-MM-DD is refused', async (t) => {
  for (const input of ['1980-3-5', '1980-02-30', 'March 15 1980', '', '1980-03-15T00:00:00Z']) {
    t.match(ageOn(input, NOW, 'UTC'), { ok: false, code: 'dob_unparseable' }, JSON.stringify(input))
  }
})
