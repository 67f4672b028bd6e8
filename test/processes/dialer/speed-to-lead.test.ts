/**
 * Speed to lead end to end: webhook → LeadReceived → decision on the lead's stream → dialer → the
 * REAL Twilio adapter → the fake Twilio server on 127.0.0.1 (TWILIO_API_URL). One decision per
 * person, on any number of nodes and after any replay; no call, with the reason on the history, when
 * speed to lead is off, outside calling hours, or the lead is do-not-call.
 */
import Database from 'better-sqlite3'
import t from 'tap'
import {
  nextCallerId,
  CALLER_ID, DIALING, PUBLIC_URL, dialingApp, fakeTwilio, leadEventTypes, leadEvents, manualClock, placedCalls, postLead, reopen, sleep, waitFor, waitForEvent,
} from '../../helpers/dialing-app.ts'

t.test('a new lead inside calling hours: exactly one call request, with the right From/To/Url/StatusCallback', async (t) => {
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, { fake })
  const { account, token } = await createAccount('Acme', DIALING)
  const posted = await postLead(app, token, { name: 'Jane Doe', phone: '(312) 555-0142' })
  t.equal(posted.status, 201)
  const [request] = await fake.waitForCalls(1)
  const placed = await waitForEvent(leadline, account.accountId, '3125550142', 'CallPlaced')
  const decided = (await leadEvents(leadline, account.accountId, '3125550142')).find((e) => e.type === 'CallDecided')
  const decisionId = (decided?.data as { decisionId: string }).decisionId
  t.match(request, {
    method: 'POST',
    path: `/2010-04-01/Accounts/${fake.accountSid}/Calls.json`,
    outcome: 'created',
    form: {
      From: CALLER_ID,
      To: '+13125550142',
      Url: `${PUBLIC_URL}/api/carrier/twilio/answer?decision=${decisionId}`,
      Method: 'POST',
      StatusCallback: `${PUBLIC_URL}/api/carrier/twilio/status`,
      StatusCallbackMethod: 'POST',
    },
  })
  t.same(request?.form.StatusCallbackEvent, ['initiated', 'ringing', 'answered', 'completed'])
  t.same(await leadEventTypes(leadline, account.accountId, '3125550142'), ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced'])
  t.match(decided, { data: { purpose: 'speed_to_lead', from: CALLER_ID, to: '+13125550142', attempt: 1 }, metadata: { actor: { kind: 'webhook_token' } } })
  // Decided in the same append as the lead: no moment exists when the lead is on the log undecided.
  const [received] = await leadEvents(leadline, account.accountId, '3125550142')
  t.match(received?.data, { list: { listId: 'inbound-leads', listName: 'Inbound Leads' } }, 'the lead carries its list')
  t.notOk('speedToLeadSkipped' in (received?.data as object), 'and no skip: speed to lead called')
  t.equal(decided?.position, (received?.position as number) + 1, 'the decision follows the lead at once')
  t.equal(decided?.recordedAt, received?.recordedAt, 'in the same commit')
  t.equal(decided?.metadata.correlationId, received?.metadata.correlationId)
  t.match(placed.data, { decisionId, callId: request?.sid, carrier: 'twilio' }, 'CallPlaced carries the carrier call id')
  t.match(leadline.calls.byCallId(request?.sid as string) ?? (await leadline.runner.catchUp(), leadline.calls.byCallId(request?.sid as string)), { decisionId, stage: 'placed', purpose: 'speed_to_lead' })
  await sleep(200)
  t.equal(fake.callRequests().length, 1, 'and no second request')
})

t.test('50 concurrent duplicate submissions of one person produce one lead and one call', async (t) => {
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, { fake })
  const { account, token } = await createAccount('Acme', DIALING)
  const formats = ['3125550142', '(312) 555-0142', '+1 312 555 0142', '312.555.0142', '1-312-555-0142']
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => postLead(app, token, { phone: formats[i % formats.length], name: 'Jane Doe', vendor: `v${i}` })))
  t.same(results.map((r) => r.status).sort((a, b) => a - b), [...Array.from({ length: 49 }, () => 200), 201], 'one created, 49 updates')
  t.equal(new Set(results.map((r) => r.body.leadId)).size, 1, 'one lead id')
  await fake.waitForCalls(1)
  await waitForEvent(leadline, account.accountId, '3125550142', 'CallPlaced')
  await sleep(300)
  t.equal(fake.callRequests().length, 1, 'one call request')
  const types = await leadEventTypes(leadline, account.accountId, '3125550142')
  t.equal(types.filter((x) => x === 'CallDecided').length, 1, 'one decision')
  t.equal(types.filter((x) => x === 'LeadUpdated').length, 49)
})

