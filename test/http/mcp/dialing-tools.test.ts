/**
 * place_call and get_next_actions against the real dialing and stale-leads services (no stand-ins
 * for our own services; the carrier is the simulated one, or a carrier that refuses).
 */
import t from 'tap'
import { CarrierError } from '../../../src/integrations/carrier/carrier.port.ts'
import { idempotencyStream } from '../../../src/domain/idempotency/idempotency.events.ts'
import { mcpApp, SCOPE_SETS } from './mcp-helpers.ts'

const DIALABLE = { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callsPerSecond: 50 }
const RECORDING_URL = 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE0123456789abcdef0123456789abcdef'

t.test('place_call places a real call (simulated carrier) and records it on the lead', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account('Acme', DIALABLE)
  const jane = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const answer = await app.call(account.keys.dial, 'place_call', { phone: '312.555.0142', name: 'Jane Doe', idempotency_key: 'call-1' })
  t.match(answer.result?.structuredContent, {
    status: 'placed',
    call_id: /^CAsim/,
    lead_id: jane.leadId,
    from: '+15125550100',
    to: '+13125550142',
    carrier: 'simulated',
    check: { allowed: true, reason: null, next_allowed_at: null },
    dry_run: false,
  })
  const history = (await app.call(account.keys.read, 'get_lead_history', { lead_id: jane.leadId })).result?.structuredContent
  const placed = (history.events as Array<{ type: string; actor: { kind: string; id: string } }>).filter((e) => /^Call/.test(e.type))
  t.ok(placed.some((e) => e.type === 'CallPlaced'), 'CallPlaced is in the history')
  t.ok(placed.some((e) => e.actor.kind === 'api_key' && e.actor.id === account.keyIds.dial), 'the decision names the API key')

  // A person the book has not met is called too, and becomes a lead (not listed in Inbound Leads).
  const stranger = await app.call(account.keys.dial, 'place_call', { phone: '+1 (646) 555-0199', name: 'Sam Stranger', idempotency_key: 'call-2' })
  t.match(stranger.result?.structuredContent, { status: 'placed', lead_id: /^ld_/, to: '+16465550199' })
})

t.test('20 place_calls with one key at once ring once', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account('Acme', DIALABLE)
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => app.call(account.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: 'ring-once' })),
  )
  t.equal(new Set(answers.map((a) => JSON.stringify(a.result?.structuredContent))).size, 1, 'one result for all 20')
  t.match(answers[0]?.result?.structuredContent, { status: 'placed', call_id: /^CAsim/ })
  const events = await app.leadline.store.readStream(`lead-${account.accountId}-3125550142`)
  t.equal(events.filter((e) => e.type === 'CallPlaced').length, 1, 'one call placed')
  t.equal(events.filter((e) => e.type === 'CallDecided').length, 1, 'one decision')
  t.same((await app.leadline.store.readStream(idempotencyStream(account.accountId, 'ring-once'))).map((e) => e.type), ['IdempotencyKeyClaimed', 'IdempotencyResultRecorded'])
  t.match(await app.call(account.keys.dial, 'place_call', { phone: '3125550143', name: 'Jane Doe', idempotency_key: 'ring-once' }), {
    error: { code: -32602, data: { code: 'idempotency_key_reused' } },
  })
})

