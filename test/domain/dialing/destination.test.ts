/** Where a call may go: each number read once by libphonenumber and remembered, the answer the same on every asking. */
import t from 'tap'
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { checkDestination, isValidNumber, DIALABLE_NUMBER_TYPES } from '../../../src/domain/dialing/destination.ts'

const NUMBERS = [
  '+12125550123', // a US number (fixed line or mobile)
  '+12135551234',
  '+18005551234', // toll free
  '+19005551234', // premium rate
  '+15005551234', // personal
  '+447911123456', // a UK mobile
  '+442079460000', // a London line
  '+88212345678', // not a valid +882 number
  '+870773111632', // Inmarsat: valid, of no country
  '+1212555', // too short
  '+99912345', // no such country code
  '+61412345678', // an Australian mobile
]

t.test('each answer is libphonenumber\'s, the first time and the next', async (t) => {
  for (const allowed of [['US', 'CA'], ['GB'], ['US', 'GB', 'AU']]) {
    for (const e164 of NUMBERS) {
      const parsed = parsePhoneNumberFromString(e164)
      const valid = parsed?.isValid() === true
      const country = valid ? parsed?.country ?? null : null
      const type = valid ? parsed?.getType() ?? null : null
      const expected = !valid ? 'phone_not_valid' : country === null || type === null || !DIALABLE_NUMBER_TYPES.has(type) ? 'number_type_not_allowed' : allowed.includes(country) ? 'allowed' : 'country_not_allowed'
      for (const asking of ['first', 'again']) {
        const check = checkDestination(e164, allowed)
        t.equal(check.allowed ? 'allowed' : check.reason, expected, `${e164} in ${allowed.join('/')} (${asking})`)
        t.equal(check.country, check.allowed || check.reason !== 'phone_not_valid' ? country : null)
        t.equal(isValidNumber(e164), valid)
      }
    }
  }
  // Known answers, not only libphonenumber's read back.
  t.match(checkDestination('+12125550123', ['US']), { allowed: true, country: 'US' })
  t.match(checkDestination('+442079460000', ['US', 'CA']), { allowed: false, reason: 'country_not_allowed', country: 'GB', numberType: 'FIXED_LINE' })
  t.match(checkDestination('+19005551234', ['US']), { allowed: false, reason: 'number_type_not_allowed', numberType: 'PREMIUM_RATE' })
  t.match(checkDestination('+1212555', ['US']), { allowed: false, reason: 'phone_not_valid', country: null })
  t.equal(isValidNumber('+1212555'), false)
  const network = checkDestination('+870773111632', ['US'])
  t.match(network, { allowed: false, reason: 'number_type_not_allowed', message: /\+870: satellite, network or premium service/ }, 'the calling code named in the refusal')
})
