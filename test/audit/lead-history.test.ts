import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { buildLeadHistory, describeLeadState, historyEntry, loadAccount, readLeadHistory } from '../../src/audit/lead-history.ts'
import { describeActor, summarise, SUMMARISED_TYPES } from '../../src/audit/event-summary.ts'
import { printable } from '../../src/domain/shared/printable.ts'
import { leadDecider } from '../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import { upcast } from '../../src/domain/upcasters.ts'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { runCli } from '../../src/cli/main.ts'
import { csvCell, parseAsOf } from '../../src/cli/commands/history.command.ts'
import { ACCOUNT, ACCOUNT_STREAM, KEY_ID, LEAD_STORY, PHONE, RECORDING_URL, STREAM, TOKEN_ID, TRANSCRIPT, writeAuditLog } from '../helpers/audit-log.ts'

const ROOT = new URL('../../', import.meta.url)

/** Every event type the code defines: `DomainEvent<'Type', …>` in src/domain. */
function definedEventTypes(): string[] {
  const files = ['src/domain'].flatMap((dir) =>
    (fs.readdirSync(new URL(dir, ROOT), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f)),
  )
  const types = new Set<string>()
  for (const file of files) {
    const source = fs.readFileSync(new URL(file, ROOT), 'utf8')
    for (const match of source.matchAll(/DomainEvent<\s*'([A-Za-z]+)'/g)) types.add(match[1] as string)
  }
  return [...types].sort()
}

async function cli(args: string[], file: string) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s), env: { LEADLINE_STORE: `sqlite:${file}` } })
  return { code, stdout: out.join('\n'), stderr: err.join('\n') }
}

t.test('every event type of the domain has its own readable summary', async (t) => {
  const defined = definedEventTypes()
  t.ok(defined.length >= 27, `event types found in the code (${defined.join(', ')})`)
  for (const type of defined) t.ok(SUMMARISED_TYPES.includes(type), `${type} has a summary`)
  // And the story exercises each of them with real data.
  const log = await writeAuditLog(path.join(t.testdir(), 'log.db'))
  t.teardown(() => log.store.close())
  const all = await log.store.readAll()
  const seen = new Set(all.map((e) => e.type))
  for (const type of defined) t.ok(seen.has(type), `the audit story has a ${type}`)
  for (const event of all) {
    const summary = summarise(event)
    t.ok(summary.length > 5 && !summary.includes('\n'), `${event.type}: "${summary}"`)
    if (SUMMARISED_TYPES.includes(event.type)) t.notMatch(summary, /unreadable/, `${event.type} reads its own data`)
  }
})