t.test('refusals are -32603 with data.code (and data.next_allowed_at); a dry run says the same and appends nothing', async (t) => {
  // Sunday 11:00 in New York: outside mon-fri 09:00-18:00; next allowed Monday 09:00 (13:00 UTC).
  const now = new Date('2025-06-01T15:00:00Z')
  const app = await mcpApp(t, { clock: () => now, start: false })
  const account = await app.account('Acme', { callerId: '+15125550100', callingHours: 'mon-fri 09:00-18:00', leadTimeGuard: false, timeZone: 'America/New_York' })
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  await account.pushLead({ name: 'Dee Nocall', phone: '(312) 555-0143', dnc: 'yes' })
  const noCallerId = await app.account('No caller id', { callingHours: 'mon-sun 00:00-24:00' })
  const before = await app.leadline.store.headPosition()

  const dry = await app.call(account.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: 'hours', dry_run: true })
  t.match(dry.result?.structuredContent, {
    status: 'would_not_call',
    dry_run: true,
    call_id: null,
    check: { allowed: false, reason: 'outside_calling_hours', next_allowed_at: '2025-06-02T13:00:00.000Z', account_zone: 'America/New_York' },
  })
  t.match(await app.call(account.keys.dial, 'place_call', { phone: '3125550143', name: 'Dee', idempotency_key: 'dnc', dry_run: true }), {
    result: { structuredContent: { status: 'would_not_call', check: { reason: 'do_not_call', next_allowed_at: null } } },
  })
  t.equal(await app.leadline.store.headPosition(), before, 'dry runs appended nothing')

  t.match(await app.call(account.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: 'hours' }), {
    error: { code: -32603, data: { code: 'outside_calling_hours', next_allowed_at: '2025-06-02T13:00:00.000Z' } },
  })
  t.match(await app.call(account.keys.dial, 'place_call', { phone: '3125550143', name: 'Dee', idempotency_key: 'dnc' }), { error: { code: -32603, data: { code: 'do_not_call' } } })
  t.match(await app.call(noCallerId.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane', idempotency_key: 'cid' }), { error: { code: -32603, data: { code: 'no_caller_id' } } })
  t.equal(
    (await app.leadline.store.readAll({ fromPosition: before + 1 })).filter((e) => !e.stream.startsWith('idempotency-')).length,
    0,
    'a refusal changes no lead; only the keys record their outcome',
  )
})

t.test('mark_do_not_call, then place_call is refused with do_not_call', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account('Acme', DIALABLE)
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  t.match(await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'stop' }), { result: { structuredContent: { changed: true } } })
  t.match(await app.call(account.keys.all, 'place_call', { phone: '3125550142', name: 'Jane', idempotency_key: 'after-stop' }), {
    error: { code: -32603, data: { code: 'do_not_call' } },
  })
})

t.test('a carrier refusal is -32603 carrier_error', async (t) => {
  const app = await mcpApp(t, {
    carrier: () => ({
      name: 'simulated',
      callbackUrls: (publicUrl: string) => ({ answerUrl: `${publicUrl}/answer`, statusCallbackUrl: `${publicUrl}/status` }),
      placeCall: async () => Promise.reject(new CarrierError('rejected', 'The number is not a valid phone number', { status: 400, carrierCode: 21211 })),
      sendText: async () => Promise.reject(new CarrierError('rejected', 'no texts')),
      updateCall: async () => Promise.reject(new CarrierError('rejected', 'no calls to update')),
    }),
  })
  const account = await app.account('Acme', DIALABLE)
  t.match(await app.call(account.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane', idempotency_key: 'refused' }), {
    error: { code: -32603, message: /the carrier refused the call/, data: { code: 'carrier_error', failure: 'rejected' } },
  })
  t.match(await app.call(account.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane', idempotency_key: 'refused' }), {
    error: { code: -32603, data: { code: 'carrier_error' } },
  }, 'the same key: the same refusal, not a second attempt')
})

