import t from 'tap'
import fc from 'fast-check'
import {
  normalizePhone,
  PHONE_REQUIRED_MESSAGE,
  phoneIdentity,
  resolveCountry,
} from '../../../../src/domain/lead/intake/phone.ts'
import type { PhoneResult } from '../../../../src/domain/lead/intake/phone.ts'
import type { Test } from 'tap'

function expectOk(t: Test, result: PhoneResult, e164: string, last10: string, label: string): void {
  if (!result.ok) {
    t.fail(`${label}: expected ok, got ${result.error.code}: ${result.error.message}`)
    return
  }
  t.equal(result.phone.e164, e164, `${label}: e164`)
  t.equal(result.phone.last10, last10, `${label}: last10`)
}

t.test('US formats all normalise to one E.164 and one identity key', async (t) => {
  const inputs: unknown[] = [
    '(555) 123-4567',
    '555.123.4567',
    '555-123-4567',
    '5551234567',
    '+1 555 123 4567',
    '+1 (555) 123-4567',
    '1-555-123-4567',
    '1 555 123 4567',
    '15551234567',
    ' 555 123 4567 ',
    'tel: 555-123-4567',
    '555/123/4567',
    5551234567,
    15551234567,
    ['5551234567'],
    ['', null, '  ', '(555) 123-4567'],
    [['', 5551234567]],
  ]
  for (const input of inputs) {
    expectOk(t, normalizePhone(input, 'US'), '+15551234567', '5551234567', JSON.stringify(input))
  }
})

t.test('raw is the value as received, stringified', async (t) => {
  const cases: Array<[unknown, string]> = [
    [' (555) 123-4567 ', ' (555) 123-4567 '],
    [5551234567, '5551234567'],
    [['', '555.123.4567'], '555.123.4567'],
  ]
  for (const [input, raw] of cases) {
    const result = normalizePhone(input)
    t.equal(result.ok && result.phone.raw, raw, JSON.stringify(input))
  }
})

t.test('default country is US', async (t) => {
  expectOk(t, normalizePhone('212 555 1234'), '+12125551234', '2125551234', 'no country')
})

t.test('extensions are not part of the identity key', async (t) => {
  for (const input of ['555-123-4567 x89', '555-123-4567 ext. 89', '555-123-4567 Ext 89', '555-123-4567 extension: 89', '555-123-4567 #89', '(555) 123-4567x89']) {
    expectOk(t, normalizePhone(input, 'US'), '+15551234567', '5551234567', input)
  }
  // Ten digits after an x are a number, not an extension.
  expectOk(t, normalizePhone('x5551234567', 'US'), '+15551234567', '5551234567', 'leading x')
})

t.test('international numbers', async (t) => {
  expectOk(t, normalizePhone('+44 20 7946 0958', 'US'), '+442079460958', '2079460958', '+44 with US default')
  expectOk(t, normalizePhone('020 7946 0958', 'GB'), '+442079460958', '2079460958', 'GB national')
  expectOk(t, normalizePhone('020 7946 0958', 'gb'), '+442079460958', '2079460958', 'lowercase country')
  expectOk(t, normalizePhone('011 44 20 7946 0958', 'US'), '+442079460958', '2079460958', 'US international prefix')
  expectOk(t, normalizePhone('+44 20 7946 0958 x12', 'US'), '+442079460958', '2079460958', 'international with extension')
  // Same person, different formatting: identity keys agree.
  const keys = ['+44 20 7946 0958', '020 7946 0958', '0044 20 7946 0958'].map((p) => phoneIdentity(p))
  t.same(keys, ['2079460958', '2079460958', '2079460958'])
})

t.test('without + or an international prefix, a number is read in the account country only (issue #24)', async (t) => {
  // Each of these was stored as a valid Dutch (+31) number and dialed: its digits, read as international.
  const sloppy: Array<[unknown, string, string]> = [
    ['312-555-0142 (cell) 2', '+131255501422', 'a note and a stray digit after the number'],
    ['312.555.0143.5', '+131255501435', 'a trailing digit'],
    [3125550144.5, '+131255501445', 'a JSON number with a fraction'],
  ]
  for (const [input, e164, label] of sloppy) {
    const result = normalizePhone(input, 'US')
    t.ok(result.ok, `${label}: still a lead`)
    if (!result.ok) continue
    t.equal(result.phone.e164, e164, `${label}: read in the US, never as +31`)
    t.equal(result.phone.valid, false, `${label}: not valid`)
  }
  // A JSON number is digits only when it is whole: 3125550.142 would otherwise be a valid Chicago number.
  const fraction = normalizePhone(3125550.142, 'US')
  t.equal(fraction.ok && fraction.phone.valid, false, 'a JSON number with a fraction is never valid')
  const whole = normalizePhone(3125550142, 'US')
  t.equal(whole.ok && whole.phone.valid, true, 'a whole JSON number is its digits')
  // Ten North American digits sent to a French account are read as French, and are no French number.
  const inFrance = normalizePhone('212-555-1234', 'FR')
  t.equal(inFrance.ok && inFrance.phone.e164.startsWith('+33'), true, 'NANP digits under FR are read in France')
  t.equal(inFrance.ok && inFrance.phone.valid, false, 'and are not valid there')
  // Eleven to fifteen digits without + are not taken as international.
  const digits = normalizePhone('44 20 7946 0958', 'US')
  t.equal(digits.ok && digits.phone.valid, false, '44 20 7946 0958 without + is no US number')
  t.not(digits.ok && digits.phone.e164, '+442079460958', 'and never a UK one')
})

