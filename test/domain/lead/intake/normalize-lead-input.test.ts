import t from 'tap'
import fc from 'fast-check'
import { normalizeLeadInput } from '../../../../src/domain/lead/intake/normalize-lead-input.ts'
import type { IntakeContext, LeadFields, NormalizeResult } from '../../../../src/domain/lead/intake/normalize-lead-input.ts'
import { nameVariants } from './fixtures/name-variants.ts'

const NOW = new Date('2025-06-01T18:00:00Z')
const CTX: IntakeContext = { defaultCountry: 'US', timeZone: 'America/Los_Angeles', industry: null, now: NOW }
const PHONE = '(212) 234-5678'

function accept(t: { fail: (message: string) => unknown }, input: Record<string, unknown>, ctx: Partial<IntakeContext> = {}) {
  const result = normalizeLeadInput(input, { ...CTX, ...ctx })
  if (!result.ok) {
    t.fail(`expected the lead to be accepted: ${result.error.code}`)
    throw new Error(result.error.message)
  }
  return result
}

const codes = (result: { warnings: Array<{ code: string; field: string }> }) => result.warnings.map((w) => `${w.code}:${w.field}`)

t.test('every spec alias, in every spelling, fills its field', async (t) => {
  // [field of LeadFields, aliases, value sent, value expected]
  const table: Array<[keyof LeadFields, string[], unknown, unknown]> = [
    ['fullName', ['name', 'full name', 'fullname', 'full_name', 'lead name', 'contact'], 'Ada Lovelace', 'Ada Lovelace'],
    ['firstName', ['first name', 'first_name', 'firstname', 'first'], 'Ada', 'Ada'],
    ['lastName', ['last name', 'last_name', 'lastname', 'last'], 'Lovelace', 'Lovelace'],
    ['email', ['email', 'email address', 'email_address', 'e-mail'], 'Ada@Example.com', 'ada@example.com'],
    ['state', ['state', 'st'], 'tx', 'TX'],
    ['age', ['age'], '42', 42],
    ['dob', ['dob', 'date of birth', 'date_of_birth', 'birthday', 'birthdate'], '03/15/1980', '1980-03-15'],
    ['source', ['source', 'lead source', 'lead_source', 'campaign'], 'Spring FB', 'Spring FB'],
    ['vendor', ['vendor', 'lead vendor', 'lead_vendor'], 'Acme Leads', 'Acme Leads'],
    ['leadDate', ['lead date', 'lead_date', 'received on', 'date'], '2025-05-30', '2025-05-30'],
    ['doNotCall', ['dnc', 'do not call', 'do_not_call'], 'Yes', true],
    ['city', ['city', 'town'], 'Austin', 'Austin'],
    ['zip', ['zip', 'zip code', 'zipcode', 'postal code', 'postcode', 'zip_code', 'post_code'], '78701', '78701'],
    ['address', ['address', 'street address', 'street'], '12 Main St', '12 Main St'],
  ]
  let checked = 0
  for (const [field, aliases, sent, expected] of table) {
    for (const alias of aliases) {
      for (const variant of nameVariants(alias)) {
        const result = accept(t, { phone: PHONE, [variant]: sent })
        t.equal(result.lead[field], expected, `${JSON.stringify(variant)} → ${field}`)
        t.same(result.lead.extraFields, [], `${JSON.stringify(variant)} is not an extra`)
        checked++
      }
    }
  }
  t.ok(checked > 400, `checked ${checked} spellings`)
})

t.test('every phone alias, in every spelling, is the phone', async (t) => {
  for (const alias of ['phone', 'phone number', 'phone_number', 'mobile', 'cell', 'number']) {
    for (const variant of nameVariants(alias)) {
      const result = accept(t, { [variant]: PHONE })
      t.same(
        [result.lead.phone, result.lead.phoneLast10, result.lead.phoneRaw],
        ['+12122345678', '2122345678', PHONE],
        JSON.stringify(variant),
      )
    }
  }
})