t.test('get_next_actions: the stale leads of the key\'s account only, at every scope with read, without recordings', async (t) => {
  let now = new Date('2025-06-02T15:00:00Z')
  const app = await mcpApp(t, { clock: () => now })
  const a = await app.account('A', DIALABLE)
  const b = await app.account('B', { ...DIALABLE, callerId: '+15125550200' })
  const alice = await a.pushLead({ name: 'Alice A', phone: '(312) 555-0101', source: 'Spring' })
  const bLead = await b.pushLead({ name: 'Bob B', phone: '(415) 555-0202' })
  await app.leadline.store.appendToStream(
    `lead-${a.accountId}-3125550101`,
    [{ type: 'CallRecordingAvailable', data: { decisionId: 'd', callId: 'CA1', recordingUrl: RECORDING_URL, at: now.toISOString() }, metadata: { correlationId: 'x', causationId: null, actor: { kind: 'carrier', id: 'twilio' }, schemaVersion: 1 } }],
    'stream_exists',
  )
  now = new Date(now.getTime() + 20 * 60_000) // 20 minutes later, nobody has called Alice
  await app.settle()
  for (const scopes of SCOPE_SETS) {
    const answer = await app.call(a.keys[scopes.join(',')] as string, 'get_next_actions', {})
    if (!scopes.includes('read')) {
      t.match(answer.error, { code: -32003, data: { scope: 'read' } })
      continue
    }
    t.match(answer.result?.structuredContent, {
      summary: /1 new lead has not been contacted/,
      stale_leads: [{ lead_id: alice.leadId, name: 'Alice A', phone: '+13125550101', source: 'Spring', why: 'never_contacted', attempts: 0, suggested_action: String }],
    }, `[${scopes.join(',')}]`)
    const text = JSON.stringify(answer)
    t.notOk(text.includes(bLead.leadId) || text.includes('4155550202') || text.includes(b.accountId), 'nothing of B')
    t.notOk(/Recordings\//.test(text), 'no recording')
  }
  t.match(await app.call(a.keys.read, 'get_next_actions', { limit: 0 }), { error: { code: -32602, data: { problems: [{ path: 'limit' }] } } })
  t.match(await app.call(a.keys.read, 'get_next_actions', { limit: 101 }), { error: { code: -32602 } })
  t.match(await app.call(b.keys.read, 'get_next_actions'), { result: { structuredContent: { stale_leads: [{ lead_id: bLead.leadId }] } } }, 'B sees its own')
})

t.test('a state calling rule refuses by name: dry run check.rule, error.data.rule, and the smaller daily cap (#27)', async (t) => {
  // Tuesday 1 December 2026, 20:30 in Miami (Eastern, UTC-5): Florida allows sales calls 08:00-20:00.
  let now = new Date('2026-12-02T01:30:00Z')
  const app = await mcpApp(t, { clock: () => now })
  const account = await app.account('Acme', { ...DIALABLE, leadTimeGuard: true, timeZone: 'America/New_York', followUp: '10m; max 10 per 24h' })
  const dry = await app.call(account.keys.dial, 'place_call', { phone: '(305) 555-0142', name: 'Flo Rida', idempotency_key: 'fl-dry', dry_run: true })
  t.match(dry.result?.structuredContent, {
    status: 'would_not_call',
    check: { allowed: false, reason: 'outside_lead_hours', rule: 'FL 501.616', next_allowed_at: '2026-12-02T13:00:00.000Z', daily_limit: 3 },
  })
  t.match(await app.call(account.keys.dial, 'place_call', { phone: '(305) 555-0142', name: 'Flo Rida', idempotency_key: 'fl-late' }), {
    error: { code: -32603, data: { code: 'outside_lead_hours', rule: 'FL 501.616', next_allowed_at: '2026-12-02T13:00:00.000Z' } },
  })
  // Texas at 20:30 Central is inside the federal hours.
  t.match((await app.call(account.keys.dial, 'place_call', { phone: '(214) 555-0142', name: 'Tex', idempotency_key: 'tx', dry_run: true })).result?.structuredContent, {
    status: 'would_call',
    check: { allowed: true, rule: null, daily_limit: 10 },
  })

  // Three calls in the morning, then a fourth is refused under Florida's cap, not the account's 10.
  now = new Date('2026-12-02T14:00:00Z')
  for (const key of ['fl-1', 'fl-2', 'fl-3']) {
    t.match(await app.call(account.keys.dial, 'place_call', { phone: '(305) 555-0142', name: 'Flo Rida', idempotency_key: key }), { result: { structuredContent: { status: 'placed' } } })
  }
  t.match(await app.call(account.keys.dial, 'place_call', { phone: '(305) 555-0142', name: 'Flo Rida', idempotency_key: 'fl-4' }), {
    error: { code: -32603, data: { code: 'daily_limit', rule: 'FL 501.616', daily_limit: 3 } },
  })
})