t.test('summaries say what happened, in the domain words; recordings and transcripts are never shown', async (t) => {
  const log = await writeAuditLog(path.join(t.testdir(), 'log.db'))
  t.teardown(() => log.store.close())
  const lead = await log.store.readStream(STREAM)
  const byType = (type: string, n = 0) => summarise(lead.filter((e) => e.type === type)[n] as RecordedEvent)
  t.equal(byType('LeadReceived'), 'lead received: Jane Doe, +13125550142, jane@example.com, IL, source "Spring FB", 1 industry field, 1 extra field')
  t.equal(byType('LeadUpdated'), 'submitted again: email → "jane@new.example.com", state → "TX"')
  const warned = (type: string, warnings: unknown) => {
    const event = lead.find((e) => e.type === type) as RecordedEvent
    return summarise({ ...event, data: { ...(event.data as object), warnings } })
  }
  t.equal(
    warned('LeadReceived', [{ code: 'phone_not_valid', field: 'Phone', message: 'm' }, { code: 'dnc_unrecognized', field: 'dnc', message: 'm' }]),
    'lead received: Jane Doe, +13125550142, jane@example.com, IL, source "Spring FB", 1 industry field, 1 extra field; warnings: phone_not_valid (Phone), dnc_unrecognized (dnc)',
    "intake's warnings, by code and the field as sent",
  )
  t.equal(warned('LeadUpdated', [{ code: 'email_invalid', field: 'email', message: 'm' }]), 'submitted again: email → "jane@new.example.com", state → "TX"; warnings: email_invalid (email)')
  t.equal(byType('CallDecided'), 'call decided: place_call tool, attempt 1, +15125550100 → +13125550142 (idempotency key given)')
  t.equal(byType('CallDecided', 1), 'call decided: follow-up, attempt 2, +15125550100 → +13125550142')
  t.equal(byType('CallFailed'), 'call failed: carrier_rejected: number unreachable (carrier code 21211)')
  t.equal(byType('SpeedToLeadSkipped'), 'speed to lead did not call: outside the account calling hours (outside_calling_hours); next allowed 2026-03-11T13:00:00.000Z')
  t.equal(byType('CallRecordingAvailable'), 'recording stored (not shown)')
  t.equal(byType('CallTranscriptAvailable'), 'transcript stored (not shown)')
  t.equal(byType('CallCompleted'), 'call completed after 42 s')
  t.equal(byType('LeadScored'), 'lead scored: leadId "ld_audit0000000000a", score 87, hot true', 'an unknown type: generic, without its URL')
  t.equal(byType('PaymentRequested'), 'payment requested: 50.00 USD for "Roof inspection deposit" through stripe on acct_1, pay-link to be texted +15125550100 → +13125550142')
  t.equal(byType('PaymentSettled'), 'payment settled: 50.00 USD through stripe (payment pi_1)')
  t.equal(byType('PayLinkTextAttempted'), 'pay-link text started on node node-1, +15125550100 → +13125550142', 'the text itself is not shown')
  t.equal(byType('PaymentLinkExpired'), 'pay-link expired unpaid (stripe session cs_4)')
  const account = await log.store.readStream(ACCOUNT_STREAM)
  t.same(account.map(summarise), [
    'account "Acme Roofing" created (time zone America/Chicago, speed to lead off)',
    `webhook token ${TOKEN_ID} issued (llwh_abcd…)`,
    `API key ${KEY_ID} created (ll_live_abcd…): scopes read, dial, label "agent"`,
    'settings changed: speedToLead → true, callingHours → "mon-fri 08:00-20:00"',
    'webhook token wht_old0000000000000 revoked (rotated)',
    'API key key_old0000000000000 revoked',
    'Google lead-form key set (kept as a hash)',
    'field map of source "vendor-x" set: phone ← contact.primary.number',
    'field map of source "vendor-x" removed',
    'Google lead-form key removed',
  ])

  const history = buildLeadHistory(STREAM, lead, null)
  const everything = JSON.stringify(history.entries)
  t.notOk(everything.includes(RECORDING_URL) || everything.includes('Recordings/'), 'no recording URL in the entries, data included')
  t.notOk(everything.includes(TRANSCRIPT), 'no transcript text in the entries')
  t.notOk(history.entries.some((e) => e.summary.includes('scores.example.com')), 'generic summaries skip URLs')
  const recording = history.entries.find((e) => e.type === 'CallRecordingAvailable')
  t.same(recording?.data, { decisionId: 'dec_1', callId: 'CA111', at: '2026-03-10T15:07:00.000Z' }, 'the rest of a recording event is kept')

  for (const format of [[], ['--json'], ['--format', 'csv']]) {
    const result = await cli(['history', '--account', ACCOUNT, '--phone', PHONE, ...format], log.file)
    t.equal(result.code, 0, result.stderr)
    t.notOk(result.stdout.includes(RECORDING_URL) || result.stdout.includes(TRANSCRIPT), `${format.join(' ') || 'readable'}: no recording or transcript`)
    t.match(result.stdout, /recording stored \(not shown\)/)
  }
})

