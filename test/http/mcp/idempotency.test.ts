/**
 * idempotency_key and dry_run (spec §2.4): one mechanism for every write tool, kept as events. The
 * same key and arguments return the original result (also for 20 calls at once, also across two
 * store handles as two nodes would have), other arguments are refused, a claim without an outcome is
 * in doubt rather than run twice, keys expire after 24 hours, and a dry run appends nothing.
 */
import t from 'tap'
import { DomainError } from '../../../src/domain/shared/decider.ts'
import type { NewEvent, RecordedEvent } from '../../../src/domain/event.ts'
import { StoreUnavailableError, type EventStore } from '../../../src/eventstore/event-store.port.ts'
import { openEventStore } from '../../../src/eventstore/open-event-store.ts'
import { idempotencyStream } from '../../../src/domain/idempotency/idempotency.events.ts'
import { argumentsHash, IdempotencyKeys, keyStatus, type IdempotentCall } from '../../../src/commands/idempotency.ts'
import { mcpApp } from './mcp-helpers.ts'

const metadata = { correlationId: 'test', causationId: null, actor: { kind: 'api_key', id: 'key_test' }, schemaVersion: 1 } as const

t.test('20 identical calls at once: one runs, all 20 get its result', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const jane = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const args = { phone: '312-555-0142', idempotency_key: 'burst-1' }
  const answers = await Promise.all(Array.from({ length: 20 }, () => app.call(account.keys.write, 'mark_do_not_call', args)))
  const outputs = answers.map((a) => JSON.stringify(a.result?.structuredContent))
  t.equal(new Set(outputs).size, 1, 'one result for all 20')
  t.match(answers[0]?.result?.structuredContent, { lead_id: jane.leadId, changed: true, dry_run: false })
  t.equal(answers.filter((a) => a.result?._meta === undefined).length, 1, 'exactly one call ran; 19 are the recorded result')

  const leadEvents = await app.leadline.store.readStream(`lead-${account.accountId}-3125550142`)
  t.equal(leadEvents.filter((e) => e.type === 'LeadMarkedDoNotCall').length, 1, 'one change on the lead')
  const keyEvents = await app.leadline.store.readStream(idempotencyStream(account.accountId, 'burst-1'))
  t.same(keyEvents.map((e) => e.type), ['IdempotencyKeyClaimed', 'IdempotencyResultRecorded'])
  t.match(keyEvents[0]?.data, { tool: 'mark_do_not_call', keyId: account.keyIds.write, argsHash: /^[0-9a-f]{64}$/, claimedAt: String, expiresAt: String })
  const claimed = keyEvents[0]?.data as { claimedAt: string; expiresAt: string }
  t.equal(Date.parse(claimed.expiresAt) - Date.parse(claimed.claimedAt), 24 * 3600 * 1000, 'kept 24 hours')
  t.notMatch(JSON.stringify(keyEvents), /burst-1/, 'the key itself never reaches the log')
  t.equal(keyEvents[0]?.metadata.correlationId, keyEvents[1]?.metadata.correlationId)

  // Any key of the account may replay: the idempotency key belongs to the account.
  t.same((await app.call(account.keys.all, 'mark_do_not_call', args)).result?.structuredContent, answers[0]?.result?.structuredContent)
})

t.test('the same key with other arguments, or for another write tool, is -32602 idempotency_key_reused', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  await account.pushLead({ name: 'John Roe', phone: '(312) 555-0143' })
  t.ok((await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'k-1' })).result)
  const before = await app.leadline.store.headPosition()
  t.match(await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550143', idempotency_key: 'k-1' }), {
    error: { code: -32602, message: /already used with different arguments/, data: { code: 'idempotency_key_reused', tool: 'mark_do_not_call', claimed_at: String } },
  })
  t.match(await app.call(account.keys.all, 'place_call', { phone: '3125550142', name: 'Jane', idempotency_key: 'k-1' }), {
    error: { code: -32602, data: { code: 'idempotency_key_reused', tool: 'mark_do_not_call' } },
  })
  t.equal(await app.leadline.store.headPosition(), before, 'nothing appended')
  t.equal((await app.call(account.keys.read, 'get_lead', { phone: '3125550143' })).result?.structuredContent.lead.do_not_call, false)
  // Another formatting of the same phone is other arguments: the key is for one exact call.
  t.match(await app.call(account.keys.all, 'mark_do_not_call', { phone: '(312) 555-0142', idempotency_key: 'k-1' }), { error: { code: -32602 } })
  // dry_run: false spelled out is the same call as dry_run left out.
  t.match(await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'k-1', dry_run: false }), { result: { _meta: { 'leadline/replayed': true } } })
})

