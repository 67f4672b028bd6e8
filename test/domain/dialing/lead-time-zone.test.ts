import t from 'tap'
import { IANAZone } from 'luxon'
import { leadTimeZone, SINGLE_ZONE_COUNTRIES, STATE_TIME_ZONES } from '../../../src/domain/dialing/lead-time-zone.ts'

t.test('a state places the lead by code or name, in any case', async (t) => {
  const cases: Array<[string, string]> = [
    ['HI', 'Pacific/Honolulu'],
    ['hi', 'Pacific/Honolulu'],
    ['Hawaii', 'Pacific/Honolulu'],
    ['HAWAII', 'Pacific/Honolulu'],
    [' new  york ', 'America/New_York'],
    ['CA', 'America/Los_Angeles'],
    ['california', 'America/Los_Angeles'],
    ['Colorado', 'America/Denver'],
    ['District of Columbia', 'America/New_York'],
    ['dc', 'America/New_York'],
    ['Puerto Rico', 'America/Puerto_Rico'],
    ['GU', 'Pacific/Guam'],
    ['U.S. Virgin Islands', 'America/St_Thomas'],
    ['American Samoa', 'Pacific/Pago_Pago'],
    ['Northern Mariana Islands', 'Pacific/Saipan'],
  ]
  for (const [state, zone] of cases) {
    t.same(leadTimeZone({ state }), { zone, from: 'state' }, state)
  }
})

t.test('states spanning two zones take the zone most of their people live in', async (t) => {
  const cases: Array<[string, string]> = [
    ['TX', 'America/Chicago'],
    ['FL', 'America/New_York'],
    ['TN', 'America/Chicago'],
    ['KY', 'America/Kentucky/Louisville'],
    ['IN', 'America/Indiana/Indianapolis'],
    ['ID', 'America/Boise'],
    ['OR', 'America/Los_Angeles'],
    ['MI', 'America/Detroit'],
    ['AZ', 'America/Phoenix'],
    ['AK', 'America/Anchorage'],
  ]
  for (const [state, zone] of cases) t.equal(leadTimeZone({ state })?.zone, zone, state)
})

t.test('every state, DC and territory has a valid IANA zone', async (t) => {
  t.equal(Object.keys(STATE_TIME_ZONES).length, 50 + 1 + 5)
  for (const [state, zone] of Object.entries(STATE_TIME_ZONES)) t.ok(IANAZone.isValidZone(zone), `${state} ${zone}`)
  for (const [country, zone] of Object.entries(SINGLE_ZONE_COUNTRIES)) t.ok(IANAZone.isValidZone(zone), `${country} ${zone}`)
})

t.test('without a known state, the NANP area code places the lead', async (t) => {
  const cases: Array<[string, string]> = [
    ['+12125550123', 'America/New_York'],
    ['+13105550123', 'America/Los_Angeles'],
    ['+18085550123', 'Pacific/Honolulu'],
    ['+19155550123', 'America/Denver'], // El Paso, in Central Texas's state
    ['+18505550123', 'America/Chicago'], // Florida panhandle
    ['+18655550123', 'America/New_York'], // Knoxville, in a Central state
    ['+12195550123', 'America/Chicago'], // Gary, in an Eastern state
    ['+14165550123', 'America/Toronto'],
    ['+16045550123', 'America/Vancouver'],
    ['+13065550123', 'America/Regina'],
    ['+17095550123', 'America/St_Johns'],
    ['+17875550123', 'America/Puerto_Rico'],
    ['+18765550123', 'America/Jamaica'],
    ['+1 (808) 555-0123', 'Pacific/Honolulu'],
  ]
  for (const [phone, zone] of cases) {
    t.same(leadTimeZone({ phone }), { zone, from: 'area_code' }, phone)
    t.same(leadTimeZone({ state: 'Ontario', phone }), { zone, from: 'area_code' }, `${phone} with a state we do not know`)
  }
})

t.test('the state wins over the phone', async (t) => {
  t.same(leadTimeZone({ state: 'NY', phone: '+18085550123' }), { zone: 'America/New_York', from: 'state' })
  t.same(leadTimeZone({ state: 'Hawaii', phone: '+12125550123' }), { zone: 'Pacific/Honolulu', from: 'state' })
})

t.test('numbers outside the NANP place the lead only when their country has one zone', async (t) => {
  const cases: Array<[string, string | null]> = [
    ['+442079460958', 'Europe/London'],
    ['+33142685300', 'Europe/Paris'],
    ['+4930123456', 'Europe/Berlin'],
    ['+81312345678', 'Asia/Tokyo'],
    ['+919812345678', 'Asia/Kolkata'],
    ['+525512345678', null], // Mexico: several zones
    ['+61212345678', null], // Australia: several zones
    ['+79161234567', null], // Russia: many zones
  ]
  for (const [phone, zone] of cases) {
    t.same(leadTimeZone({ phone }), zone === null ? null : { zone, from: 'area_code' }, phone)
  }
})

t.test('nothing to go on gives null', async (t) => {
  const cases: Array<{ state?: string; phone?: string }> = [
    {},
    { state: '' },
    { state: 'Ontario' },
    { state: 'Atlantis' },
    { phone: '' },
    { phone: 'not a number' },
    { phone: '2125550123' }, // not E.164: the country is not ours to guess
    { phone: '+18005550123' }, // toll-free says nothing about place
    { phone: '+18885550123' },
    { phone: '+18675550123' }, // Canada's territories: three zones
    { phone: '+1212555012' }, // too short
  ]
  for (const target of cases) t.equal(leadTimeZone(target), null, JSON.stringify(target))
})
