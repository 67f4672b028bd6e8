import t from 'tap'
import { formatCallingHours, normaliseCallingHours, parseCallingHours } from '../../../src/domain/account/calling-hours.ts'

t.test('specs parse into windows and print back canonically', async (t) => {
  const cases: Array<[string, string]> = [
    ['mon-fri 09:00-18:00', 'mon-fri 09:00-18:00'],
    ['MON-FRI 9:00-18:00, sat 10:00-14:00', 'mon-fri 09:00-18:00, sat 10:00-14:00'],
    ['monday-friday 09:00-17:00', 'mon-fri 09:00-17:00'],
    ['mon-sun 00:00-24:00', 'mon-sun 00:00-24:00'],
    ['fri-mon 08:00-20:00', 'mon+fri-sun 08:00-20:00'],
    ['mon+wed+fri 08:00-12:00', 'mon+wed+fri 08:00-12:00'],
    ['fri 22:00-02:00', 'fri 22:00-02:00'],
    ['  None ', 'none'],
  ]
  for (const [spec, canonical] of cases) t.equal(normaliseCallingHours(spec), canonical, spec)
  t.same(parseCallingHours('sat-sun 22:30-01:15'), [{ days: [6, 7], start: 22 * 60 + 30, end: 75 }])
  t.same(parseCallingHours('tue 00:00-24:00'), [{ days: [2], start: 0, end: 1440 }])
  t.same(parseCallingHours('none'), [])
  t.equal(formatCallingHours([]), 'none')
})

t.test('bad specs are refused with the reason', async (t) => {
  const bad: Array<[string, RegExp]> = [
    ['', /empty/],
    ['mon 10:00-10:00', /is empty/],
    ['xyz 09:00-10:00', /unknown day "xyz"/],
    ['monx 09:00-10:00', /unknown day/],
    ['mon 25:00-26:00', /bad time "25:00"/],
    ['mon 09:60-10:00', /bad time/],
    ['mon 24:00-10:00', /bad time/],
    ['mon 9-10', /bad time "9"/],
    ['09:00-18:00', /is not "DAYS HH:MM-HH:MM"/],
    ['mon-tue-wed 09:00-10:00', /bad day range/],
    ['-mon 09:00-10:00', /bad day range/],
    ['mon 09:00-18:00,', /is not "DAYS/],
  ]
  for (const [spec, message] of bad) {
    t.throws(() => parseCallingHours(spec), { code: 'invalid_calling_hours', message }, spec)
  }
})
