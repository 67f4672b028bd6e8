import t from 'tap'
import { IANAZone } from 'luxon'
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { NANP_AREA_CODE_GROUPS } from '../../../src/domain/dialing/nanp-area-code-zones.ts'
import { STATE_TIME_ZONES } from '../../../src/domain/dialing/lead-time-zone.ts'

const US_TERRITORIES = new Set(['PR', 'VI', 'GU', 'MP', 'AS'])

t.test('each area code is three NANP digits and listed once', async (t) => {
  const seen = new Map<string, string>()
  for (const group of NANP_AREA_CODE_GROUPS) {
    for (const code of group.codes) {
      t.match(code, /^[2-9]\d{2}$/, `${group.region} ${code}`)
      t.notOk(seen.has(code), `${code} in ${group.region} and ${seen.get(code) ?? ''}`)
      seen.set(code, group.region)
    }
  }
  t.ok(seen.size > 400, `a full table, not a sample (${seen.size} codes)`)
})

t.test('every zone is a valid IANA zone', async (t) => {
  for (const group of NANP_AREA_CODE_GROUPS) t.ok(IANAZone.isValidZone(group.zone), `${group.region} ${group.zone}`)
})

t.test("a US group's zone is its state's, unless a note says why not", async (t) => {
  for (const group of NANP_AREA_CODE_GROUPS.filter((g) => g.region.startsWith('US-'))) {
    const stateZone = STATE_TIME_ZONES[group.region.slice(3)]
    if (group.note === undefined) t.equal(group.zone, stateZone, group.region)
    else t.not(group.zone, stateZone, `${group.region} ${group.codes.join(' ')}: the note explains a difference`)
  }
})

// libphonenumber-js knows which country each area code belongs to; a code filed under the wrong
// country (a typo, or a Canadian code in a US state) shows here.
t.test('every code belongs to the country its group says', async (t) => {
  const exchanges = ['2345678', '5551234', '3021234', '4561234', '7001234', '9301234', '2351234', '4601234', '7331234', '2251234', '4911234', '5421234']
  for (const group of NANP_AREA_CODE_GROUPS) {
    const [country, subdivision] = group.region.split('-') as [string, string | undefined]
    const expected = country === 'US' && subdivision !== undefined && US_TERRITORIES.has(subdivision) ? subdivision : country
    for (const code of group.codes) {
      const valid = exchanges.map((rest) => parsePhoneNumberFromString(`+1${code}${rest}`)).find((p) => p?.isValid())
      t.equal(valid?.country, expected, `${code} (${group.region})`)
    }
  }
})
