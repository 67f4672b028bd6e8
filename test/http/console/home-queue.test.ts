/**
 * Home (issue #44): the call-now queue is get_next_actions' page with plain reasons, the lead's time and
 * whether a call may go out now; "Call" rings the owner first and the lead only after they press 1,
 * every rule applied; a double click (two posts of one form at once) is one call.
 */
import t from 'tap'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { readLeadHistory } from '../../../src/audit/lead-history.ts'
import { placedCalls, waitFor } from '../../helpers/dialing-app.ts'
import { cockpit, formKey, OWNER_PHONE, PEOPLE, queueNames } from './cockpit-fixture.ts'

t.test('the queue: the same leads as get_next_actions, each with its reason, local time and whether it may be called now', async (t) => {
  const c = await cockpit(t)
  const page = await c.browser.get('/app/home')
  t.equal(page.statusCode, 200)
  t.same(queueNames(page.body), ['Ben Baker', 'Ann Able'], 'the reply first, then the new lead; do-not-call and opted-out leads are not there')
  const actions = await c.built.leadline.nextActions.getNextActions((await c.built.leadline.accounts.get(c.accountId))!)
  t.same(actions.stale_leads.map((l) => l.name), ['Ben Baker', 'Ann Able'], 'get_next_actions lists the same leads in the same order')
  t.match(page.body, '2 leads to call, the most urgent first.')
  t.match(page.body, /Texted you back <time datetime="2026-03-10T15:05:00.000Z">2026-03-10 10:05 CDT<\/time>/)
  t.match(page.body, /New lead, received <time datetime="2026-03-10T15:00:00.000Z">2026-03-10 10:00 CDT<\/time>: nobody has reached them yet/)
  t.match(page.body, 'their time: 10:20 AM CDT', "the lead's own clock, its zone named")
  t.equal(page.body.split('You may call now').length - 1, 2, 'both may be called now')
  t.match(page.body, `rings your phone (${OWNER_PHONE}) first`)
  t.equal(page.body.split('<button type="submit" aria-label="Call ').length - 1, 2, 'a Call button each')

  // Outside calling hours: no button, the rule's words and when it opens, in the account's zone.
  await c.built.leadline.accounts.changeSettings(c.accountId, { callingHours: 'mon-fri 11:00-17:00' }, { actor: { kind: 'operator', id: 'test' } })
  await c.built.leadline.runner.catchUp()
  const closed = await c.browser.get('/app/home')
  t.equal(closed.body.split('You may call now').length - 1, 0)
  t.match(closed.body, /Not now<\/span>: .*allowed from <time datetime="2026-03-10T16:00:00.000Z">2026-03-10 11:00 CDT<\/time>/)
  t.notMatch(closed.body, 'aria-label="Call ', 'no Call button while it may not go out')
})