t.test('a new lead written as one event: its summary names the list and why speed to lead did not call; it folds as the three events of older logs', async (t) => {
  const log = await writeAuditLog(path.join(t.testdir(), 'log.db'))
  t.teardown(() => log.store.close())
  const lead = await log.store.readStream(STREAM)
  const received = lead[0] as RecordedEvent
  const oneEvent = (more: Record<string, unknown>): RecordedEvent => ({ ...received, data: { ...(received.data as object), ...more } })
  const list = { listId: 'inbound-leads', listName: 'Inbound Leads' }
  const skipped = { reason: 'outside_calling_hours', message: 'outside the account calling hours', nextAllowedAt: '2026-03-11T13:00:00.000Z' }
  const base = 'lead received: Jane Doe, +13125550142, jane@example.com, IL, source "Spring FB", 1 industry field, 1 extra field'

  // The older log's three events read the same as the one event's three parts.
  t.equal(summarise(lead[1] as RecordedEvent), 'added to list "Inbound Leads"')
  t.equal(summarise(lead[2] as RecordedEvent), 'speed to lead did not call: outside the account calling hours (outside_calling_hours); next allowed 2026-03-11T13:00:00.000Z')
  t.equal(summarise(oneEvent({ list })), `${base}; added to list "Inbound Leads"`, 'called, or not asked: the list alone')
  t.equal(
    summarise(oneEvent({ list, speedToLeadSkipped: skipped })),
    `${base}; added to list "Inbound Leads"; speed to lead did not call: outside the account calling hours (outside_calling_hours); next allowed 2026-03-11T13:00:00.000Z`,
  )
  t.equal(
    summarise(oneEvent({ list, speedToLeadSkipped: { reason: 'speed_to_lead_off', message: 'speed to lead is off for this account', nextAllowedAt: null } })),
    `${base}; added to list "Inbound Leads"; speed to lead did not call: speed to lead is off for this account (speed_to_lead_off)`,
    'no next allowed time: none said',
  )
  t.equal(
    summarise(oneEvent({ warnings: [{ code: 'email_invalid', field: 'email', message: 'm' }], list, speedToLeadSkipped: { ...skipped, message: 'two\nlines' } })),
    `${base}; warnings: email_invalid (email); added to list "Inbound Leads"; speed to lead did not call: two\uFFFDlines (outside_calling_hours); next allowed 2026-03-11T13:00:00.000Z`,
    "warnings first, then the list and the skip; the sender's text still cannot break the line",
  )

  const older = buildLeadHistory(STREAM, lead.slice(0, 3), null)
  const newer = buildLeadHistory(STREAM, [oneEvent({ list, speedToLeadSkipped: skipped })], null)
  t.same(newer.state, older.state, 'one event rebuilds the lead that three did')
  t.match(newer.state, { exists: true, lists: ['Inbound Leads'], dialing: { speedToLead: 'skipped' } })
  t.same(newer.entries.map((e) => e.type), ['LeadReceived'])
  t.match(newer.entries[0]?.summary, /; added to list "Inbound Leads"; speed to lead did not call: outside the account calling hours/)
})

t.test('actors: webhook token, key, operator and process, by id', async (t) => {
  t.equal(describeActor({ kind: 'webhook_token', id: TOKEN_ID }), `webhook token ${TOKEN_ID}`)
  t.equal(describeActor({ kind: 'api_key', id: KEY_ID }), `API key ${KEY_ID}`)
  t.equal(describeActor({ kind: 'operator', id: 'alice' }), 'operator alice')
  t.equal(describeActor({ kind: 'process', id: 'speed-to-lead' }), 'process speed-to-lead')
  t.equal(describeActor({ kind: 'carrier', id: 'twilio' }), 'carrier twilio')
  t.equal(describeActor({ kind: 'robot', id: 'r2' }), 'robot r2', 'a kind from a later build')
})

t.test('outside text cannot break a line, move the cursor or run as a spreadsheet formula', async (t) => {
  t.equal(printable('Jane\u001b[2J\nDoe\u202e'), 'Jane\uFFFD[2J\uFFFDDoe\uFFFD')
  t.equal(printable('x'.repeat(100)).length, 60)
  t.equal(csvCell('=HYPERLINK("http://evil")'), `"'=HYPERLINK(""http://evil"")"`)
  t.equal(csvCell('+1 312'), "'+1 312")
  t.equal(csvCell('a,b'), '"a,b"')
  t.equal(csvCell(42), '42')
})

