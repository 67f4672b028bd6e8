/** Connections → Lead webhook: the URL and token, rotation, the curl example, the test lead, the last deliveries. */
import t from 'tap'
import { signedInConsole } from './console-helpers.ts'
import { TEST_AREAS } from '../../../src/http/console/lead-webhook.route.ts'
import { receiveLead } from '../../../src/commands/receive-lead.command.ts'

t.test('the page: URL, only the token hint, a curl example; rotate shows the new token behind Reveal and the old one fails', async (t) => {
  const f = await signedInConsole(t)
  const page = await f.browser.get('/app/connections/lead-webhook')
  t.equal(page.statusCode, 200)
  t.match(page.body, 'value="http://leadline.test/api/ingest/lead"')
  t.notOk(page.body.includes(f.token), 'the token is never shown again (only its hash is kept)')
  t.match(page.body, f.token.slice(0, 'llwh_'.length + 4))
  t.match(page.body, /curl -X POST &#34;http:\/\/leadline.test\/api\/ingest\/lead&#34;/)

  const rotated = await f.browser.post('/app/connections/lead-webhook/rotate')
  t.equal(rotated.statusCode, 200)
  const token = /id="webhook-token" value="(llwh_[0-9a-z]{32})"/.exec(rotated.body)?.[1] as string
  t.ok(token, 'the new token is on the page')
  t.match(rotated.body, /<details class="reveal"><summary>Reveal the token<\/summary>[\s\S]*id="webhook-token"[\s\S]*<\/details>/, 'hidden until revealed')
  t.match(rotated.body, `x-service-token: ${token}`, 'the curl example carries it')

  const push = (tok: string) => f.app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': tok }, payload: { phone: '312-555-0142' } })
  t.equal((await push(f.token)).statusCode, 401, 'the old token fails at once')
  t.equal((await push(token)).statusCode, 201, 'the new one works')
  t.notOk((await f.browser.get('/app/connections/lead-webhook')).body.includes(token), 'and is not shown again')
})

t.test('the last deliveries: accepted and refused requests, newest first, at most 20; a refused one appends nothing to the log', async (t) => {
  const f = await signedInConsole(t)
  const push = (payload: Record<string, unknown>, via: 'header' | 'query' = 'header') =>
    f.app.app.inject({
      method: 'POST', url: via === 'header' ? '/api/ingest/lead' : `/api/ingest/lead?token=${f.token}`,
      headers: { ...(via === 'header' ? { 'x-service-token': f.token } : {}), 'user-agent': 'Zapier' }, payload,
    })
  const created = (await push({ phone: '312-555-0142', name: 'Jane' })).json() as { leadId: string }
  const before = await f.app.leadline.store.headPosition()
  t.equal((await push({ name: 'no phone' }, 'query')).statusCode, 400)
  // (Speed to lead may still be recording its decision on the first lead; nothing else may appear.)
  const after = (await f.app.leadline.store.readAll({ fromPosition: before + 1 })).map((e) => e.type)
  t.notOk(after.some((type) => type.startsWith('Lead')), `the refused request is not on the log (${after.join(', ') || 'nothing'})`)
  t.equal((await f.app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': 'llwh_wrong' }, payload: { phone: '1' } })).statusCode, 401)

  const page = await f.browser.get('/app/connections/lead-webhook')
  const rows = [...page.body.matchAll(/<tr>\n<td><time[^>]*>[^<]*<\/time><\/td>\n<td><span class="(ok|bad)">(\d{3})<\/span><\/td>\n<td>([\s\S]*?)<\/td>\n<td>([\s\S]*?)<\/td>/g)]
  t.same(rows.map((r) => [r[2], r[1]]), [['400', 'bad'], ['201', 'ok']], 'newest first; the wrong token is not listed')
  t.match(rows[0]?.[3], 'phone required')
  t.match(rows[0]?.[4], 'token in query')
  t.match(rows[1]?.[3], `new lead <a href="/app/leads/${created.leadId}">`)
  t.match(rows[1]?.[4], 'token in header <span class="muted">(Zapier)</span>')

  for (let i = 0; i < 25; i++) await push({ phone: '312-555-0142', n: String(i) })
  const full = await f.browser.get('/app/connections/lead-webhook')
  t.equal([...full.body.matchAll(/<td><span class="(ok|bad)">/g)].length, 20, 'the last 20')
  const kept = f.app.leadline.views.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE account_id = ?').get(f.accountId) as { n: number }
  t.ok(kept.n <= 20, `older rows are pruned (${kept.n} kept)`)
})

t.test('send a test lead: a do-not-call lead with a fictional number, in Inbound Leads and with its timeline', async (t) => {
  const f = await signedInConsole(t)
  await f.browser.get('/app/connections/lead-webhook')
  const sent = await f.browser.post('/app/connections/lead-webhook/test')
  t.equal(sent.statusCode, 303)
  const leadId = /sent=(ld_[0-9a-z]+)/.exec(sent.headers.location as string)?.[1] as string
  t.ok(leadId)
  const page = await f.browser.get(sent.headers.location as string)
  t.match(page.body, `Test lead sent. <a href="/app/leads/${leadId}">`)
  t.match(page.body, /test button/, 'listed among the deliveries')
  const list = await f.browser.get('/app/leads')
  t.match(list.body, `/app/leads/${leadId}">Test Lead</a>`)
  const lead = f.app.leadline.inboundLeads.get(f.accountId, { leadId })
  t.match(lead, { doNotCall: true, source: 'Leadline test', phone: /^\+1\d{3}55501\d{2}$/ })
  const timeline = await f.browser.get(`/app/leads/${leadId}`)
  t.match(timeline.body, /lead received: Test Lead, \+1\d{10}, test.lead@example.com, source &#34;Leadline test&#34;, do-not-call/)
})

t.test("a test lead never lands on a person's lead: it takes a free fictional number, else an earlier test lead's, else none", async (t) => {
  const f = await signedInConsole(t)
  const numbers = TEST_AREAS.flatMap((area) => Array.from({ length: 100 }, (_, n) => `${area}55501${String(n).padStart(2, '0')}`))
  const free = '9075550199'
  // As the webhook takes them (its rate limit aside: 800 leads at once).
  const account = await f.app.leadline.accounts.require(f.accountId)
  const push = (phone: string, name: string) =>
    receiveLead(f.app.leadline, account, { phone, name, source: 'Spring promo' }, { actor: { kind: 'webhook_token', id: 'test' } })
  // Every fictional number but one is a person's lead, Jane Doe of the curl example among them.
  const people = numbers.filter((n) => n !== free)
  for (let i = 0; i < people.length; i += 50) {
    const answers = await Promise.all(people.slice(i, i + 50).map((n) => push(n, n === '3125550142' ? 'Jane Doe' : `Person ${n}`)))
    t.ok(answers.every((a) => a.created), `people ${i} on are new leads`)
  }
  await f.app.leadline.runner.catchUp()
  const jane = () => f.app.leadline.inboundLeads.get(f.accountId, { phoneLast10: '3125550142' })
  const sendTest = async () => {
    await f.browser.get('/app/connections/lead-webhook')
    return f.browser.post('/app/connections/lead-webhook/test')
  }

  const first = await sendTest()
  t.equal(first.statusCode, 303)
  const testLeadId = /sent=(ld_[0-9a-z]+)/.exec(first.headers.location as string)?.[1] as string
  t.match(f.app.leadline.inboundLeads.get(f.accountId, { leadId: testLeadId }), { phone: `+1${free}`, fullName: 'Test Lead', doNotCall: true }, 'the one free number')
  t.match(jane(), { fullName: 'Jane Doe', doNotCall: false, source: 'Spring promo', submissions: 1 }, 'Jane Doe is untouched')

  // No number is free now: the earlier test lead takes the next one.
  const second = await sendTest()
  t.equal(second.statusCode, 303)
  t.equal(/sent=(ld_[0-9a-z]+)/.exec(second.headers.location as string)?.[1], testLeadId, 'the earlier test lead again')

  // A person has since sent that number too: every fictional number is a person's lead.
  t.equal((await push(free, 'Real Person')).created, false)
  await f.app.leadline.runner.catchUp()
  const head = await f.app.leadline.store.headPosition()
  const refused = await sendTest()
  t.equal(refused.statusCode, 200)
  t.match(refused.body, 'No test lead sent: every fictional number Leadline uses for them')
  t.notOk(refused.body.includes('Test lead sent.'))
  t.equal(await f.app.leadline.store.headPosition(), head, 'nothing was appended')
  t.match(jane(), { fullName: 'Jane Doe', doNotCall: false, submissions: 1 }, 'and Jane Doe is still herself')
})