t.test('arguments refused before anything runs use up no key', async (t) => {
  const app = await mcpApp(t, { start: false })
  const account = await app.account()
  const jane = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const before = await app.leadline.store.headPosition()
  const both = await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', lead_id: jane.leadId, idempotency_key: 'both' })
  t.match(both.error, { code: -32602, data: { code: 'invalid_arguments', problems: [{ message: 'give exactly one of phone and lead_id' }] } })
  t.equal(await app.leadline.store.headPosition(), before, 'no claim')
  t.match(await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'both' }), { result: { structuredContent: { changed: true } } }, 'the key is still free')
})

t.test('an error is an outcome too: the same key answers the same error', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const first = await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'err-1' })
  t.match(first.error, { code: -32603, data: { code: 'lead_not_found' } })
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const again = await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'err-1' })
  t.same(again.error, first.error, 'the recorded outcome, even though the lead now exists')
  t.match(await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'err-2' }), { result: { structuredContent: { changed: true } } }, 'a new key runs')
})

t.test('dry_run reports what would happen and appends nothing, not even a claim', async (t) => {
  // Not started: no process manager appends on its own, so the log's head moves only if a dry run appends.
  const app = await mcpApp(t, { start: false })
  const account = await app.account('Acme', { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false })
  const jane = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const before = await app.leadline.store.headPosition()
  const dry = await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'dry-1', dry_run: true })
  t.same(dry.result?.structuredContent, {
    lead_id: jane.leadId,
    phone: '+13125550142',
    do_not_call: true,
    changed: true,
    dry_run: true,
    message: `${jane.leadId} would be marked do-not-call`,
  })
  t.match(await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550199', idempotency_key: 'dry-2', dry_run: true }), { error: { data: { code: 'lead_not_found' } } })
  t.match(await app.call(account.keys.all, 'place_call', { phone: '3125550142', name: 'Jane', idempotency_key: 'dry-3', dry_run: true }), {
    result: { structuredContent: { status: 'would_call', dry_run: true, check: { allowed: true } } },
  })
  t.equal(await app.leadline.store.headPosition(), before, 'the log is unchanged')
  t.same(await app.leadline.store.readStream(idempotencyStream(account.accountId, 'dry-1')), [], 'no claim')

  // The key a dry run named is still unused: the real call runs under it.
  const real = await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'dry-1' })
  t.match(real.result, { structuredContent: { changed: true, dry_run: false } })
  t.equal(real.result?._meta, undefined)
  const after = await app.leadline.store.headPosition()
  t.match(await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'dry-4', dry_run: true }), {
    result: { structuredContent: { changed: false, message: `${jane.leadId} is already do-not-call; nothing would change` } },
  })
  t.equal(await app.leadline.store.headPosition(), after)
})

t.test('a claim with no outcome: in progress while young, in doubt once old; never run twice', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const args = { phone: '3125550142' }
  const claim = (key: string, claimedAt: Date): NewEvent => ({
    type: 'IdempotencyKeyClaimed',
    data: {
      tool: 'mark_do_not_call',
      argsHash: argumentsHash('mark_do_not_call', args),
      keyId: 'key_crashed',
      claimedAt: claimedAt.toISOString(),
      expiresAt: new Date(claimedAt.getTime() + 86_400_000).toISOString(),
    },
    metadata,
  })
  // A node claimed the key two minutes ago and stopped before recording what happened.
  await app.leadline.store.appendToStream(idempotencyStream(account.accountId, 'crashed'), [claim('crashed', new Date(Date.now() - 120_000))], 'no_stream')
  const before = await app.leadline.store.headPosition()
  t.match(await app.call(account.keys.write, 'mark_do_not_call', { ...args, idempotency_key: 'crashed' }), {
    error: { code: -32603, message: /never recorded an outcome; it will not run again under this key/, data: { code: 'idempotency_in_doubt', claimed_at: String } },
  })
  t.equal(await app.leadline.store.headPosition(), before, 'not run')
  t.match(await app.call(account.keys.write, 'mark_do_not_call', { ...args, idempotency_key: 'crashed', phone: '3125550100' }), { error: { code: -32602 } }, 'other arguments are still refused')

  // A claim made a moment ago is still running somewhere: wait briefly, then say so.
  const service = new IdempotencyKeys(app.leadline.store, { waitMs: 60 })
  await app.leadline.store.appendToStream(idempotencyStream(account.accountId, 'running'), [claim('running', new Date())], 'no_stream')
  const call: IdempotentCall = { accountId: account.accountId, keyId: 'key_x', idempotencyKey: 'running', tool: 'mark_do_not_call', args }
  let ran = false
  const started = Date.now()
  await t.rejects(
    service.run(call, async () => {
      ran = true
    }),
    { code: 'idempotency_in_progress', details: { retryAfterSeconds: 2 } },
  )
  t.ok(Date.now() - started >= 60, 'it waited')
  t.notOk(ran)
})