t.test('no usable phone: phone_required, exactly "phone required"', async (t) => {
  const bodies: unknown[] = [
    {},
    { name: 'Ada' },
    { phone: '' },
    { phone: '   ' },
    { phone: null },
    { phone: [] },
    { phone: ['', '  '] },
    { fax: '2122345678', phone4: '2122345678' },
    null,
    [],
    'phone=2122345678',
  ]
  for (const body of bodies) {
    t.same(normalizeLeadInput(body as Record<string, unknown>, CTX), { ok: false, error: { code: 'phone_required', message: 'phone required' } }, JSON.stringify(body))
  }
})

t.test('an unusable phone: phone_invalid', async (t) => {
  const bodies: Array<[Record<string, unknown>, RegExp]> = [
    [{ phone: '555-1234' }, /at least 10 digits/],
    [{ phone: 'call me' }, /received 0/],
    [{ phone: [{ number: '2122345678' }] }, /not an object/],
  ]
  for (const [body, message] of bodies) {
    const result = normalizeLeadInput(body, CTX)
    t.match(result, { ok: false, error: { code: 'phone_invalid', message } }, JSON.stringify(body))
  }
})

t.test('several phones: first non-empty in spec alias order, whatever the body order', async (t) => {
  const numbers: Record<string, string> = {
    number: '212-200-0005',
    cell: '212-200-0004',
    mobile: '212-200-0003',
    phone_number: '212-200-0002',
    phone: '212-200-0001',
  }
  const names = Object.keys(numbers)
  // Drop the best alias one at a time; try every rotation of body order.
  for (let kept = names.length; kept > 0; kept--) {
    const present = names.slice(0, kept)
    const winner = present[present.length - 1] as string
    for (let rotation = 0; rotation < present.length; rotation++) {
      const order = [...present.slice(rotation), ...present.slice(0, rotation)]
      const body = Object.fromEntries(order.map((n) => [n, numbers[n]]))
      const result = accept(t, body)
      t.equal(result.lead.phoneRaw, numbers[winner], `${order.join(',')} → ${winner}`)
      t.same(result.lead.extraFields.map((e) => e.name).sort(), present.filter((n) => n !== winner).sort(), 'losers kept as extras')
    }
  }
  // Empty values are skipped; spellings of one alias go by body order.
  t.equal(accept(t, { phone: '', mobile: '212-200-0003' }).lead.phoneRaw, '212-200-0003')
  t.equal(accept(t, { phone: '  ', Phone: '212-200-0007', PHONE: '212-200-0008' }).lead.phoneRaw, '212-200-0007')
  t.equal(accept(t, { Phone_Number: '212-200-0002', 'phone number': '212-200-0009' }).lead.phoneRaw, '212-200-0002')
  // An object phone loses to any text phone and is kept as an extra.
  const withObject = accept(t, { phone: [{ n: 1 }], cell: '212-200-0004' })
  t.equal(withObject.lead.phoneRaw, '212-200-0004')
  t.same(withObject.lead.extraFields, [{ name: 'phone', value: [{ n: 1 }] }])
  t.same(codes(withObject), ['field_type_invalid:phone'])
  // A nested object is read as paths: `phone.n` is no phone, and is kept as an extra.
  const nested = accept(t, { phone: { n: 1 }, cell: '212-200-0004' })
  t.same(nested.lead.extraFields, [{ name: 'phone.n', value: 1 }])
  t.same(codes(nested), [])
  // The first non-empty phone is used even when a later alias would have been valid.
  t.match(normalizeLeadInput({ phone: '555-1234', mobile: '212-200-0003' }, CTX), { ok: false, error: { code: 'phone_invalid' } })
})