t.test('the state as of an instant is the fold of the events recorded by then, by the lead decider', async (t) => {
  const log = await writeAuditLog(path.join(t.testdir(), 'log.db'))
  t.teardown(() => log.store.close())
  const events = await log.store.readStream(STREAM)

  const now = buildLeadHistory(STREAM, events, null)
  const known = events.filter((e) => e.type !== 'LeadScored').map(upcast)
  const folded = known.reduce((s, e) => leadDecider.evolve(s, e as unknown as LeadEvent), leadDecider.initialState())
  t.same(now.state, folded, 'the whole history folds by the lead decider; a later build\'s event types are listed but not folded')
  t.match(now.state, { doNotCall: false, submissions: 2, fields: { email: 'jane@new.example.com', phoneRaw: '(312) 555-0142' }, dialing: { answeredAt: '2026-03-10T16:02:00.000Z', followUpStopped: 'answered', pendingFollowUp: null } })
  t.equal(now.entries.length, LEAD_STORY.length)
  t.equal(now.later, 0)

  // Just after the follow-up was scheduled (revision 9), before it was moved.
  const asOf = new Date(log.recordedAt(9))
  const then = buildLeadHistory(STREAM, events, asOf)
  t.equal(then.entries.length, 10)
  t.equal(then.later, LEAD_STORY.length - 10)
  t.same(then.state.dialing.pendingFollowUp, { attempt: 2, dueAt: '2026-03-10T15:20:00.000Z' })
  t.equal(then.state.fields?.email, 'jane@example.com', 'the later update is not folded in')
  t.equal(then.state.doNotCall, false)
  t.same(describeLeadState(then.state).find(([label]) => label === 'next follow-up'), ['next follow-up', 'attempt 2 due 2026-03-10T15:20:00.000Z'])

  const before = buildLeadHistory(STREAM, events, new Date(Date.parse(log.recordedAt(0)) - 1))
  t.equal(before.entries.length, 0)
  t.equal(before.state.exists, false)
  t.same(describeLeadState(before.state), [['lead', 'not received yet']])

  t.equal(historyEntry(events[0] as RecordedEvent).actorText, `webhook token ${TOKEN_ID}`)
  t.same(await loadAccount(log.store, 'acc_nobody'), null)
  t.equal(await readLeadHistory(log.store, ACCOUNT, '9999999999', null), null)
})

t.test('--as-of reads a time without offset in the account zone; a date alone is the end of that day', async (t) => {
  t.equal(parseAsOf('2026-03-10T15:00:00Z', 'America/Chicago').toISOString(), '2026-03-10T15:00:00.000Z')
  t.equal(parseAsOf('2026-03-10T10:00', 'America/Chicago').toISOString(), '2026-03-10T15:00:00.000Z', 'CDT is UTC-5 on March 10, 2026')
  t.equal(parseAsOf('2026-03-10', 'America/Chicago').toISOString(), '2026-03-11T04:59:59.999Z')
  t.throws(() => parseAsOf('yesterday', 'UTC'), { name: 'UsageError' })
  t.throws(() => parseAsOf('2026-13-45', 'UTC'), { name: 'UsageError' })
})

