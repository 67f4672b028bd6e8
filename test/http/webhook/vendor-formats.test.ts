/** What vendors and CRM exports send, through the real route: phone aliases, nested and dotted names, XML, hostile XML. */
import t, { type Test } from 'tap'
import { buildApp } from '../../helpers/build-app.ts'

const URL_PATH = '/api/ingest/lead'

async function setup(t: Test) {
  const built = await buildApp(t)
  const { account, token } = await built.createAccount('Acme Insurance')
  const post = (payload: string | object, contentType = 'application/json', query = '') =>
    built.app.inject({
      method: 'POST',
      url: `${URL_PATH}${query}`,
      headers: { 'x-service-token': token, 'content-type': contentType },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    })
  const events = async () => (await built.leadline.store.readAll()).filter((e) => e.stream.startsWith('lead-'))
  const received = async (phoneLast10: string) => {
    const stream = await built.leadline.store.readStream(`lead-${account.accountId}-${phoneLast10}`)
    return stream.find((e) => e.type === 'LeadReceived')?.data as { fields: Record<string, unknown> } & Record<string, unknown>
  }
  return { ...built, account, token, post, events, received }
}

t.test('every vendor phone alias makes a lead', async (t) => {
  const { post } = await setup(t)
  const aliases = ['Lead.Cellphone', 'home_phone', 'cell_phone', 'mobile_phone', 'PrimaryPhone', 'Phone1', 'telephone', 'contact_phone', 'phone2', 'phone3', 'HomePhone', 'work phone']
  let n = 10
  for (const alias of aliases) {
    const phone = `312555${String(1000 + n++)}`
    const response = await post({ [alias]: phone, name: 'Vendor Lead' })
    t.equal(response.statusCode, 201, `${alias}: ${response.body}`)
    t.equal(response.json().phone, `+1${phone}`, alias)
  }
})

t.test('phone1..phone3 are ranked, and a mobile beats a home line', async (t) => {
  const { post } = await setup(t)
  const ranked = await post({ phone3: '3125550303', Phone1: '3125550301', phone2: '3125550302' })
  t.equal(ranked.json().phone, '+13125550301')
  t.match(ranked.json().warnings, [{ code: 'field_duplicate' }, { code: 'field_duplicate' }], 'the others are kept, with a warning')
  const lines = await post({ home_phone: '3125550401', cell_phone: '3125550402' })
  t.equal(lines.json().phone, '+13125550402')
})

t.test('nested JSON is read as paths, matched on their last part; unknown paths are kept as extras', async (t) => {
  const { post, received } = await setup(t)
  const response = await post({ contact: { phone: '(312) 555-0500', name: { first: 'Ana', last: 'Ruiz' }, email: 'ANA@example.com' }, meta: { campaign_ref: 'x1' }, 'Lead.State': 'Illinois' })
  t.equal(response.statusCode, 201, response.body)
  const lead = await received('3125550500')
  t.match(lead.fields, { phone: '+13125550500', firstName: 'Ana', lastName: 'Ruiz', fullName: 'Ana Ruiz', email: 'ana@example.com', state: 'IL' })
  t.same(lead.fields.extraFields, [{ name: 'meta.campaign_ref', value: 'x1' }])
  // A name at the top wins over the same name nested.
  const top = await post({ phone: '3125550501', contact: { phone: '3125550502' } })
  t.equal(top.json().phone, '+13125550501')
})

t.test('prototype names are data, never a prototype', async (t) => {
  const { post, received, events } = await setup(t)
  const response = await post('{"phone": "3125550600", "toString": {"valueOf": "v"}, "hasOwnProperty": {"phone": "3125550699"}}')
  t.equal(response.statusCode, 201, response.body)
  const lead = await received('3125550600')
  t.match(lead.fields.extraFields, [{ name: 'toString.valueOf', value: 'v' }, { name: 'hasOwnProperty.phone', value: '3125550699' }])
  // In XML, `__proto__` is refused by the parser with a 400 (in JSON, fastify drops it before intake).
  const before = (await events()).length
  const xml = await post('<lead><__proto__><polluted>yes</polluted></__proto__><phone>3125550601</phone></lead>', 'application/xml')
  t.equal(xml.statusCode, 400, xml.body)
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched')
  t.equal((await events()).length, before, 'nothing recorded')
})

t.test('XML bodies (application/xml, text/xml) are leads, read like nested JSON', async (t) => {
  const { post, received } = await setup(t)
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<lead>
  <contact><FirstName>Sam</FirstName><LastName>Lee &amp; Co</LastName><Cellphone>312 555 0700</Cellphone></contact>
  <zip>07030</zip>
  <notes><![CDATA[call <after> 5]]></notes>
</lead>`
  const response = await post(xml, 'application/xml; charset=utf-8')
  t.equal(response.statusCode, 201, response.body)
  const lead = await received('3125550700')
  t.match(lead.fields, { firstName: 'Sam', lastName: 'Lee & Co', zip: '07030', phoneRaw: '312 555 0700' })
  t.same(lead.fields.extraFields, [{ name: 'lead.notes', value: 'call <after> 5' }], 'text kept as text')
  const textXml = await post('<lead><phone>3125550701</phone></lead>', 'text/xml')
  t.equal(textXml.statusCode, 201, textXml.body)
})

t.test('hostile or broken XML is refused with a 400 and records nothing', async (t) => {
  const { post, events } = await setup(t)
  const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<lead><phone>3125550800</phone><name>&lol3;</name></lead>`
  const external = '<?xml version="1.0"?><!DOCTYPE lead [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><lead><phone>3125550801</phone><name>&xxe;</name></lead>'
  const deep = `${'<a>'.repeat(40)}<phone>3125550802</phone>${'</a>'.repeat(40)}`
  const veryDeep = `${'<a>'.repeat(9000)}${'</a>'.repeat(9000)}`
  const cases: Array<[string, string, RegExp]> = [
    ['billion laughs', laughs, /DOCTYPE/],
    ['external entity', external, /DOCTYPE/],
    ['too deep', deep, /32 levels/],
    ['far too deep', veryDeep, /32 levels/],
    ['not closed', '<lead><phone>3125550803</phone>', /malformed XML/],
    ['two roots', '<a>1</a><b>2</b>', /malformed XML/],
    ['empty', '', /.+/],
  ]
  for (const [what, body, detail] of cases) {
    const response = await post(body, 'application/xml')
    t.equal(response.statusCode, 400, `${what}: ${response.body}`)
    t.match(response.json(), { error: 'invalid request', detail }, what)
  }
  const tooLarge = await post(`<lead><phone>3125550804</phone><n>${'x'.repeat(70 * 1024)}</n></lead>`, 'application/xml')
  t.equal(tooLarge.statusCode, 413, 'the same body limit as JSON')
  t.same(await events(), [], 'nothing recorded')
})