t.test('a repeated field keeps the first value and the rest as extras, with a warning', async (t) => {
  const result = accept(t, { phone: PHONE, Email: 'a@x.com', email_address: 'b@x.com', 'e-mail': 'c@x.com' })
  t.equal(result.lead.email, 'a@x.com')
  t.same(result.lead.extraFields, [
    { name: 'email_address', value: 'b@x.com' },
    { name: 'e-mail', value: 'c@x.com' },
  ])
  t.same(codes(result), ['field_duplicate:email_address', 'field_duplicate:e-mail'])
  t.match(result.warnings[0]?.message, /email_address repeats Email/)
})

t.test('empty, null and whitespace values never produce a field', async (t) => {
  const result = accept(t, {
    phone: PHONE,
    name: '',
    first_name: '   ',
    email: null,
    state: '\t',
    dob: '',
    age: null,
    dnc: '',
    source: [],
    vendor: ['', null],
    custom: '',
    other: null,
    nothing: [' '],
  })
  t.same(result.lead, { phone: '+12122345678', phoneLast10: '2122345678', phoneRaw: PHONE, industryFields: {}, extraFields: [] })
  t.same(result.warnings, [])
})

t.test('names fill each other', async (t) => {
  const cases: Array<[Record<string, unknown>, Partial<LeadFields>]> = [
    [{ name: 'Ada Lovelace' }, { fullName: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace' }],
    [{ name: '  Mary  Ann\tvan der Berg ' }, { fullName: 'Mary Ann van der Berg', firstName: 'Mary', lastName: 'Ann van der Berg' }],
    [{ name: 'Cher' }, { fullName: 'Cher', firstName: 'Cher' }],
    [{ first_name: 'Ada', last_name: 'Lovelace' }, { fullName: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace' }],
    [{ first: 'Ada' }, { fullName: 'Ada', firstName: 'Ada' }],
    [{ last: 'Lovelace' }, { fullName: 'Lovelace', lastName: 'Lovelace' }],
    [{ name: 'Ada King', first: 'Augusta' }, { fullName: 'Ada King', firstName: 'Augusta', lastName: 'King' }],
    [{ name: 'Ada King', last: 'Lovelace' }, { fullName: 'Ada King', firstName: 'Ada', lastName: 'Lovelace' }],
    [{ name: 'A B', first: 'C', last: 'D' }, { fullName: 'A B', firstName: 'C', lastName: 'D' }],
    [{ first: 'Ada', last: 'Lovelace', contact: 'Countess' }, { fullName: 'Countess', firstName: 'Ada', lastName: 'Lovelace' }],
    [{ name: 12345 }, { fullName: '12345', firstName: '12345' }],
  ]
  for (const [body, expected] of cases) {
    const lead = accept(t, { phone: PHONE, ...body }).lead
    t.same(
      { fullName: lead.fullName, firstName: lead.firstName, lastName: lead.lastName },
      { fullName: undefined, firstName: undefined, lastName: undefined, ...expected },
      JSON.stringify(body),
    )
    t.same(Object.keys(lead).filter((k) => k.endsWith('Name')).sort(), Object.keys(expected).sort(), 'no empty name keys')
  }
})

t.test('dob and age', async (t) => {
  const run = (body: Record<string, unknown>, ctx: Partial<IntakeContext> = {}) => accept(t, { phone: PHONE, ...body }, ctx)

  let result = run({ dob: '1980-03-15' })
  t.same([result.lead.dob, result.lead.age], ['1980-03-15', 45], 'age computed from dob')

  for (const [age, expected] of [['42', 42], [42, 42], [' 42 ', 42], ['42.0', 42], ['42.9', 42], ['42 years', 42], ['42 yrs old', 42], ['42 y/o', 42], ['0', 0], [130, 130], [['', '42'], 42]] as const) {
    result = run({ age })
    t.equal(result.lead.age, expected, `age ${JSON.stringify(age)}`)
    t.same(result.warnings, [], `age ${JSON.stringify(age)} without warning`)
  }

  result = run({ dob: '1980-03-15', age: '30' })
  t.same([result.lead.dob, result.lead.age], ['1980-03-15', 30], 'a sent age is kept, not recomputed')
  t.same(result.warnings, [{ code: 'age_dob_mismatch', field: 'age', message: 'age 30 disagrees with the date of birth 1980-03-15 (45 today); both kept as sent' }], 'but a disagreement is pointed out')
  for (const age of [44, 45, 46]) {
    t.same(run({ dob: '1980-03-15', Age: age }).warnings, [], `age ${age}: a year either way is no disagreement (the sender counted on another day)`)
  }
  t.same(codes(run({ dob: '1980-03-15', Age: 47 })), ['age_dob_mismatch:Age'])
  t.same(codes(run({ dob: '2030-01-01', age: 20 })), ['dob_in_future:dob'], 'a future dob is pointed out even beside a sent age, and gives nothing to disagree with')

  for (const age of ['forty', '-5', '131', 500, true, '4 2', '']) {
    result = run({ age })
    t.equal(result.lead.age, undefined, `age ${JSON.stringify(age)} not set`)
    if (age === '') {
      t.same(result.lead.extraFields, [], 'empty age is absent, not an extra')
      continue
    }
    t.same(result.lead.extraFields, [{ name: 'age', value: age }], `age ${JSON.stringify(age)} kept as an extra`)
    t.same(codes(result), ['age_unparseable:age'])
  }

  result = run({ Age: 'forty', DOB: '03/15/1980' })
  t.same([result.lead.dob, result.lead.age], ['1980-03-15', 45], 'an unreadable age falls back to the dob')
  t.same(result.lead.extraFields, [{ name: 'Age', value: 'forty' }])
  t.same(codes(result), ['age_unparseable:Age'])

  result = run({ 'Date of Birth': 'the fifth of never', age: 33 })
  t.same([result.lead.dob, result.lead.age], [undefined, 33])
  t.same(result.lead.extraFields, [{ name: 'Date of Birth', value: 'the fifth of never' }])
  t.same(codes(result), ['dob_unparseable:Date of Birth'])
  t.equal(Object.hasOwn(result.lead, 'dob'), false)

  result = run({ birthday: '2030-01-01' })
  t.same([result.lead.dob, result.lead.age], ['2030-01-01', undefined], 'future dob kept, age not computed')
  t.same(codes(result), ['dob_in_future:birthday'])

  result = run({ dob: '1850-01-01' })
  t.same([result.lead.dob, result.lead.age], ['1850-01-01', undefined])
  t.same(codes(result), ['dob_implausible:dob'])

  result = run({ dob: [{ y: 1980 }] })
  t.equal(result.lead.dob, undefined)
  t.same(result.lead.extraFields, [{ name: 'dob', value: [{ y: 1980 }] }])
  t.same(codes(result), ['field_type_invalid:dob'])

  result = run({ dob: '03/04/1980', lead_date: '05/06/2025' }, { defaultCountry: 'GB', timeZone: 'Europe/London' })
  t.same([result.lead.dob, result.lead.leadDate, result.lead.age], ['1980-04-03', '2025-06-05', 45], "a GB account's numeric dates are day first")
  t.same(run({ dob: '03/04/1980' }).lead.dob, '1980-03-04', "a US account's month first")

  result = run({ dob: '1980-03-15T00:00:00Z' })
  t.same([result.lead.dob, result.lead.age], ['1980-03-15', 45], 'midnight UTC stays the written date for a Pacific account')

  // 2024-03-15T11:30Z is March 16 in Auckland, March 15 in Los Angeles.
  const edge = new Date('2024-03-15T11:30:00Z')
  t.equal(run({ dob: '1980-03-16' }, { now: edge, timeZone: 'Pacific/Auckland' }).lead.age, 44, 'Auckland: birthday today')
  t.equal(run({ dob: '1980-03-16' }, { now: edge, timeZone: 'America/Los_Angeles' }).lead.age, 43, 'Los Angeles: birthday tomorrow')

  // Leap-day birthday on March 1 of a non-leap year.
  t.equal(run({ dob: '2/29/2000' }, { now: new Date('2023-02-28T20:00:00Z') }).lead.age, 22)
  t.equal(run({ dob: '2/29/2000' }, { now: new Date('2023-03-01T20:00:00Z') }).lead.age, 23)
})

t.test('lead date', async (t) => {
  const run = (value: unknown) => accept(t, { phone: PHONE, 'Lead Date': value })
  t.equal(run('2025-05-30').lead.leadDate, '2025-05-30')
  t.equal(run('05/30/2025').lead.leadDate, '2025-05-30')
  t.equal(run('2025-05-30T09:15:00Z').lead.leadDate, '2025-05-30T09:15:00Z')
  t.equal(run('5/30/2025 9:15 AM').lead.leadDate, '2025-05-30T09:15:00-07:00', 'a time without offset is in the account zone')
  const bad = run('last tuesday')
  t.equal(bad.lead.leadDate, undefined)
  t.same(bad.lead.extraFields, [{ name: 'Lead Date', value: 'last tuesday' }])
  t.same(codes(bad), ['lead_date_unparseable:Lead Date'])
})

t.test('do-not-call values', async (t) => {
  const truthy: unknown[] = ['1', 'true', 'TRUE', 'True', 'yes', 'Yes', 'YES', 'y', 'Y', ' yes ', true, 1, ['', 'y'], 'on', 'ON']
  const falsy: unknown[] = ['0', 'false', 'no', 'n', 'N', 'off', 'Off', false, 0]
  const unrecognized: unknown[] = ['maybe', '2', '1.5', 'yes please', 'checked', 2]
  for (const value of truthy) {
    const result = accept(t, { phone: PHONE, DNC: value })
    t.equal(result.lead.doNotCall, true, JSON.stringify(value))
    t.same(result.warnings, [], `${JSON.stringify(value)}: no warning`)
  }
  for (const value of falsy) {
    const result = accept(t, { phone: PHONE, do_not_call: value })
    t.equal(result.lead.doNotCall, false, JSON.stringify(value))
    t.same(result.warnings, [], `${JSON.stringify(value)}: no warning`)
  }
  for (const value of unrecognized) {
    const result = accept(t, { phone: PHONE, 'Do Not Call': value })
    t.equal(result.lead.doNotCall, false, `${JSON.stringify(value)}: not flagged`)
    t.same(codes(result), ['dnc_unrecognized:Do Not Call'], `${JSON.stringify(value)}: and the sender is told`)
    t.match(result.warnings[0]?.message, `do-not-call value ${JSON.stringify(String(value))} is not one Leadline reads`)
  }
  for (const value of [undefined, null, '', '  ', []]) {
    t.equal(Object.hasOwn(accept(t, { phone: PHONE, dnc: value }).lead, 'doNotCall'), false, `absent for ${JSON.stringify(value)}`)
  }
  t.equal(Object.hasOwn(accept(t, { phone: PHONE }).lead, 'doNotCall'), false, 'absent when not sent')
})

t.test('state codes', async (t) => {
  const cases: Array<[unknown, string]> = [
    ['CA', 'CA'],
    ['ca', 'CA'],
    [' California ', 'CA'],
    ['new  york', 'NY'],
    ['N.Y.', 'NY'],
    ['District of Columbia', 'DC'],
    ['Washington D.C.', 'DC'],
    ['puerto rico', 'PR'],
    ['Virgin Islands', 'VI'],
    ['Ontario', 'Ontario'],
    [' Bavaria ', 'Bavaria'],
    ['XX', 'XX'],
    [['', 'tx'], 'TX'],
  ]
  for (const [value, expected] of cases) t.equal(accept(t, { phone: PHONE, state: value }).lead.state, expected, JSON.stringify(value))
})

t.test('email is trimmed and lowercased; a value without @ is kept with a warning', async (t) => {
  let result = accept(t, { phone: PHONE, email: ' Ada@Example.COM ' })
  t.equal(result.lead.email, 'ada@example.com')
  t.same(result.warnings, [])
  result = accept(t, { phone: PHONE, 'E-Mail': 'ada at example.com' })
  t.equal(result.lead.email, 'ada at example.com')
  t.same(codes(result), ['email_invalid:E-Mail'])
})

t.test('a phone no numbering plan has is kept, with a phone_not_valid warning', async (t) => {
  let result = accept(t, { 'Phone Number': '000-000-0000' })
  t.equal(result.lead.phone, '+10000000000', 'dialable as written')
  t.equal(result.lead.phoneLast10, '0000000000')
  t.same(codes(result), ['phone_not_valid:Phone Number'])
  t.match(result.warnings[0]?.message, /"000-000-0000" is not a valid number .*kept as \+10000000000/)
  result = accept(t, { phone: '(312) 555-0142' })
  t.same(result.warnings, [], 'a valid number: no warning')
})

t.test('a sloppy domestic number is read in the account country, kept with phone_not_valid, never as a foreign number (issue #24)', async (t) => {
  for (const phone of ['312-555-0142 (cell) 2', '312.555.0143.5', 3125550144.5]) {
    const result = accept(t, { phone })
    t.ok(result.lead.phone.startsWith('+1'), `${String(phone)}: read in the US (${result.lead.phone}), not as +31`)
    t.same(codes(result), ['phone_not_valid:phone'], `${String(phone)}: a phone_not_valid warning`)
  }
})

t.test('an extension is kept as an extension, never as digits of the number', async (t) => {
  for (const [phone, extension] of [['312-555-0142 x123', '123'], ['312-555-0142 ext. 4', '4']] as const) {
    const result = accept(t, { phone })
    t.same([result.lead.phone, result.lead.phoneLast10, result.lead.phoneExtension], ['+13125550142', '3125550142', extension], phone)
    t.same(result.warnings, [], `${phone}: a valid number`)
  }
  t.notOk('phoneExtension' in accept(t, { phone: '312-555-0142' }).lead, 'none when none was sent')
})

t.test('values of any JSON type never throw', async (t) => {
  const result = accept(t, {
    phone: 2122345678,
    name: 123,
    vendor: true,
    source: ['', null, 'Spring FB', 'ignored'],
    city: [['Austin']],
    zip: 78701,
    address: [{ line1: '12 Main St' }],
    lead_source: [{ id: 7 }],
  })
  t.match(result.lead, { phone: '+12122345678', phoneRaw: '2122345678', fullName: '123', vendor: 'true', source: 'Spring FB', city: 'Austin', zip: '78701' })
  t.equal(result.lead.address, undefined)
  t.same(result.lead.extraFields, [
    // Two values for one field: the first fills it, and the list is kept as received.
    { name: 'source', value: ['', null, 'Spring FB', 'ignored'] },
    { name: 'address', value: [{ line1: '12 Main St' }] },
    { name: 'lead_source', value: [{ id: 7 }] },
  ])
  t.same(codes(result).sort(), ['field_multiple_values:source', 'field_type_invalid:address', 'field_type_invalid:lead_source'])
})

t.test('long strings are cut to 1,000 characters with a warning', async (t) => {
  const result = accept(t, {
    phone: `${PHONE}${' '.repeat(1200)}`,
    name: `  ${'a'.repeat(1500)}  `,
    vendor: '😀'.repeat(1200),
    city: 'b'.repeat(1000),
    'Avg Bill': '9'.repeat(2000),
    custom: 'c'.repeat(5000),
  }, { industry: 'solar' })
  t.equal(result.lead.fullName?.length, 1000)
  t.equal(result.lead.firstName?.length, 1000)
  t.equal(result.lead.city?.length, 1000, 'exactly 1,000 is not cut')
  t.equal(Array.from(result.lead.vendor ?? '').length, 1000, 'counted in characters')
  t.notMatch(result.lead.vendor ?? '', /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone surrogate')
  t.equal(result.lead.industryFields['monthly_electric_bill']?.length, 1000)
  t.equal(result.lead.phoneRaw.length, 1000)
  t.equal(result.lead.phone, '+12122345678')
  t.same(result.lead.extraFields, [{ name: 'custom', value: 'c'.repeat(5000) }], 'extras stay as received')
  t.same(codes(result).sort(), ['field_truncated:Avg Bill', 'field_truncated:name', 'field_truncated:phone', 'field_truncated:vendor'])
})

t.test('unrecognised fields are kept as received, in body order', async (t) => {
  const body = {
    utm_source: 'facebook',
    phone: PHONE,
    'Custom Thing': { nested: [1, { deep: true }] },
    count: 3,
    flags: [true, false],
    opted_in: false,
    empty: '',
  }
  const result = accept(t, body)
  t.same(result.lead.extraFields, [
    { name: 'utm_source', value: 'facebook' },
    // A nested object is kept as its paths.
    { name: 'Custom Thing.nested', value: [1, { deep: true }] },
    { name: 'count', value: 3 },
    { name: 'flags', value: [true, false] },
    { name: 'opted_in', value: false },
  ])
  t.equal(result.lead.extraFields[1]?.value, body['Custom Thing'].nested, 'the very value received')
  t.same(result.warnings, [])
})

t.test('industry fields', async (t) => {
  const samples: Array<[string, Record<string, unknown>, Record<string, string>]> = [
    ['solar', { 'Avg Bill': 180, Homeowner: 'yes', 'roof_type': 'shingle', 'Utility Company': 'PG&E' }, { monthly_electric_bill: '180', homeowner: 'yes', roof_type: 'shingle', utility_provider: 'PG&E' }],
    ['insurance', { 'Current Carrier': 'Acme', smoker: false, household_size: 4 }, { current_carrier: 'Acme', tobacco_use: 'false', household_size: '4' }],
    ['real_estate', { beds: 3, baths: 2.5, 'Buying or Selling': 'buying', 'Max Price': '450000' }, { bedrooms: '3', bathrooms: '2.5', buyer_or_seller: 'buying', price_max: '450000' }],
    ['home_services', { 'Service Needed': 'AC repair', 'best time to call': 'evenings', urgency: ['', 'asap'] }, { service_type: 'AC repair', preferred_time: 'evenings', urgency: 'asap' }],
    ['auto', { Make: 'Honda', model: 'Civic', YEAR: 2019, 'Trade-In': 'yes' }, { vehicle_make: 'Honda', vehicle_model: 'Civic', vehicle_year: '2019', trade_in: 'yes' }],
  ]
  for (const [industry, fields, expected] of samples) {
    const result = accept(t, { phone: PHONE, ...fields, 'favourite colour': 'green' }, { industry })
    t.same(result.lead.industryFields, expected, industry)
    t.same(result.lead.extraFields, [{ name: 'favourite colour', value: 'green' }], `${industry}: others stay extras`)
    // Without an industry the same fields are extras.
    const none = accept(t, { phone: PHONE, ...fields })
    t.same(none.lead.industryFields, {}, `${industry} fields without an industry`)
    t.same(none.lead.extraFields.map((e) => e.name), Object.keys(fields), `${industry} fields are extras without an industry`)
  }

  const dup = accept(t, { phone: PHONE, 'Electric Bill': '', 'avg bill': '150', monthly_electric_bill: '200', power_bill: [{ amount: 1 }] }, { industry: 'solar' })
  t.same(dup.lead.industryFields, { monthly_electric_bill: '150' })
  t.same(dup.lead.extraFields, [
    { name: 'monthly_electric_bill', value: '200' },
    { name: 'power_bill', value: [{ amount: 1 }] },
  ])
  t.same(codes(dup), ['field_duplicate:monthly_electric_bill', 'field_type_invalid:power_bill'])

  const onlyObject = accept(t, { phone: PHONE, roof_type: [{ a: 1 }] }, { industry: 'Solar' })
  t.same(onlyObject.lead.industryFields, {})
  t.same(onlyObject.lead.extraFields, [{ name: 'roof_type', value: [{ a: 1 }] }])
  // A nested name is matched on its last part, for industry fields too.
  t.same(accept(t, { phone: PHONE, home: { roof_type: 'tile' } }, { industry: 'solar' }).lead.industryFields, { roof_type: 'tile' })

  // Core aliases win over industry lists: `name` is a name, not a field.
  t.equal(accept(t, { phone: PHONE, name: 'Ada' }, { industry: 'auto' }).lead.fullName, 'Ada')
})

t.test('__proto__, constructor and prototype pollute nothing', async (t) => {
  const body = JSON.parse(
    '{"__proto__": {"polluted": "yes", "phone": "2122000000"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": "p", "toString": "t", "hasOwnProperty": "h", "phone": "2122345678"}',
  ) as Record<string, unknown>
  for (const industry of [null, 'solar']) {
    const result = accept(t, body, { industry })
    t.equal(result.lead.phone, '+12122345678')
    // Nested objects are read as paths, whatever their names: `__proto__.phone` is data, a second phone.
    t.same(result.lead.extraFields.map((e) => e.name), ['__proto__.polluted', '__proto__.phone', 'constructor.prototype.polluted', 'prototype', 'toString', 'hasOwnProperty'])
    t.same(result.lead.extraFields[0]?.value, 'yes')
    t.equal(Object.getPrototypeOf(result.lead), Object.prototype)
    t.equal(Object.getPrototypeOf(result.lead.industryFields), Object.prototype)
    t.equal((result.lead as unknown as Record<string, unknown>)['polluted'], undefined)
    t.equal(typeof result.lead.toString, 'function')
  }
  t.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype untouched')
  // A body whose only phone is under __proto__ has it as data, like any nested phone.
  t.match(normalizeLeadInput(JSON.parse('{"__proto__": {"phone": "2122345678"}}') as Record<string, unknown>, CTX), { ok: true, lead: { phone: '+12122345678' } })
  t.equal(({} as Record<string, unknown>)['phone'], undefined, 'Object.prototype untouched')
})

t.test('pure: same body, same lead; the body is not modified', async (t) => {
  const deepFreeze = <T>(value: T): T => {
    if (typeof value === 'object' && value !== null) {
      Object.values(value).forEach(deepFreeze)
      Object.freeze(value)
    }
    return value
  }
  const body = deepFreeze({ phone: PHONE, mobile: '212-200-0003', name: 'Ada Lovelace', dob: '3/15/80', extra: { a: [1] } })
  const a: NormalizeResult = normalizeLeadInput(body, CTX)
  const b: NormalizeResult = normalizeLeadInput(body, CTX)
  t.same(a, b)
  t.not(a.ok && a.lead.extraFields, b.ok && b.lead.extraFields, 'fresh arrays each time')
})

t.test('property: any body with a phone is accepted and never throws', async (t) => {
  const body = fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 12 })
  fc.assert(
    fc.property(body, fc.constantFrom<string | null>(null, ...['insurance', 'real_estate', 'solar', 'home_services', 'auto']), (fields, industry) => {
      const result = normalizeLeadInput({ ...fields, '  PHONE ': '+1 212 234 5678' }, { ...CTX, industry })
      if (!result.ok) return false
      // Nothing non-empty is lost: every sent name with a value is in a field, an extra, or a core alias;
      // an extra is a name sent, or a path in a nested object sent under one.
      const sent = (name: string) => name === '  PHONE ' || Object.keys(fields).some((key) => name === key || name.startsWith(`${key}.`))
      return result.lead.phoneLast10 === '2122345678' && result.lead.extraFields.every((e) => sent(e.name))
    }),
    { numRuns: 300 },
  )
  fc.assert(
    fc.property(fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })), (fields) => {
      const result = normalizeLeadInput(fields, CTX)
      return result.ok || result.error.code === 'phone_required' || result.error.code === 'phone_invalid'
    }),
    { numRuns: 300 },
  )
  t.pass('arbitrary bodies handled')
})
