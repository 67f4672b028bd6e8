import t from 'tap'
import {
  canonicalFieldName,
  CORE_FIELD_ALIASES,
  lookupCoreField,
  matchCoreField,
} from '../../../../src/domain/lead/intake/field-aliases.ts'
import type { CoreField } from '../../../../src/domain/lead/intake/field-aliases.ts'
import { nameVariants } from './fixtures/name-variants.ts'

// Spec §2.1's table, copied by hand so an edit to the source table cannot pass unnoticed.
const SPEC_TABLE: Record<string, readonly string[]> = {
  fullName: ['name', 'full name', 'fullname', 'full_name', 'lead name', 'contact'],
  firstName: ['first name', 'first_name', 'firstname', 'first'],
  lastName: ['last name', 'last_name', 'lastname', 'last'],
  phone: ['phone', 'phone number', 'phone_number', 'mobile', 'cell', 'number'],
  email: ['email', 'email address', 'email_address', 'e-mail'],
  state: ['state', 'st'],
  age: ['age'],
  dob: ['dob', 'date of birth', 'birthday', 'birthdate'],
  source: ['source', 'lead source', 'lead_source', 'campaign'],
  vendor: ['vendor', 'lead vendor', 'lead_vendor'],
  leadDate: ['lead date', 'lead_date', 'received on', 'date'],
  doNotCall: ['dnc', 'do not call', 'do_not_call'],
}

// Beyond the spec: what vendors and CRM exports call the phone (issue #28), ranked after the spec's names.
const VENDOR_PHONES: readonly string[] = [
  'mobile phone', 'mobilephone', 'cell phone', 'cellphone', 'primary phone', 'primaryphone', 'phone1', 'phone 1',
  'telephone', 'contact phone', 'contactphone', 'home phone', 'homephone', 'phone2', 'phone 2', 'phone3', 'phone 3', 'work phone',
]

const LOCATION_TABLE: Record<string, readonly string[]> = {
  city: ['city', 'town'],
  zip: ['zip', 'zip code', 'zipcode', 'postal code', 'postcode', 'zip_code', 'post code', 'post_code'],
  address: ['address', 'street address', 'street'],
}

t.test('canonicalFieldName folds case, underscores and whitespace runs', async (t) => {
  const cases: Array<[string, string]> = [
    ['Phone', 'phone'],
    ['PHONE_NUMBER', 'phone number'],
    ['  phone   number \t', 'phone number'],
    ['phone__number', 'phone number'],
    ['phone _ number', 'phone number'],
    ['Phone\nNumber', 'phone number'],
    ['_phone_', 'phone'],
    ['E-Mail', 'e-mail'],
    ['', ''],
    ['   ', ''],
  ]
  for (const [input, expected] of cases) t.equal(canonicalFieldName(input), expected, JSON.stringify(input))
})

t.test("a form label's trailing marks do not count: required *, colon, ? and #", async (t) => {
  const cases: Array<[string, CoreField]> = [
    ['Phone Number *', 'phone'],
    ['Phone Number*', 'phone'],
    ['Phone:', 'phone'],
    ['Phone #', 'phone'],
    ['Mobile # :', 'phone'],
    ['Email Address: *', 'email'],
    ['E-mail:', 'email'],
    ['Do Not Call?', 'doNotCall'],
    ['First Name*', 'firstName'],
  ]
  for (const [name, field] of cases) t.equal(lookupCoreField(name), field, JSON.stringify(name))
  // Only trailing marks: inside a name they still tell names apart.
  for (const name of ['phone*2', '#phone', 'phone #2', 'e*mail', '*', ': #']) t.equal(lookupCoreField(name), undefined, JSON.stringify(name))
  t.equal(canonicalFieldName('Sq. Ft.'), 'sq. ft.', 'periods are kept: industry names use them')
})

// No stopwatch (a loaded machine slows everything): a trailing-marks regex took seconds at a tenth of this
// size and grows with its square, so it would outlast the test's time limit; the loop takes milliseconds.
t.test('a hostile name of marks and spaces is read in linear time', { timeout: 60_000 }, async (t) => {
  const hostile = `a${' :'.repeat(300_000)}b`
  t.equal(canonicalFieldName(hostile).length, 600_002, 'marks inside a name are kept (as spaces and colons)')
})

t.test('every spec alias resolves to its field', async (t) => {
  for (const [field, aliases] of Object.entries(SPEC_TABLE)) {
    for (const alias of aliases) t.equal(lookupCoreField(alias), field, alias)
  }
})

t.test('the source table holds every spec alias and nothing else for spec fields', async (t) => {
  for (const [field, aliases] of Object.entries(SPEC_TABLE)) {
    const table = CORE_FIELD_ALIASES[field as CoreField].filter((alias) => field !== 'phone' || !VENDOR_PHONES.includes(alias))
    const canon = (names: readonly string[]) => [...new Set(names.map(canonicalFieldName))].sort()
    // date_of_birth is an extra spelling of the spec's `date of birth`.
    t.same(canon(table), canon(aliases), field)
  }
})

t.test('every alias in every spelling variant resolves to its field', async (t) => {
  const all = { ...SPEC_TABLE, ...LOCATION_TABLE, phone: [...(SPEC_TABLE['phone'] ?? []), ...VENDOR_PHONES], dob: [...(SPEC_TABLE['dob'] ?? []), 'date_of_birth'] }
  let checked = 0
  for (const [field, aliases] of Object.entries(all)) {
    for (const alias of aliases) {
      for (const variant of nameVariants(alias)) {
        t.equal(lookupCoreField(variant), field, `${JSON.stringify(variant)} → ${field}`)
        checked++
      }
    }
  }
  t.ok(checked > 400, `checked ${checked} variants`)
})

t.test('names that are not aliases resolve to nothing', async (t) => {
  const others = [
    'phone4', 'work phone number', 'work_phone_number', 'e mail', 'emailaddress', 'names', 'nam',
    'first-name', 'dateofbirth', 'lead', '', '   ', 'constructor', '__proto__', 'prototype',
    'toString', 'hasOwnProperty', 'valueOf',
  ]
  for (const name of others) {
    t.equal(lookupCoreField(name), undefined, JSON.stringify(name))
    t.equal(matchCoreField(name), undefined, JSON.stringify(name))
  }
})

t.test('vendor phone names rank after the spec names: a mobile before a home line, phone1 before phone2 before phone3', async (t) => {
  const rank = (name: string) => matchCoreField(name)?.rank ?? -1
  t.ok(rank('number') < rank('Lead.Cellphone'.split('.')[1] as string))
  t.ok(rank('cell_phone') < rank('home_phone'))
  t.ok(rank('Phone1') < rank('phone2') && rank('phone2') < rank('phone3'))
  t.equal(lookupCoreField('PrimaryPhone'), 'phone')
})

t.test('phone aliases rank in spec order; spellings of one alias share a rank', async (t) => {
  const ranks = ['phone', 'Phone Number', 'phone_number', 'MOBILE', 'cell', 'number'].map((n) => matchCoreField(n)?.rank)
  t.same(ranks, [0, 1, 1, 2, 3, 4])
  t.same(matchCoreField(' Full_Name '), { field: 'fullName', rank: 1 }) // same key as `full name`
  t.same(matchCoreField('FULLNAME'), { field: 'fullName', rank: 2 })
  t.same(matchCoreField('e-mail'), { field: 'email', rank: 2 })
})