t.test('with + or an international prefix, the number is read in the country it names', async (t) => {
  for (const input of ['+44 20 7946 0958', '011 44 20 7946 0958', '0044 20 7946 0958']) {
    const result = normalizePhone(input, 'US')
    expectOk(t, result, '+442079460958', '2079460958', input)
    t.equal(result.ok && result.phone.valid, true, `${input}: valid`)
  }
  const odd = normalizePhone('+1 555 123 45678', 'US')
  expectOk(t, odd, '+155512345678', '5512345678', '+ with an odd length: read as written')
  t.equal(odd.ok && odd.phone.valid, false, 'and not valid')
  expectOk(t, normalizePhone('+999 1234 567 890', 'US'), '+9991234567890', '1234567890', 'an unknown country code: digits as sent, not valid')
})

t.test('extensions are kept apart, never dialed as digits', async (t) => {
  const cases: Array<[string, string]> = [
    ['312-555-0142 x123', '123'],
    ['312-555-0142 ext. 4', '4'],
    ['(312) 555-0142 extension: 89', '89'],
    ['312 555 0142 #12', '12'],
  ]
  for (const [input, extension] of cases) {
    const result = normalizePhone(input, 'US')
    expectOk(t, result, '+13125550142', '3125550142', input)
    if (result.ok) t.same([result.phone.valid, result.phone.extension], [true, extension], `${input}: valid, extension ${extension}`)
  }
  const none = normalizePhone('(312) 555-0142', 'US')
  t.equal(none.ok && none.phone.extension, undefined, 'no extension when none was written')
})

t.test('valid: whether libphonenumber reads a valid number', async (t) => {
  const cases: Array<[string, string, string, boolean, string]> = [
    ['(312) 555-0142', 'US', '+13125550142', true, 'a Chicago number, US account'],
    ['020 7946 0958', 'GB', '+442079460958', true, 'UK national form'],
    ['+44 20 7946 0958', 'US', '+442079460958', true, 'international'],
    ['06 12 34 56 78', 'FR', '+33612345678', true, 'French mobile'],
    ['0000000000', 'US', '+10000000000', false, 'zeros'],
    ['155-123-4567', 'US', '+11551234567', false, 'area code starting 1'],
    ['555-123-4567', 'US', '+15551234567', false, 'no area code 555'],
  ]
  for (const [input, country, e164, valid, label] of cases) {
    const result = normalizePhone(input, country)
    expectOk(t, result, e164, input.replace(/\D/g, '').slice(-10), label)
    if (result.ok) t.equal(result.phone.valid, valid, `${label}: valid ${valid}`)
  }
})

t.test("a number valid in the account's country wins; one that is not stays there", async (t) => {
  // 2079460958 is a London number without its 0 and also NANP-shaped: the GB reading is valid, so it wins.
  expectOk(t, normalizePhone('2079460958', 'GB'), '+442079460958', '2079460958', 'GB number without its 0')
  // 312 555 0142 is no GB number: kept as read in GB, not valid, never turned North American.
  const chicago = normalizePhone('(312) 555-0142', 'GB')
  expectOk(t, chicago, '+443125550142', '3125550142', 'a Chicago number sent to a GB account without +1')
  if (chicago.ok) t.equal(chicago.phone.valid, false)
  const plus = normalizePhone('+44 312 555 0142', 'GB')
  expectOk(t, plus, '+443125550142', '3125550142', 'a + number is read as sent')
  if (plus.ok) t.equal(plus.phone.valid, false, 'and flagged, since GB has no such number')
})

t.test('an unknown account country falls back to US', async (t) => {
  t.equal(resolveCountry('XX'), 'US')
  t.equal(resolveCountry(''), 'US')
  t.equal(resolveCountry(' ca '), 'CA')
  expectOk(t, normalizePhone('555 123 4567', 'XX'), '+15551234567', '5551234567', 'XX')
})

t.test('missing phones are phone_required with the spec message', async (t) => {
  for (const input of [undefined, null, '', '   ', '\t\n', [], ['', null], [[]]]) {
    t.same(normalizePhone(input, 'US'), { ok: false, error: { code: 'phone_required', message: 'phone required' } }, JSON.stringify(input))
  }
  t.equal(PHONE_REQUIRED_MESSAGE, 'phone required')
})

