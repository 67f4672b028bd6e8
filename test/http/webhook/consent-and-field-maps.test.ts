/**
 * Consent evidence and per-source field maps through the real route: evidence kept per submission
 * (never overwritten) and shown by get_lead and the audit export; a source's field map read from the
 * URL's `source`, set with the real CLI, applied to new submissions only.
 */
import path from 'node:path'
import t from 'tap'
import { mcpApp } from '../mcp/mcp-helpers.ts'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { exportAccount } from '../../../src/audit/export.ts'
import { runCli } from '../../../src/cli/main.ts'

const EVIDENCE = {
  xxTrustedFormCertUrl: 'https://cert.trustedform.com/0123456789abcdef',
  universal_leadid: 'A1B2C3D4-E5F6-7890-ABCD-EF0123456789',
  tcpa_consent_text: 'By clicking Submit I agree to be called and texted at the number above.',
  consent_timestamp: '2026-11-20T14:03:11Z',
  ip_address: '203.0.113.7',
  page_url: 'https://example.com/quote',
}

t.test('consent evidence is recognised, kept per submission, shown by get_lead and exported', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  await account.pushLead({ phone: '3125551000', name: 'Jane Doe', ...EVIDENCE, favourite: 'blue' })
  // A later submission with other evidence (other names for the same fields) adds a record; one without adds none.
  await account.pushLead({ phone: '3125551000', trustedform_cert_url: 'https://cert.trustedform.com/fedcba', leadid_token: 'FFFF-0000', 'Consent Timestamp': '2026-11-21T09:00:00Z' })
  await account.pushLead({ phone: '3125551000', city: 'Chicago' })
  const out = (await app.call(account.keys.read, 'get_lead', { phone: '3125551000' })).result?.structuredContent
  t.equal(out.consent.length, 2)
  t.equal(out.consent_total, 2)
  t.match(out.consent[0], {
    received_at: /^\d{4}-/,
    trustedform_cert_url: EVIDENCE.xxTrustedFormCertUrl,
    jornaya_leadid: EVIDENCE.universal_leadid,
    tcpa_consent_text: EVIDENCE.tcpa_consent_text,
    consent_timestamp: EVIDENCE.consent_timestamp,
    ip_address: EVIDENCE.ip_address,
    page_url: EVIDENCE.page_url,
  }, 'the first record, unchanged')
  t.same(Object.keys(out.consent[1]).sort(), ['consent_timestamp', 'jornaya_leadid', 'received_at', 'trustedform_cert_url'])
  t.equal(out.consent[1].jornaya_leadid, 'FFFF-0000')
  t.same(out.lead.extra_fields, { favourite: 'blue' }, 'evidence is not an extra field')

  const lines: string[] = []
  await exportAccount(app.leadline.store, account.accountId, (chunk) => {
    lines.push(...chunk.trim().split('\n'))
  })
  const withConsent = lines.map((l) => JSON.parse(l) as { type: string; data: { consent?: Record<string, string> } }).filter((l) => l.data.consent !== undefined)
  t.same(withConsent.map((l) => l.type), ['LeadReceived', 'LeadUpdated'], 'audit export carries each record on its submission')
  t.equal(withConsent[0]?.data.consent?.trustedFormCertUrl, EVIDENCE.xxTrustedFormCertUrl)
})