t.test('leadline history: readable, --json and --format csv; bad input exits 2', async (t) => {
  const log = await writeAuditLog(path.join(t.testdir(), 'log.db'))
  await log.store.close()

  const readable = await cli(['history', '--account', ACCOUNT, '--phone', '(312) 555-0142'], log.file)
  t.equal(readable.code, 0, readable.stderr)
  const lines = readable.stdout.split('\n')
  t.equal(lines[0], `lead ld_audit0000000000a (+13125550142), account ${ACCOUNT}: ${LEAD_STORY.length} events`)
  t.match(lines[1], /^rev\s+recorded\s+event\s+summary\s+by$/)
  t.match(lines[2], new RegExp(`^0\\s+2026-03-10T15:01:00.000Z\\s+LeadReceived\\s+lead received: Jane Doe, .*webhook token ${TOKEN_ID}$`))
  t.match(readable.stdout, new RegExp(`\\nstate as of now, rebuilt from these ${LEAD_STORY.length} events:\\n {2}lead +ld_audit0000000000a\\n {2}phone +\\+13125550142\\n {2}name +Jane Doe\\n {2}email +jane@new\\.example\\.com`))
  t.match(readable.stdout, /\n {2}payments +4 requested \(last: 25\.00 USD, expired, pay-link text unknown\)/)
  t.match(readable.stdout, `\nhash chain of this lead: intact (${LEAD_STORY.length} events)\n`)
  t.match(readable.stdout, /do not call +no/)
  t.match(readable.stdout, /calls +2 \(last: follow up attempt 2, unknown\)/)

  const asOf = await cli(['history', '--account', ACCOUNT, '--phone', PHONE, '--as-of', '2026-03-10T15:03:30Z', '--json'], log.file)
  t.equal(asOf.code, 0, asOf.stderr)
  const json = JSON.parse(asOf.stdout)
  t.equal(json.asOf, '2026-03-10T15:03:30.000Z')
  t.same(json.events.map((e: { type: string }) => e.type), ['LeadReceived', 'LeadAddedToList', 'SpeedToLeadSkipped'])
  t.match(json.events[2], { revision: 2, recordedAt: '2026-03-10T15:03:00.000Z', summary: /^speed to lead did not call/, actor: { kind: 'process', id: 'speed-to-lead' }, by: 'process speed-to-lead', schemaVersion: 1 })
  t.equal(json.laterEvents, LEAD_STORY.length - 3)
  t.same(json.chain, { intact: true, firstBadEvent: null })
  t.match(json.state, { exists: true, leadId: 'ld_audit0000000000a', lists: ['Inbound Leads'], dialing: { speedToLead: 'skipped' } })
  t.match(json.events[0].data, { fields: { phoneRaw: '(312) 555-0142' } }, 'data as recorded')

  const csv = await cli(['history', '--account', ACCOUNT, '--phone', PHONE, '--format', 'csv'], log.file)
  t.equal(csv.code, 0)
  const rows = csv.stdout.split('\n')
  t.equal(rows[0], 'position,revision,recorded_at,type,summary,actor_kind,actor_id,event_id')
  t.equal(rows.length, LEAD_STORY.length + 1)
  t.match(rows[1], /^\d+,0,2026-03-10T15:01:00.000Z,LeadReceived,"lead received: Jane Doe, \+13125550142, .*",webhook_token,wht_audit00000000000a,[0-9a-f-]{36}$/)

  const bad: Array<[string[], RegExp]> = [
    [['history', '--phone', PHONE], /--account is required/],
    [['history', '--account', ACCOUNT], /--phone is required/],
    [['history', '--account', ACCOUNT, '--phone', '555-01'], /--phone must contain at least 10 digits/],
    [['history', '--account', 'acc_nobody', '--phone', PHONE], /no account acc_nobody/],
    [['history', '--account', ACCOUNT, '--phone', '2125550199'], /no lead with phone 2125550199 in account/],
    [['history', '--account', ACCOUNT, '--phone', PHONE, '--as-of', 'last tuesday'], /--as-of takes an ISO 8601 time/],
    [['history', '--account', ACCOUNT, '--phone', PHONE, '--format', 'xml'], /--format takes csv/],
    [['history', '--account', ACCOUNT, '--phone', PHONE, '--format', 'csv', '--json'], /either --json or --format csv/],
  ]
  for (const [args, message] of bad) {
    const result = await cli(args, log.file)
    t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
    t.match(result.stderr, message)
  }

  // A history read from a log that was edited says so.
  const db = new Database(log.file)
  db.prepare("UPDATE events SET data = json_set(data, '$.changes.email', 'forged@example.com') WHERE stream = ? AND revision = 18").run(STREAM)
  db.close()
  const tampered = await cli(['history', '--account', ACCOUNT, '--phone', PHONE], log.file)
  t.equal(tampered.code, 0)
  t.match(tampered.stdout, /\nhash chain of this lead: BROKEN: changed at revision 18: revision 18 \(position \d+, id [0-9a-f-]+, LeadUpdated\) no longer matches its hash.* \(see leadline audit verify\)\n/)
  t.match(JSON.parse((await cli(['history', '--account', ACCOUNT, '--phone', PHONE, '--json'], log.file)).stdout).chain, { intact: false, firstBadEvent: { problem: 'changed', revision: 18 } })
})
