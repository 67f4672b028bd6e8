import t from 'tap'
import { flattenLeadAdsPayload, normalizeLeadInput } from '../../../../src/domain/lead/intake/normalize-lead-input.ts'

const CTX = { defaultCountry: 'US', timeZone: 'America/Chicago', industry: 'insurance', now: new Date('2025-06-01T15:00:00Z') }

t.test('field_data answers flatten to their value, or the list of their values when there are several', async (t) => {
  const flat = flattenLeadAdsPayload({
    field_data: [
      { name: 'full_name', values: ['Ada Lovelace'] },
      { name: 'phone_number', values: ['+12122345678', '+12122000000'] },
      { name: 'email', values: ['', 'ada@example.com'] },
      { name: 'skipped_empty', values: [] },
      { name: 'skipped_blank', values: ['  ', null] },
      { name: 'scalar_values', values: 'not a list' },
      { name: 'numeric', values: [42] },
    ],
  })
  t.same({ ...flat }, {
    full_name: 'Ada Lovelace',
    phone_number: ['+12122345678', '+12122000000'],
    email: 'ada@example.com',
    scalar_values: 'not a list',
    numeric: 42,
  })
})

t.test("malformed entries are skipped; a repeated name's values join the first's", async (t) => {
  const flat = flattenLeadAdsPayload({
    field_data: [null, 'x', [], { values: ['no name'] }, { name: 7, values: ['numeric name'] }, { name: 'city', values: ['Austin'] }, { name: 'city', values: ['', 'Dallas'] }, { name: 'zip', values: [] }, { name: 'zip', values: ['78701'] }],
  })
  t.same({ ...flat }, { city: ['Austin', 'Dallas'], zip: '78701' })
})

t.test('no answer is dropped: a known field takes the first, and every value is kept as an extra field', async (t) => {
  const flat = flattenLeadAdsPayload({
    field_data: [
      { name: 'phone_number', values: ['+1 212 234 5678', '+1 212 200 0000'] },
      { name: 'which_services?', values: ['roof', 'solar', ''] },
      { name: 'city', values: ['Austin'] },
    ],
  })
  const result = normalizeLeadInput(flat ?? {}, CTX)
  t.equal(result.ok, true)
  if (!result.ok) return
  t.equal(result.lead.phone, '+12122345678', 'the first number is the lead')
  t.equal(result.lead.city, 'Austin')
  t.same(result.lead.extraFields, [
    { name: 'phone_number', value: ['+1 212 234 5678', '+1 212 200 0000'] },
    { name: 'which_services?', value: ['roof', 'solar'] },
  ])
  t.same(result.warnings, [
    { code: 'field_multiple_values', field: 'phone_number', message: 'phone_number had 2 values; the first was used and all of them kept as an extra field' },
  ], 'a warning only where a field could hold just one')
})

t.test('top-level members are kept after the answers; answers win a name clash', async (t) => {
  const flat = flattenLeadAdsPayload({
    id: '1234',
    created_time: '2025-05-31T10:00:00+0000',
    city: 'top-level',
    field_data: [{ name: 'city', values: ['Austin'] }],
  })
  t.same(Object.keys(flat ?? {}), ['city', 'id', 'created_time'])
  t.same({ ...flat }, { city: 'Austin', id: '1234', created_time: '2025-05-31T10:00:00+0000' })
})

t.test('anything else is not a lead-ads payload', async (t) => {
  for (const body of [null, undefined, 'field_data', 42, [], [{ field_data: [] }], {}, { phone: '2122345678' }, { field_data: {} }, { field_data: 'x' }]) {
    t.equal(flattenLeadAdsPayload(body), null, JSON.stringify(body) ?? 'undefined')
  }
  t.same({ ...flattenLeadAdsPayload({ field_data: [] }) }, {}, 'an empty form is still the shape')
})

t.test('field names like __proto__ become data, not a prototype', async (t) => {
  const flat = flattenLeadAdsPayload(JSON.parse('{"field_data":[{"name":"__proto__","values":[{"polluted":true}]},{"name":"constructor","values":["c"]},{"name":"phone","values":["2122345678"]}]}'))
  t.ok(flat !== null)
  t.same(Object.keys(flat ?? {}), ['__proto__', 'constructor', 'phone'])
  t.same(flat?.['__proto__'], { polluted: true })
  t.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype untouched')
  t.equal(Object.getPrototypeOf(flat), null)
})

t.test('a Facebook lead-ads lead arrives without any mapping (spec §4.1 behaviour 6)', async (t) => {
  const flat = flattenLeadAdsPayload({
    id: '998877',
    created_time: '2025-05-31T10:00:00+0000',
    field_data: [
      { name: 'full_name', values: ['Ada Lovelace'] },
      { name: 'phone_number', values: ['+1 (212) 234-5678'] },
      { name: 'email', values: ['Ada@Example.com'] },
      { name: 'street_address', values: ['12 Main St'] },
      { name: 'city', values: ['Austin'] },
      { name: 'state', values: ['Texas'] },
      { name: 'zip_code', values: ['78701'] },
      { name: 'post_code', values: ['78702'] },
      { name: 'date_of_birth', values: ['03/15/1980'] },
      { name: 'gender', values: ['female'] },
      { name: 'work_phone_number', values: ['+1 212 200 0000'] },
      { name: 'are_you_currently_insured?', values: ['yes'] },
    ],
  })
  t.ok(flat !== null)
  const result = normalizeLeadInput(flat ?? {}, CTX)
  t.equal(result.ok, true)
  if (!result.ok) return
  t.match(result.lead, {
    phone: '+12122345678',
    phoneLast10: '2122345678',
    fullName: 'Ada Lovelace',
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    address: '12 Main St',
    city: 'Austin',
    state: 'TX',
    zip: '78701',
    dob: '1980-03-15',
    age: 45,
  })
  t.same(result.lead.industryFields, { gender: 'female' })
  t.same(result.lead.extraFields, [
    { name: 'post_code', value: '78702' },
    { name: 'work_phone_number', value: '+1 212 200 0000' },
    { name: 'are_you_currently_insured?', value: 'yes' },
    { name: 'id', value: '998877' },
    { name: 'created_time', value: '2025-05-31T10:00:00+0000' },
  ])
  t.same(result.warnings.map((w) => [w.code, w.field]), [['field_duplicate', 'post_code']])
})