t.test('keys are kept 24 hours: after that the same key is a new call', async (t) => {
  let now = new Date('2025-06-02T15:00:00Z')
  const app = await mcpApp(t, { clock: () => now })
  const account = await app.account()
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const first = await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'day' })
  t.match(first.result?.structuredContent, { changed: true })
  now = new Date(now.getTime() + 24 * 3600 * 1000 - 1)
  t.same((await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'day' })).result?._meta, { 'leadline/replayed': true }, 'one ms short of 24 h: replayed')
  t.match(await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550143', idempotency_key: 'day' }), { error: { code: -32602 } })
  now = new Date(now.getTime() + 1)
  const later = await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'day' })
  t.match(later.result, { structuredContent: { changed: false } }, 'at 24 h the key is free: the call runs again (the lead is already do-not-call)')
  t.equal(later.result?._meta, undefined)
  const events = await app.leadline.store.readStream(idempotencyStream(account.accountId, 'day'))
  t.same(events.map((e) => [e.type, e.revision]), [['IdempotencyKeyClaimed', 0], ['IdempotencyResultRecorded', 1], ['IdempotencyKeyClaimed', 2], ['IdempotencyResultRecorded', 3]])
})

t.test('an idempotency key is 1 to 255 printable ASCII characters', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  for (const key of ['', 'x'.repeat(256), 'line\nbreak', 'tab\tkey', 'café', '\u0000']) {
    t.match(await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: key }), {
      error: { code: -32602, data: { code: 'invalid_arguments', problems: [{ path: 'idempotency_key', message: 'must be 1 to 255 printable ASCII characters' }] } },
    }, JSON.stringify(key).slice(0, 20))
  }
  t.match(await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142' }), { error: { code: -32602, data: { problems: [{ path: 'idempotency_key' }] } } }, 'required')
  for (const key of ['~'.repeat(255), 'a', '550e8400-e29b-41d4-a716-446655440000', 'order 42: retry #1']) {
    t.ok((await app.call(account.keys.write, 'mark_do_not_call', { phone: '3125550142', idempotency_key: key })).result, key.slice(0, 20))
  }
})

t.test('two nodes (two store handles on one log), 10 calls each at once: one runs', async (t) => {
  // On the files: a second handle on the in-memory store would be a log of its own.
  const app = await mcpApp(t, { store: 'sqlite' })
  const other = await openEventStore(app.store)
  t.teardown(() => other.close())
  const nodes = [app.leadline.idempotency, new IdempotencyKeys(other)]
  let runs = 0
  const call: IdempotentCall = { accountId: 'acc_two', keyId: 'key_1', idempotencyKey: 'shared', tool: 'mark_do_not_call', args: { phone: '3125550142' } }
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      (nodes[i % 2] as IdempotencyKeys).run(call, async () => {
        runs += 1
        await new Promise((resolve) => setTimeout(resolve, 30))
        return { ran: runs }
      }),
    ),
  )
  t.equal(runs, 1)
  t.same(new Set(results.map((r) => JSON.stringify(r.value))), new Set(['{"ran":1}']))
  t.equal(results.filter((r) => !r.replayed).length, 1)
})