t.test('no call, and the reason on the lead history', async (t) => {
  const fake = await fakeTwilio(t)
  // Tuesday 10 March 2026, 08:30 in New York (05:30 in California).
  const clock = manualClock('2026-03-10T12:30:00Z')
  const { app, leadline, createAccount } = await dialingApp(t, { fake, clock })

  const skipped = async (settings: Record<string, unknown>, lead: Record<string, unknown>) => {
    // Each account its own number: a number belongs to one account.
    const { account, token } = await createAccount('Acme', { ...settings, ...('callerId' in settings && settings.callerId !== null ? { callerId: nextCallerId(leadline) } : {}) })
    t.equal((await postLead(app, token, lead)).status, 201)
    // The reason is on the lead's own LeadReceived, decided in the same append.
    const event = await waitForEvent(leadline, account.accountId, String(lead.phone), 'LeadReceived')
    return { skip: (event.data as { speedToLeadSkipped?: Record<string, unknown> }).speedToLeadSkipped, account }
  }

  const outside = await skipped({ ...DIALING, callingHours: 'mon-fri 09:00-18:00' }, { phone: '3125550101' })
  t.match(outside.skip, { reason: 'outside_calling_hours', nextAllowedAt: '2026-03-10T13:00:00.000Z', message: /calling hours/i }, 'outside calling hours, with the next allowed time')
  // When it was skipped is when the lead arrived: the skip has no time of its own.
  t.same(Object.keys(outside.skip ?? {}).sort(), ['message', 'nextAllowedAt', 'reason'])
  const off = await skipped({ ...DIALING, speedToLead: false }, { phone: '3125550102' })
  t.match(off.skip, { reason: 'speed_to_lead_off', nextAllowedAt: null })
  const dnc = await skipped(DIALING, { phone: '3125550103', dnc: 'yes' })
  t.match(dnc.skip, { reason: 'do_not_call', nextAllowedAt: null })
  const box = await skipped(DIALING, { phone: '3125550105', do_not_call: 'on' })
  t.match(box.skip, { reason: 'do_not_call' }, "a web form's ticked do-not-call box (sent as on) is respected too")
  const guard = await skipped({ ...DIALING, leadTimeGuard: true }, { phone: '4155550104' })
  t.match(guard.skip, { reason: 'outside_lead_hours', nextAllowedAt: '2026-03-10T15:00:00.000Z' }, "the lead-time guard: 08:00 on the lead's own clock")
  await sleep(200)
  t.equal(fake.callRequests().length, 0, 'no call request at all')
  t.same(await leadEventTypes(leadline, outside.account.accountId, '3125550101'), ['LeadReceived'], 'one event: the lead, its list and the reason')
})

t.test('a later submission (LeadUpdated) never starts speed to lead', async (t) => {
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, { fake })
  const { account, token } = await createAccount('Acme', { ...DIALING, speedToLead: false })
  await postLead(app, token, { phone: '3125550142' })
  const received = await waitForEvent(leadline, account.accountId, '3125550142', 'LeadReceived')
  t.match(received.data, { speedToLeadSkipped: { reason: 'speed_to_lead_off' } })
  await leadline.accounts.changeSettings(account.accountId, { speedToLead: true }, { actor: { kind: 'operator', id: 'test' } })
  t.equal((await postLead(app, token, { phone: '3125550142', email: 'jane@example.com' })).status, 200)
  await sleep(300)
  t.equal(fake.callRequests().length, 0, 'one person never gets a second sequence')
  t.same(await leadEventTypes(leadline, account.accountId, '3125550142'), ['LeadReceived', 'LeadUpdated'])
})

t.test('a replayed subscription decides nothing again and rings no one again', async (t) => {
  const fake = await fakeTwilio(t)
  const first = await dialingApp(t, { fake, store: 'sqlite' })
  const { account, token } = await first.createAccount('Acme', DIALING)
  await postLead(first.app, token, { phone: '3125550142' })
  await waitForEvent(first.leadline, account.accountId, '3125550142', 'CallPlaced')
  await first.app.close()
  await first.leadline.close()
  // Rewind the process managers to the start of the log: every event is delivered again.
  const views = new Database(first.viewsPath)
  views.prepare('UPDATE process_checkpoints SET position = 0').run()
  views.close()
  const again = await reopen(t, first, { fake })
  await waitFor('the replay to reach the head', async () => {
    const row = again.leadline.views.prepare('SELECT position FROM process_checkpoints').get() as { position: number }
    return row.position >= (await again.leadline.store.headPosition())
  })
  await sleep(300)
  t.equal(fake.callRequests().length, 1, 'still one call request')
  const types = await leadEventTypes(again.leadline, account.accountId, '3125550142')
  t.same(types, ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced'], 'and no new event')
})

t.test('two nodes on one log: one decision, one call', async (t) => {
  const fake = await fakeTwilio(t)
  const nodeA = await dialingApp(t, { fake, store: 'sqlite' })
  const nodeB = await reopen(t, { store: nodeA.store, viewsPath: `${nodeA.viewsPath}.node-b` }, { fake })
  const { account, token } = await nodeA.createAccount('Acme', { ...DIALING, callsPerSecond: 100 })
  // Leads arrive at either node; both nodes run speed to lead and a dialer over the same log.
  const phones = Array.from({ length: 10 }, (_, i) => `31255501${String(i).padStart(2, '0')}`)
  await nodeB.leadline.runner.catchUp()
  const posted = await Promise.all(phones.map((phone, i) => postLead(i % 2 ? nodeB.app : nodeA.app, token, { phone })))
  t.same(posted.map((p) => p.status), phones.map(() => 201))
  await fake.waitForCalls(10)
  await sleep(500)
  t.equal(fake.callRequests().length, 10, 'ten leads, ten calls')
  t.same(new Set(fake.callRequests().map((r) => r.form.To)).size, 10, 'each person rung once')
  for (const phone of phones) {
    const types = await leadEventTypes(nodeA.leadline, account.accountId, phone)
    t.equal(types.filter((x) => x === 'CallDecided').length, 1, `${phone}: one decision`)
    t.equal(types.filter((x) => x === 'CallAttemptStarted').length, 1, `${phone}: one claim`)
  }
  t.ok(placedCalls(fake).length === 10)
})