t.test('unusable phones are phone_invalid with a clear message', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    ['555-123-456', /at least 10 digits; received 9/],
    [555123456, /received 9/],
    ['abc', /received 0 in "abc"/],
    ['1-800-FLOWERS', /received 4/],
    ['555-CALL-NOW', /received 3/],
    [true, /received 0/],
    [{ number: '5551234567' }, /not an object/],
    [[{ number: '5551234567' }], /not an object/],
    ['1234567890123456', /cannot be read as a dialable number/],
    ['x'.repeat(100), /received 0 in "x{40}…"/],
  ]
  for (const [input, message] of cases) {
    const result = normalizePhone(input, 'US')
    t.equal(result.ok, false, JSON.stringify(input))
    if (!result.ok) {
      t.equal(result.error.code, 'phone_invalid', JSON.stringify(input))
      t.match(result.error.message, message, JSON.stringify(input))
    }
  }
})

t.test('phoneIdentity: last ten digits, or undefined', async (t) => {
  t.equal(phoneIdentity('+1 (555) 123-4567'), '5551234567')
  t.equal(phoneIdentity(15551234567), '5551234567')
  t.equal(phoneIdentity('555-123-4567 ext 9'), '5551234567')
  t.equal(phoneIdentity('555-1234'), undefined)
  t.equal(phoneIdentity(''), undefined)
  t.equal(phoneIdentity({}), undefined)
})

// No stopwatch (a loaded machine slows everything): the input is made so large that a regex retrying from
// every mark (quadratic) would run for hours, so the test's time limit fails it; linear, it takes milliseconds.
t.test('a hostile extension-like value is handled in linear time', { timeout: 60_000 }, async (t) => {
  const hostile = `5551234567${'x '.repeat(200_000)}${' '.repeat(200_000)}`
  const result = normalizePhone(hostile, 'US')
  t.equal(result.ok && result.phone.last10, '5551234567')
})

t.test('property: any formatting of a NANP number keys and dials the same', async (t) => {
  const separators = fc.constantFrom('', ' ', '-', '.', '  ', ' - ', '/')
  const prefix = fc.constantFrom('', '1', '+1', '+1 ', '1-', '1 ')
  const nanp = fc.tuple(
    fc.integer({ min: 2, max: 9 }),
    fc.integer({ min: 0, max: 99 }),
    fc.integer({ min: 2, max: 9 }),
    fc.integer({ min: 0, max: 999_999 }),
  ).map(([a, b, c, d]) => `${a}${String(b).padStart(2, '0')}${c}${String(d).padStart(6, '0')}`)
  fc.assert(
    fc.property(nanp, prefix, separators, separators, fc.boolean(), (digits, pre, s1, s2, parens) => {
      const area = parens ? `(${digits.slice(0, 3)})` : digits.slice(0, 3)
      const formatted = `${pre}${area}${s1}${digits.slice(3, 6)}${s2}${digits.slice(6)}`
      const result = normalizePhone(formatted, 'US')
      return result.ok && result.phone.last10 === digits && result.phone.e164 === `+1${digits}`
    }),
    { numRuns: 500 },
  )
  t.pass('500 formatted numbers agreed')
})

t.test('property: never throws, whatever the value', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.constantFrom('US', 'GB', 'FR', 'XX', ''), (value, country) => {
      const result = normalizePhone(value, country)
      return result.ok ? /^\+\d{8,15}$/.test(result.phone.e164) && /^\d{10}$/.test(result.phone.last10) : result.error.message.length > 0
    }),
    { numRuns: 1000 },
  )
  t.pass('1000 arbitrary values handled')
})

t.test('ten plain digits in a +1 country read exactly as libphonenumber reads them', async (t) => {
  const { parsePhoneNumberFromString } = await import('libphonenumber-js')
  const line = fc
    .tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 9999 }))
    .map(([area, exchange, subscriber]) => `${area}${String(exchange).padStart(3, '0')}${String(subscriber).padStart(4, '0')}`)
  fc.assert(
    fc.property(line, fc.constantFrom('US' as const, 'CA' as const), (digits, country) => {
      const parsed = parsePhoneNumberFromString(digits, { defaultCountry: country })
      const expected = parsed !== undefined && parsed.isPossible() ? parsed.number : `+1${digits}`
      const result = normalizePhone(digits, country)
      return result.ok && result.phone.e164 === expected && result.phone.last10 === digits
    }),
    { numRuns: 3000 },
  )
  expectOk(t, normalizePhone('2100000001', 'US'), '+12100000001', '2100000001', 'an exchange NANP does not assign')
  expectOk(t, normalizePhone('4165550123', 'CA'), '+14165550123', '4165550123', 'Canada')
})

t.test('ten plain digits in a +1 country are valid exactly when libphonenumber reads them as valid in that country', async (t) => {
  const { parsePhoneNumberFromString } = await import('libphonenumber-js/max')
  const line = fc
    .tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 9999 }))
    .map(([area, exchange, subscriber]) => `${area}${String(exchange).padStart(3, '0')}${String(subscriber).padStart(4, '0')}`)
  fc.assert(
    fc.property(line, fc.constantFrom('US' as const, 'CA' as const), (digits, country) => {
      const result = normalizePhone(digits, country)
      return result.ok && result.phone.valid === (parsePhoneNumberFromString(digits, { defaultCountry: country })?.isValid() === true)
    }),
    { numRuns: 3000 },
  )
  t.pass('3000 ten-digit lines agreed')
})