t.test('the service: failures as outcomes, and an outcome the log would not take', async (t) => {
  const app = await mcpApp(t)
  const call = (key: string): IdempotentCall => ({ accountId: 'acc_svc', keyId: 'key_1', idempotencyKey: key, tool: 'test_tool', args: {} })
  const service = app.leadline.idempotency
  const bug = new TypeError('boom')
  await t.rejects(service.run(call('bug'), async () => Promise.reject(bug)), bug, 'the first caller sees the real error')
  await t.rejects(service.run(call('bug'), async () => 'never'), { code: 'internal_error', message: 'the call failed unexpectedly' }, 'a repeat sees it as internal_error')
  await t.rejects(service.run(call('store'), async () => Promise.reject(new StoreUnavailableError('disk full'))), StoreUnavailableError)
  // The log refused the call: nothing was done, so the key is not spent (retry_after_seconds means it).
  t.same(await service.run(call('store'), async () => 'ran once the log took writes'), { value: 'ran once the log took writes', replayed: false })
  t.same(await service.run(call('store'), async () => 'never'), { value: 'ran once the log took writes', replayed: true }, 'and that run is the outcome from then on')
  await t.rejects(service.run(call('refused'), async () => Promise.reject(new DomainError('do_not_call', 'no', { nextAllowedAt: null }))), { code: 'do_not_call' })
  await t.rejects(service.run(call('refused'), async () => 'never'), { code: 'do_not_call', message: 'no', details: { nextAllowedAt: null } })

  // The log refuses the outcome (it went down mid-call): this caller still learns what happened.
  const errors: unknown[] = []
  const flaky: EventStore = Object.create(app.leadline.store, {
    appendToStream: {
      value: (stream: string, events: readonly NewEvent[], expected: never) =>
        events[0]?.type === 'IdempotencyResultRecorded' ? Promise.reject(new StoreUnavailableError('gone')) : app.leadline.store.appendToStream(stream, events, expected),
    },
  })
  const fragile = new IdempotencyKeys(flaky, { waitMs: 20, logger: { error: (...args: unknown[]) => errors.push(args) } })
  t.same(await fragile.run(call('flaky'), async () => 'done'), { value: 'done', replayed: false })
  t.equal(errors.length, 1, 'logged')
  await t.rejects(fragile.run(call('flaky'), async () => 'again'), { code: 'idempotency_in_progress' }, 'a repeat finds the claim without an outcome')

  // The log refuses the call and then its outcome (a disk that filled between the claim and the call):
  // a repeat on this server claims the key again and runs; another server cannot know, and waits.
  let down = true
  const outage: EventStore = Object.create(app.leadline.store, {
    appendToStream: {
      value: (stream: string, events: readonly NewEvent[], expected: never) =>
        down && events[0]?.type === 'IdempotencyResultRecorded' ? Promise.reject(new StoreUnavailableError('disk full')) : app.leadline.store.appendToStream(stream, events, expected),
    },
  })
  const server = new IdempotencyKeys(outage, { waitMs: 20, logger: { error: (...args: unknown[]) => errors.push(args) } })
  let ran = 0
  await t.rejects(server.run(call('outage'), async () => Promise.reject(new StoreUnavailableError('disk full'))), StoreUnavailableError)
  t.equal(errors.length, 2, 'the outcome not recorded is logged')
  down = false
  const elsewhere = new IdempotencyKeys(app.leadline.store, { waitMs: 20 })
  await t.rejects(elsewhere.run(call('outage'), async () => ++ran), { code: 'idempotency_in_progress' }, 'another server finds the claim without an outcome')
  t.same(await server.run(call('outage'), async () => ++ran), { value: 1, replayed: false }, 'this server claims the key again and runs the call')
  t.same(await elsewhere.run(call('outage'), async () => ++ran), { value: 1, replayed: true }, 'whose outcome every server then answers')
  t.equal(ran, 1, 'once')
})

t.test('keyStatus and argumentsHash', async (t) => {
  const at = (revision: number, type: string, data: unknown) => ({ revision, type, data }) as unknown as RecordedEvent
  const now = new Date('2025-01-01T12:00:00Z')
  const claim = { tool: 't', argsHash: 'h', keyId: 'k', claimedAt: '2025-01-01T11:00:00Z', expiresAt: '2025-01-02T11:00:00Z' }
  t.same(keyStatus([], now), { kind: 'free', revision: -1 })
  t.same(keyStatus([at(0, 'IdempotencyKeyClaimed', claim)], now), { kind: 'claimed', claim, claimRevision: 0, outcome: null })
  t.same(keyStatus([at(0, 'IdempotencyKeyClaimed', claim), at(1, 'IdempotencyResultRecorded', { recordedAt: 'x', result: 1 })], now).kind, 'claimed')
  t.same(keyStatus([at(0, 'IdempotencyKeyClaimed', claim), at(1, 'IdempotencyResultRecorded', { recordedAt: 'x', error: { code: 'c', message: 'm' } })], now), {
    kind: 'claimed', claim, claimRevision: 0, outcome: { error: { code: 'c', message: 'm' } },
  })
  t.same(keyStatus([at(0, 'IdempotencyKeyClaimed', claim), at(1, 'IdempotencyResultRecorded', { recordedAt: 'x', result: 1 })], new Date('2025-01-02T11:00:00Z')), { kind: 'free', revision: 1 }, 'expired')
  t.same(keyStatus([at(0, 'IdempotencyKeyClaimed', claim), at(1, 'IdempotencyResultRecorded', { recordedAt: 'x', error: { code: 'store_unavailable', message: 'm' } })], now), { kind: 'free', revision: 1 }, 'refused by the log: free again')
  t.equal(argumentsHash('t', { a: 1, b: [1, 2] }), argumentsHash('t', { b: [1, 2], a: 1 }), 'key order does not matter')
  t.not(argumentsHash('t', { a: 1 }), argumentsHash('u', { a: 1 }), 'the tool does')
})
