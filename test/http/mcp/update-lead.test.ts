/**
 * update_lead through the tool endpoint (issue #30): name, email, state and custom fields set or
 * cleared as one LeadEdited with only what changed, seen by get_lead, list_leads and the history;
 * the phone is the identity and is refused with a clear code.
 */
import t from 'tap'
import { janeApp, writeToolChecks } from './write-tool-checks.ts'

writeToolChecks(t, {
  tool: 'update_lead',
  scope: 'write',
  args: { email: 'jane.doe@example.org' },
  event: 'LeadEdited',
  bad: [
    { args: { email: 'not an email' }, code: 'invalid_arguments' },
    { args: {}, code: 'invalid_arguments' },
    { args: { new_phone: '+13125550199' }, code: 'phone_not_updatable' },
    { args: { phone_number: '+13125550199' }, code: 'invalid_arguments' },
    { args: { custom_fields: { Phone: '+13125550199' } }, code: 'phone_not_updatable' },
    { args: { name: '' }, code: 'invalid_arguments' },
  ],
})

const jane = { phone: '(312) 555-0142' }

t.test('an edit sets and clears what it names, once; list_leads, get_lead and the history show it', async (t) => {
  const { app, acme } = await janeApp(t, {})
  await app.call(acme.keys.write, 'update_lead', { ...jane, custom_fields: { roof: 'metal', budget: '12000' }, idempotency_key: 'e-0' })
  const answer = await app.call(acme.keys.write, 'update_lead', {
    ...jane, name: 'Janet Q. Smith', email: null, state: 'texas', custom_fields: { roof: 'tile', budget: null }, idempotency_key: 'e-1',
  })
  t.match(answer.result?.structuredContent, {
    phone: '+13125550142', full_name: 'Janet Q. Smith', first_name: 'Janet', last_name: 'Q. Smith', email: null, state: 'TX',
    custom_fields: { roof: 'tile' }, changed: ['full_name', 'first_name', 'last_name', 'email', 'state', 'custom_fields.roof', 'custom_fields.budget'], dry_run: false,
  })
  t.notOk('budget' in answer.result?.structuredContent.custom_fields, 'null removes a custom field')
  await app.settle()
  const listed = (await app.call(acme.keys.read, 'list_leads', {})).result?.structuredContent.leads[0]
  t.match(listed, { full_name: 'Janet Q. Smith', first_name: 'Janet', email: null, state: 'TX', extra_fields: { roof: 'tile' }, phone: '+13125550142' })
  t.notOk('budget' in listed.extra_fields)
  const history = (await app.call(acme.keys.read, 'get_lead_history', jane)).result?.structuredContent.events
  t.match(history[0], { type: 'LeadEdited', actor: { kind: 'api_key', id: acme.keyIds.write }, summary: /^edited by the account: fullName → "Janet Q. Smith", .*email cleared, state → "TX", custom field "roof" → "tile", custom field "budget" removed$/ })

  const same = await app.call(acme.keys.write, 'update_lead', { ...jane, state: 'TX', idempotency_key: 'e-2' })
  t.match(same.result?.structuredContent, { changed: [], message: /nothing changed/ })
  t.equal((await app.call(acme.keys.read, 'get_lead_history', jane)).result?.structuredContent.total_events, history.length, 'nothing recorded')
  // A first name alone re-forms the full name.
  const first = await app.call(acme.keys.write, 'update_lead', { ...jane, first_name: 'Jan', idempotency_key: 'e-3' })
  t.match(first.result?.structuredContent, { full_name: 'Jan Q. Smith', first_name: 'Jan', last_name: 'Q. Smith' })
})

t.test('the phone cannot be changed: the refusal says why and the lead keeps its number', async (t) => {
  const { app, acme, types } = await janeApp(t, {})
  const before = await types()
  const answer = await app.call(acme.keys.write, 'update_lead', { ...jane, new_phone: '+13125550199', email: 'x@example.com', idempotency_key: 'p' })
  t.equal(answer.error?.data.code, 'phone_not_updatable')
  t.match(answer.error?.message, /identity/)
  t.same(await types(), before)
})