t.test('Call: the owner is rung first, the lead only after they press 1; a double click is one call', async (t) => {
  const c = await cockpit(t)
  const home = await c.browser.get('/app/home')
  const action = `/app/leads/${c.ids.ann}/call`
  const key = formKey(home.body, action)
  // Two posts of the same rendered form at once: one decision, one call.
  const [first, second] = await Promise.all([c.browser.post(action, { idempotency_key: key }), c.browser.post(action, { idempotency_key: key })])
  t.equal(first.statusCode, 200, first.body.slice(0, 300))
  t.equal(second.statusCode, 200)
  t.match(first.body, `Calling your phone (${OWNER_PHONE}) now. Press 1 when you answer and Leadline dials Ann Able.`)
  const stream = leadStream(c.accountId, PEOPLE.ann.phone.slice(-10))
  const decided = (await c.built.leadline.store.readStream(stream)).filter((e) => e.type === 'CallDecided')
  t.equal(decided.length, 1, 'one call decided')
  t.match(decided[0]?.metadata.actor, { kind: 'user' }, 'decided by the signed-in owner')
  const calls = placedCalls(c.fake)
  t.equal(calls.length, 1, 'one call placed')
  t.equal(calls[0]?.form.To, OWNER_PHONE, "the owner's phone rings first, not the lead's")

  // The owner answers: the whisper asks for 1; pressing it dials the lead from the owner's call.
  const sid = calls[0]?.sid as string
  const answer = await c.fake.answerCall(sid, { via: c.baseUrl })
  t.match(answer.body, /Gather/, 'the owner is asked to press 1')
  t.equal(placedCalls(c.fake).length, 1, 'the lead is not rung before the owner pressed 1')
  const pressed = await c.fake.pressKeys(sid, answer.body, '1', { via: c.baseUrl })
  t.match(pressed.body, PEOPLE.ann.phone, "then the lead's number is dialed")
  await waitFor('the lead dialed', async () => (await c.built.leadline.store.readStream(stream)).some((e) => e.type === 'LeadDialStarted'))

  // A new form key is a new call; the daily limit and every other rule still apply to it.
  const again = await c.browser.get('/app/home')
  t.notOk(queueNames(again.body).includes('Ann Able'), 'Ann was called: she leaves the new-lead part of the queue')

  // The owner's timeline: the account's zone named, plain actors, no process, node, token, call or decision ids.
  const lead = await c.browser.get(`/app/leads/${c.ids.ann}`)
  const timeline = lead.body.slice(lead.body.indexOf('<ol class="timeline">'), lead.body.indexOf('</ol>', lead.body.indexOf('<ol class="timeline">')))
  t.match(timeline, /<time datetime="2026-03-10T15:20:00.000Z">2026-03-10 10:20 CDT<\/time> · You<\/span>call decided: click-to-call from the console, attempt 1, \+13125550100 → \+17735550101; the owner \(\+13125550177\) is rung first<\/li>/)
  t.match(timeline, 'Your lead source</span>lead received: Ann Able')
  t.match(timeline, 'Leadline</span>call placed to owner number 1 (+13125550177), before the lead, through twilio</li>')
  t.match(timeline, 'The phone company</span>owner number 1 pressed 1: dialing the lead (+17735550101)')
  t.notMatch(timeline, /process |node |wht_|dec_|usr_|CA[0-9a-f]{32}|idempotency|T\d\d:\d\d:\d\d(?:\.\d+)?Z</, 'no internal labels, no UTC strings')
  // The audit view keeps them: what `leadline history` prints.
  const audit = (await readLeadHistory(c.built.leadline.store, c.accountId, PEOPLE.ann.phone.slice(-10), null))?.history.entries ?? []
  t.ok(audit.some((e) => /^process /.test(e.actorText)), 'the history names the process')
  t.ok(audit.some((e) => /on node /.test(e.summary)), 'and the node')
  t.ok(audit.some((e) => /\(call CA[0-9a-f]{32}\)/.test(e.summary)), "and the carrier's call id")
})

t.test('Call refuses a do-not-call lead with the rule, and rings nobody; a form without its key changes nothing', async (t) => {
  const c = await cockpit(t)
  await c.browser.get('/app/home')
  const refused = await c.browser.post(`/app/leads/${c.ids.cara}/call`, { idempotency_key: 'k'.repeat(24) })
  t.equal(refused.statusCode, 409)
  t.match(refused.body, /role="alert">Not called: [^<]*do-not-call[^<]*\. Nobody was rung\./)
  const opted = await c.browser.post(`/app/leads/${c.ids.dan}/call`, { idempotency_key: 'd'.repeat(24) })
  t.equal(opted.statusCode, 409, 'a lead who texted STOP is not called either')
  const keyless = await c.browser.post(`/app/leads/${c.ids.ann}/call`, {})
  t.equal(keyless.statusCode, 400)
  const otherAccount = await c.browser.post('/app/leads/ld_nosuchlead/call', { idempotency_key: 'n'.repeat(24) })
  t.equal(otherAccount.statusCode, 404)
  const forged = await c.browser.post(`/app/leads/${c.ids.ann}/call`, { _csrf: 'forged', idempotency_key: 'f'.repeat(24) })
  t.equal(forged.statusCode, 403, 'no CSRF token, no call')
  t.equal(placedCalls(c.fake).length, 0, 'nobody was rung')
})

t.test('Call needs an owner phone: without one the queue says where to set it and a post is refused', async (t) => {
  const c = await cockpit(t)
  await c.built.leadline.accounts.changeSettings(c.accountId, { onAnswer: 'greeting' }, { actor: { kind: 'operator', id: 'test' } })
  await c.built.leadline.runner.catchUp()
  const home = await c.browser.get('/app/home')
  t.match(home.body, 'To call from here, name your phone in')
  t.notMatch(home.body, 'aria-label="Call ')
  const refused = await c.browser.post(`/app/leads/${c.ids.ann}/call`, { idempotency_key: 'o'.repeat(24) })
  t.equal(refused.statusCode, 409)
  t.match(refused.body, 'the account names no owner phone to ring first')
  t.equal(placedCalls(c.fake).length, 0)
})

t.test('/app opens on Home once signed in, and signing in lands there', async (t) => {
  const c = await cockpit(t)
  const root = await c.browser.get('/app')
  t.equal(root.headers.location, '/app/home')
})
