/** The console's lead sources (Connections → Lead webhook) and a lead's consent evidence, through the real app. */
import t from 'tap'
import { signedInConsole } from './console-helpers.ts'

const PAGE = '/app/connections/lead-webhook'

t.test('the Google key: set (never shown), a short one refused, removed', async (t) => {
  const f = await signedInConsole(t)
  t.match((await f.browser.get(PAGE)).body, 'No key is set')
  const short = await f.browser.post(`${PAGE}/google-key`, { googleKey: 'short' })
  t.equal(short.statusCode, 400)
  t.match(short.body, /Nothing was saved: .*12 to 128 characters/)
  const set = await f.browser.post(`${PAGE}/google-key`, { googleKey: 'console-google-key-0123' })
  t.equal(set.statusCode, 200)
  t.match(set.body, 'Google key set. It is not shown again.')
  t.notOk(set.body.includes('console-google-key-0123'), 'the key is not on the page')
  t.ok((await f.app.leadline.accounts.require(f.accountId)).googleKey, 'recorded on the account')
  const removed = await f.browser.post(`${PAGE}/google-key`, { remove: '1' })
  t.match(removed.body, 'Google key removed')
  t.equal((await f.app.leadline.accounts.require(f.accountId)).googleKey, null)
})

t.test('field maps: saved from the page and applied to the next lead; an unknown field is refused with the text kept', async (t) => {
  const f = await signedInConsole(t)
  const refused = await f.browser.post(`${PAGE}/field-map`, { source: 'vendor-x', mappings: 'phone=contact.digits\nfavourite=colour' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /Nothing was saved: .*favourite.* is not a field Leadline reads/)
  t.match(refused.body, /<textarea[^>]*>phone=contact.digits\nfavourite=colour<\/textarea>/, 'what was typed is kept')
  const saved = await f.browser.post(`${PAGE}/field-map`, { source: 'Vendor-X', mappings: 'phone=contact.digits\r\n\r\nemail=contact.mail' })
  t.equal(saved.statusCode, 200, saved.body.slice(0, 300))
  t.match(saved.body, 'Field map of vendor-x saved')
  t.match(saved.body, /<code>phone<\/code> ← <code>contact.digits<\/code>/)
  const lead = await f.app.app.inject({
    method: 'POST', url: '/api/ingest/lead?source=vendor-x', headers: { 'x-service-token': f.token, 'content-type': 'application/json' },
    payload: JSON.stringify({ contact: { digits: '3125551200', mail: 'ana@example.com' } }),
  })
  t.equal(lead.statusCode, 201, lead.body)
  const removed = await f.browser.post(`${PAGE}/field-map`, { source: 'vendor-x', remove: '1' })
  t.match(removed.body, 'Field map of vendor-x removed')
  t.match(removed.body, 'No field maps.')
})

t.test("a lead's page shows its consent evidence (escaped) and a test lead's badge", async (t) => {
  const f = await signedInConsole(t)
  const push = (payload: Record<string, unknown>) =>
    f.app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': f.token, 'content-type': 'application/json' }, payload: JSON.stringify(payload) })
  const created = (await push({ phone: '3125551300', name: 'Jane', trustedform_cert_url: 'https://cert.trustedform.com/abc', tcpa_consent_text: '<b>I agree</b>' })).json() as { leadId: string }
  await push({ phone: '3125551300', ip_address: '203.0.113.9' })
  await f.app.leadline.runner.catchUp()
  const page = await f.browser.get(`/app/leads/${created.leadId}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, '<h2 id="consent">Consent evidence</h2>')
  t.match(page.body, 'https://cert.trustedform.com/abc')
  t.match(page.body, '&#60;b&#62;I agree&#60;/b&#62;', 'escaped')
  t.notMatch(page.body, '<b>I agree', 'never markup')
  t.match(page.body, '203.0.113.9', 'the second record too')
  t.notMatch(page.body, 'test lead</span>')
})
