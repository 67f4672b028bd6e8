/**
 * Conversations (issue #44): the Inbox lists leads with unread texts and counts them in the navigation;
 * a lead's page shows the thread (both directions, how each went, times in the account's zone) and
 * reading it is recorded (ConversationRead); a reply goes through send_sms's checks. What the lead
 * texted shows there and nowhere else: not in a tool answer, an event summary, an alert or the history.
 */
import path from 'node:path'
import t from 'tap'
import { runCli } from '../../../src/cli/main.ts'
import { summarise } from '../../../src/audit/event-summary.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { replay } from '../../../src/audit/replay.ts'
import { leadStatusProjection } from '../../../projections/lead-status/lead-status.projection.ts'
import { conversationsProjection } from '../../../projections/conversations/conversations.projection.ts'
import { LEADS_PAGE_SIZE } from '../../../src/http/console/leads.route.ts'
import { BEN_TEXT, cockpit, formKey, listNames, PEOPLE } from './cockpit-fixture.ts'

const ESCAPED_TEXT = "Can you call me after 5? I&#39;m at work &#60;b&#62;now&#60;/b&#62;"

t.test('the Inbox: unread texts counted in the navigation; opening the lead reads them (an event), the reply goes out', async (t) => {
  const c = await cockpit(t)
  const home = await c.browser.get('/app/home')
  t.match(home.body, /Inbox <span class="count">2<span class="visually-hidden"> unread<\/span><\/span>/, "Ben's reply and Dan's STOP are unread")
  const inbox = await c.browser.get('/app/inbox')
  t.same([...inbox.body.matchAll(/<td><a href="\/app\/leads\/ld_[0-9a-z]+#conversation">([^<]*)<\/a><\/td><td>([^<]*)<\/td>\s*<td class="num">(\d+)<\/td>/g)].map((m) => [m[1], m[2], m[3]]),
    [['Dan Dunn', PEOPLE.dan.phone, '1'], ['Ben Baker', PEOPLE.ben.phone, '1']], 'newest first, with the number unread')
  t.notMatch(inbox.body, 'Can you call me', 'the Inbox lists who, not what')

  const page = await c.browser.get(`/app/leads/${c.ids.ben}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, ESCAPED_TEXT, 'what the lead texted, escaped, on their own page')
  t.match(page.body, /From the lead · <time datetime="2026-03-10T15:05:00.000Z">2026-03-10 10:05 CDT<\/time>/)
  t.match(page.body, /<span class="badge">replied<\/span>/, 'the status')
  const stream = leadStream(c.accountId, PEOPLE.ben.phone.slice(-10))
  const read = (await c.built.leadline.store.readStream(stream)).filter((e) => e.type === 'ConversationRead')
  t.equal(read.length, 1, 'reading is a state change, on the lead stream')
  t.match(read[0], { data: { unread: 1 }, metadata: { actor: { kind: 'user' } } })
  await c.browser.get(`/app/leads/${c.ids.ben}`)
  t.equal((await c.built.leadline.store.readStream(stream)).filter((e) => e.type === 'ConversationRead').length, 1, 'reading again records nothing')
  t.match((await c.browser.get('/app/inbox')).body, /Inbox <span class="count">1</, 'one lead left unread')

  // The reply, twice from the same form (a double click): one text, sent by the carrier.
  const key = formKey(page.body, `/app/leads/${c.ids.ben}/reply`)
  const [sent, again] = await Promise.all([
    c.browser.post(`/app/leads/${c.ids.ben}/reply`, { idempotency_key: key, body: 'Sure, at 5:30. Mike' }),
    c.browser.post(`/app/leads/${c.ids.ben}/reply`, { idempotency_key: key, body: 'Sure, at 5:30. Mike' }),
  ])
  t.equal(sent.statusCode, 303)
  t.equal(again.statusCode, 303)
  t.equal(sent.headers.location, `/app/leads/${c.ids.ben}#conversation`)
  const messages = c.fake.messageRequests().filter((r) => r.form.To === PEOPLE.ben.phone)
  t.equal(messages.length, 1, 'one text')
  t.match(messages[0]?.form.Body, /^Sure, at 5:30\. Mike\nReply STOP to opt out/i, 'with the opt-out line send_sms adds')
  const thread = await c.browser.get(`/app/leads/${c.ids.ben}`)
  t.match(thread.body, /To the lead, by you · <time[^>]*>2026-03-10 10:20 CDT<\/time><\/span>\s*<p class="body">Sure, at 5:30\. Mike/)
  t.match(thread.body, 'sent (the carrier took it)')

  // Dan texted STOP: the thread shows it and Leadline's confirmation; a reply is refused with the rule.
  const dan = await c.browser.get(`/app/leads/${c.ids.dan}`)
  t.match(dan.body, /<p class="body">STOP<\/p>\s*<span class="meta">received; an opt-out: no more calls or texts/)
  t.match(dan.body, "by Leadline&#39;s opt-out confirmation")
  t.notMatch((await c.browser.get('/app/inbox')).body, 'class="count"', 'nothing unread once both were read')
})

t.test('a reply to a do-not-call lead is refused with its rule; nothing is sent and the draft is kept', async (t) => {
  const c = await cockpit(t)
  const page = await c.browser.get(`/app/leads/${c.ids.cara}`)
  const key = formKey(page.body, `/app/leads/${c.ids.cara}/reply`)
  const refused = await c.browser.post(`/app/leads/${c.ids.cara}/reply`, { idempotency_key: key, body: 'Still interested?' })
  t.equal(refused.statusCode, 409)
  t.match(refused.body, /role="alert">Not sent: [^<]*do-not-call[^<]*\. Nothing went out\./)
  t.match(refused.body, />Still interested\?<\/textarea>/, 'the draft is kept')
  const stream = leadStream(c.accountId, PEOPLE.cara.phone.slice(-10))
  t.notOk((await c.built.leadline.store.readStream(stream)).some((e) => e.type === 'TextDecided'), 'no text decided')
  t.equal(c.fake.messageRequests().filter((r) => r.form.To === PEOPLE.cara.phone).length, 0)

  // Outside the hours: refused with when it may go, in the account's zone.
  await c.built.leadline.accounts.changeSettings(c.accountId, { callingHours: 'mon-fri 11:00-17:00' }, { actor: { kind: 'operator', id: 'test' } })
  const ben = await c.browser.get(`/app/leads/${c.ids.ben}`)
  const late = await c.browser.post(`/app/leads/${c.ids.ben}/reply`, { idempotency_key: formKey(ben.body, `/app/leads/${c.ids.ben}/reply`), body: 'Hi' })
  t.equal(late.statusCode, 409)
  t.match(late.body, /It may be sent from <time datetime="2026-03-10T16:00:00.000Z">2026-03-10 11:00 CDT<\/time>/)
})

t.test('lead status: each lead where it stands, the list filters by it, and a replay rebuilds the same', async (t) => {
  const c = await cockpit(t, { store: 'sqlite' })
  const names = async (status: string) => listNames((await c.browser.get(`/app/leads?status=${status}`)).body)
  t.same(await names('new'), ['Ann Able'])
  t.same(await names('replied'), ['Ben Baker'])
  t.same(await names('do_not_call'), ['Dan Dunn', 'Cara Cole'], 'Dan texted STOP; the source said so of Cara')
  t.same(await names('calling'), [])
  t.match((await c.browser.get('/app/leads?status=bogus')).body, '&#34;bogus&#34; is not a status.')
  // A callback the account schedules: "callback at" its time in the account's zone.
  await c.built.leadline.commands.handle(
    leadStream(c.accountId, PEOPLE.ann.phone.slice(-10)), (await import('../../../src/domain/lead/lead.decider.ts')).leadDecider,
    { type: 'ScheduleCallback', settings: (await c.built.leadline.accounts.get(c.accountId))!.settings, callbackAt: '2026-03-10T21:00:00.000Z' }, { actor: { kind: 'operator', id: 'test' } },
  )
  await c.built.leadline.runner.catchUp()
  const list = await c.browser.get('/app/leads')
  t.match(list.body, /callback at <time datetime="2026-03-10T21:00:00.000Z">2026-03-10 16:00 CDT<\/time>/)
  t.same(await names('callback'), ['Ann Able'])

  const result = await replay({
    store: c.built.leadline.store, live: c.built.leadline.views, scratchPath: path.join(c.built.dir, 'scratch.db'), projections: [leadStatusProjection, conversationsProjection], mode: 'verify', readerThread: false,
  })
  t.same(result.differences, [], 'rebuilt from the log, the statuses and the unread counts are the same')
})

t.test('what a lead texted is in the console only: no tool answer, event summary, alert or history carries it', async (t) => {
  const c = await cockpit(t, { store: 'sqlite' })
  t.match((await c.browser.get(`/app/leads/${c.ids.ben}`)).body, ESCAPED_TEXT)
  const { key: issued } = await c.built.leadline.accounts.createApiKey(c.accountId, ['read', 'write', 'dial'], 'agent', { actor: { kind: 'operator', id: 'test' } })
  const key = issued.secret
  const answers: string[] = []
  for (const [name, args] of [['get_lead', { lead_id: c.ids.ben }], ['get_next_actions', {}], ['list_leads', {}], ['get_lead', { phone: PEOPLE.ben.phone }]] as const) {
    const response = await c.built.app.inject({
      method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    })
    t.equal(response.statusCode, 200, name)
    t.notMatch(response.body, /"isError":true/, `${name} answered`)
    answers.push(response.body)
  }
  t.notMatch(answers.join('\n'), /call me after 5/, 'no tool answer')
  const events = await c.built.leadline.store.readStream(leadStream(c.accountId, PEOPLE.ben.phone.slice(-10)))
  t.notMatch(events.map((e) => summarise(e)).join('\n'), /call me after 5/, 'no event summary')
  const owner = c.fake.messageRequests().map((r) => String(r.form.Body)).join('\n')
  t.notMatch(owner, /call me after 5/, 'no text the carrier was asked to send (an alert to the owner included)')
  await c.built.app.close()
  await c.built.leadline.close()
  const out: string[] = []
  const code = await runCli(['history', '--account', c.accountId, '--phone', PEOPLE.ben.phone], {
    out: (s) => out.push(s), err: (s) => out.push(s), env: { LEADLINE_STORE: c.built.store, LEADLINE_VIEWS: c.built.viewsPath },
  })
  t.equal(code, 0, out.join(''))
  t.match(out.join(''), 'text received from', 'the history has the text event')
  t.notMatch(out.join(''), /call me after 5/, 'but not what it said')
  t.match(BEN_TEXT, /call me after 5/)
})

t.test('the list by status pages newest first, as the whole list does', async (t) => {
  const c = await cockpit(t)
  for (let i = 0; i < LEADS_PAGE_SIZE + 2; i++) {
    await c.built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': c.token }, payload: { name: `Person ${i}`, phone: `617-555-${String(1000 + i)}` } })
  }
  await c.built.leadline.runner.catchUp()
  const first = await c.browser.get('/app/leads?status=new')
  const names = listNames(first.body)
  t.equal(names.length, LEADS_PAGE_SIZE)
  t.equal(names[0], `Person ${LEADS_PAGE_SIZE + 1}`, 'newest first')
  const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.body)?.[1]?.replaceAll('&#38;', '&')
  t.match(next, /status=new/, 'the next page keeps the filter')
  t.same(listNames((await c.browser.get(next as string)).body), ['Person 1', 'Person 0', 'Ann Able'])
})