t.test("a source's field map reads its bodies; other sources and earlier leads are untouched", async (t) => {
  const { app, leadline, createAccount } = await buildApp(t)
  const { account, token } = await createAccount()
  const post = (body: unknown, query: string) =>
    app.inject({ method: 'POST', url: `/api/ingest/lead${query}`, headers: { 'x-service-token': token, 'content-type': 'application/json' }, payload: JSON.stringify(body) })
  const body = { contact: { primary: { digits: '3125551100' }, secondary: { digits: '3125551199' } }, applicant: { given: 'Ana', family: 'Ruiz' }, proof: { cert: 'https://cert.trustedform.com/abc' } }
  const before = await post(body, '?source=vendor-x')
  t.equal(before.statusCode, 400, 'before the map: no field names a phone')
  t.match(before.json(), { error: 'phone required' })

  await leadline.accounts.setFieldMap(account.accountId, 'vendor-x', [
    { field: 'phone', path: 'contact.primary.digits' },
    { field: 'first_name', path: 'applicant.given' },
    { field: 'last_name', path: 'applicant.family' },
    { field: 'trustedform_cert_url', path: 'proof.cert' },
  ], operatorContext)
  const mapped = await post(body, '?source=Vendor-X')
  t.equal(mapped.statusCode, 201, mapped.body)
  t.equal(mapped.json().phone, '+13125551100')
  const received = (await leadline.store.readStream(`lead-${account.accountId}-3125551100`))[0]?.data as Record<string, any>
  t.match(received.fields, { firstName: 'Ana', lastName: 'Ruiz', fullName: 'Ana Ruiz' })
  t.same(received.consent, { trustedFormCertUrl: 'https://cert.trustedform.com/abc' })
  t.same(received.origin, {
    source: 'vendor-x',
    mapped: [
      { field: 'phone', path: 'contact.primary.digits' },
      { field: 'first_name', path: 'applicant.given' },
      { field: 'last_name', path: 'applicant.family' },
      { field: 'trustedform_cert_url', path: 'proof.cert' },
    ],
  }, 'the event says which path filled which field')
  t.same(received.fields.extraFields, [{ name: 'contact.secondary.digits', value: '3125551199' }], 'what the map does not name is kept')

  // Another source (or none) is read by names alone.
  t.equal((await post(body, '?source=vendor-y')).statusCode, 400)
  t.equal((await post(body, '')).statusCode, 400)
  const bad = await post(body, '?source=no%20spaces')
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { error: 'invalid request', detail: /source/ })
})

t.test('leadline source map|maps|unmap: audited on the account, refused when it names no field', async (t) => {
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_PUBLIC_URL: 'http://leadline.test' }
  const cli = async (args: string[]) => {
    const out: string[] = []
    const err: string[] = []
    const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s), env })
    return { code, stdout: out.join('\n'), stderr: err.join('\n') }
  }
  const created = await cli(['account', 'create', '--name', 'Acme', '--json'])
  const accountId = (JSON.parse(created.stdout) as { accountId: string }).accountId
  const set = await cli(['source', 'map', '--account', accountId, '--source', 'vendor-x', 'phone=contact.primary.number', 'email=contact.mail'])
  t.equal(set.code, 0, set.stderr)
  t.match(set.stdout, /field map of source vendor-x set/)
  t.match(set.stdout, /vendor-x\s+phone\s+contact\.primary\.number/)
  t.match(set.stdout, /\/api\/ingest\/lead\?source=vendor-x/)
  const list = await cli(['source', 'maps', '--account', accountId, '--json'])
  t.same((JSON.parse(list.stdout) as { fieldMaps: Record<string, { mappings: unknown }> }).fieldMaps['vendor-x']?.mappings, [{ field: 'phone', path: 'contact.primary.number' }, { field: 'email', path: 'contact.mail' }])
  for (const bad of [['favourite=colour'], ['phone'], ['phone=a..b'], ['phone=a', 'mobile=b']]) {
    const refused = await cli(['source', 'map', '--account', accountId, '--source', 'vendor-x', ...bad])
    t.equal(refused.code, 2, `${bad.join(' ')}: ${refused.stderr}`)
  }
  const history = await cli(['audit', 'export', '--account', accountId])
  t.match(history.stdout, /"type":"SourceFieldMapSet"/, 'the change is an account event')
  const unmap = await cli(['source', 'unmap', '--account', accountId, '--source', 'vendor-x'])
  t.match(unmap.stdout, /removed/)
  t.match((await cli(['source', 'maps', '--account', accountId])).stdout, /no field maps/)
  // The Google key: set, shown only as set, never printed back.
  const key = await cli(['account', 'set', accountId, '--google-key', 'a-long-random-google-key'])
  t.equal(key.code, 0, key.stderr)
  t.match(key.stdout, /google key\s+set .* \(kept as a hash, never shown\)/)
  t.notMatch(key.stdout, /a-long-random-google-key/)
  t.equal((await cli(['account', 'set', accountId, '--google-key', 'short'])).code, 2, 'a short key is refused')
})
