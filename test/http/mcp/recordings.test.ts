/**
 * Spec §1.7: recordings and transcripts never leave the tool endpoint. First the filter itself,
 * property-based over random nested outputs; then end to end, with recording and transcript events
 * on a lead's stream and every tool called at every scope set, every answer (result or error) checked.
 */
import Fastify from 'fastify'
import fc from 'fast-check'
import t, { type Test } from 'tap'
import { z } from 'zod'
import { DomainError } from '../../../src/domain/shared/decider.ts'
import { mcpRoutes } from '../../../src/http/mcp/mcp.route.ts'
import { holdsRecordingUrl, isSensitiveName, withoutRecordings } from '../../../src/domain/recordings-policy.ts'
import { defineTool } from '../../../src/http/mcp/tool.ts'
import { ToolRegistry } from '../../../src/http/mcp/tool-registry.ts'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { mcpApp, SCOPE_SETS } from './mcp-helpers.ts'

const RECORDING_URL = 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE0123456789abcdef0123456789abcdef'
const TRANSCRIPTION_URL = 'https://api.twilio.com/2010-04-01/Accounts/AC1/Transcriptions/TR0123456789abcdef0123456789abcdef.json'
const TRANSCRIPT_TEXT = 'Hi, this is Jane, I need a quote for a water heater before Friday'

/** Every member name in a value, at any depth. */
function memberNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(memberNames)
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([name, member]) => [name, ...memberNames(member)])
  return []
}

/** Every string in a value, at any depth. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings)
  return []
}

/** Every {name, value} pair in a value, at any depth. */
function pairs(value: unknown): Array<{ name: unknown }> {
  if (Array.isArray(value)) return value.flatMap(pairs)
  if (value !== null && typeof value === 'object') {
    const own = Object.keys(value).length === 2 && 'name' in value && 'value' in value ? [value as { name: unknown }] : []
    return [...own, ...Object.values(value).flatMap(pairs)]
  }
  return []
}

function assertClean(t: Test, value: unknown, label: string): void {
  const names = memberNames(value).filter(isSensitiveName)
  const urls = strings(value).filter(holdsRecordingUrl)
  const transcripts = strings(value).filter((s) => s.includes(TRANSCRIPT_TEXT))
  const namedPairs = pairs(value).filter((p) => typeof p.name === 'string' && isSensitiveName(p.name))
  t.same({ names, urls, transcripts, namedPairs }, { names: [], urls: [], transcripts: [], namedPairs: [] }, label)
}

// Random outputs: plain JSON, with recording and transcript names and carrier media URLs mixed in.
const sensitiveName = fc
  .tuple(
    fc.constantFrom('', 'call', 'Call ', 'last_', 'x-'),
    fc.constantFrom('recording', 'Recording', 'RECORDING', 'transcript', 'Transcript', 'transcription', 'TranscriptionText', 'recordings'),
    fc.constantFrom('', 'Url', '_url', 'Sid', ' text', 's'),
  )
  .map(([a, b, c]) => `${a}${b}${c}`)
const plainName = fc.constantFrom('name', 'phone', 'value', 'callId', 'data', 'events', 'status', 'record', 'script', 'transit', 'url', 'audio', 'notes', '__proto__')
const mediaUrl = fc
  .tuple(
    fc.constantFrom('https://api.twilio.com/2010-04-01/Accounts/AC1', 'http://api.twilio.com/v1', 'https://video.twilio.com/v1', 'https://carrier.example'),
    fc.constantFrom('/Recordings/', '/Transcriptions/', '/recordings/', '/Transcripts/', '/Recordings.json?Page=1&', '/Recording/'),
    fc.stringMatching(/^[A-Za-z0-9]{0,34}$/),
    fc.constantFrom('', '.mp3', '.wav', '.json', '?x=1', '#t'),
  )
  .map(([base, segment, sid, suffix]) => `${base}${segment}${sid}${suffix}`)
const mediaText = fc.tuple(fc.string(), mediaUrl, fc.string()).map(([a, url, b]) => `${a} ${url} ${b}`)
const harmlessString = fc.oneof(
  fc.string(),
  fc.constantFrom('https://api.twilio.com/2010-04-01/Accounts/AC1/Calls/CA1', 'https://example.com/recordingsfaq', 'recording', 'transcript', 'Recordings'),
)
const anyString = fc.oneof({ weight: 3, arbitrary: harmlessString }, { weight: 1, arbitrary: mediaUrl }, { weight: 1, arbitrary: mediaText })
const anyName = fc.oneof({ weight: 3, arbitrary: plainName }, { weight: 1, arbitrary: sensitiveName }, { weight: 1, arbitrary: fc.string() })

const { value: output } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(anyName, tie('value'), { maxKeys: 6 }),
    fc.record({ name: fc.oneof(sensitiveName, plainName, fc.string()), value: tie('value') }),
  ),
}))

const cleanOutput = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    harmlessString.filter((s) => !holdsRecordingUrl(s) && !isSensitiveName(s)),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(plainName.filter((n) => n !== '__proto__'), tie('value'), { maxKeys: 6 }),
  ),
})).value

t.test('property: nothing named for a recording or transcript, and no carrier media URL, survives at any depth', async (t) => {
  fc.assert(
    fc.property(output, (value) => {
      const filtered = withoutRecordings(value)
      if (memberNames(filtered).some(isSensitiveName)) return false
      if (strings(filtered).some(holdsRecordingUrl)) return false
      return !pairs(filtered).some((p) => typeof p.name === 'string' && isSensitiveName(p.name))
    }),
    { numRuns: 2000 },
  )
  t.pass('2000 random outputs')
})

t.test('property: an output with nothing to remove passes unchanged; filtering twice is filtering once', async (t) => {
  fc.assert(fc.property(cleanOutput, (value) => JSON.stringify(withoutRecordings(value)) === JSON.stringify(value)), { numRuns: 1000 })
  fc.assert(
    fc.property(output, (value) => {
      const once = withoutRecordings(value)
      return JSON.stringify(withoutRecordings(once)) === JSON.stringify(once)
    }),
    { numRuns: 1000 },
  )
  t.pass()
})

t.test('property: only what is sensitive goes; everything else in an object stays', async (t) => {
  fc.assert(
    fc.property(fc.dictionary(anyName, anyString, { maxKeys: 8 }), (object) => {
      const filtered = withoutRecordings(object) as Record<string, unknown> | undefined
      const keeps = (name: string, value: string) => !isSensitiveName(name) && !holdsRecordingUrl(value)
      // A {name, value} pair named for a recording goes whole, also when it became a pair by losing members.
      const pair = Object.hasOwn(object, 'value') && Object.entries(object).every(([name, value]) => name === 'name' || name === 'value' || !keeps(name, value))
      if (pair && typeof object.name === 'string' && isSensitiveName(object.name)) return filtered === undefined
      return filtered !== undefined && Object.entries(object).every(([name, value]) => Object.hasOwn(filtered, name) === keeps(name, value))
    }),
    { numRuns: 1000 },
  )
  t.pass()
})

t.test('examples of the filter', async (t) => {
  t.same(
    withoutRecordings({
      callId: 'CA1',
      recordingUrl: RECORDING_URL,
      RecordingSid: 'RE1',
      transcript: TRANSCRIPT_TEXT,
      nested: [{ TranscriptionText: 'x', ok: 1 }, TRANSCRIPTION_URL, 'keep'],
      extraFields: [{ name: 'Call Recording', value: 'https://example.com/a.mp3' }, { name: 'notes', value: 'fine' }],
      note: `listen at ${RECORDING_URL}`,
      at: new Date('2025-01-01T00:00:00Z'),
    }),
    { callId: 'CA1', nested: [{ ok: 1 }, 'keep'], extraFields: [{ name: 'notes', value: 'fine' }], at: '2025-01-01T00:00:00.000Z' },
  )
  t.equal(withoutRecordings(RECORDING_URL), undefined)
  t.same(withoutRecordings([1, 'two', null]), [1, 'two', null])
  const poisoned = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object
  const filtered = withoutRecordings(poisoned) as Record<string, unknown>
  t.same(Object.keys(filtered), ['__proto__', 'a'], 'a member named __proto__ stays a member')
  t.equal(Object.getPrototypeOf(filtered), Object.prototype)
})

t.test('end to end: with recording and transcript events on the log, no tool at any scope returns them', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account('Acme Insurance', { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false })
  const jane = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142', 'Call Recording': RECORDING_URL, notes: `see ${TRANSCRIPTION_URL}` })
  const stream = `lead-${account.accountId}-3125550142`
  const metadata = { correlationId: 'test', causationId: null, actor: { kind: 'carrier', id: 'twilio' }, schemaVersion: 1 } as const
  await app.leadline.store.appendToStream(
    stream,
    [
      { type: 'CallRecordingAvailable', data: { decisionId: 'dec_1', callId: 'CA1', recordingUrl: RECORDING_URL, at: '2025-01-01T00:00:00Z' }, metadata },
      { type: 'CallTranscriptAvailable', data: { decisionId: 'dec_1', callId: 'CA1', transcript: TRANSCRIPT_TEXT, at: '2025-01-01T00:00:00Z' }, metadata },
      { type: 'CallRecordingAvailable', data: { callId: 'CA2', recordingUrl: `${RECORDING_URL}.mp3` }, metadata },
      { type: 'CallTranscriptAvailable', data: { callId: 'CA2', transcript: TRANSCRIPT_TEXT, transcriptionUrl: TRANSCRIPTION_URL }, metadata },
    ],
    'stream_exists',
  )
  await app.settle()
  const calls: Array<[string, Record<string, unknown>]> = [
    ['get_next_actions', {}],
    ['list_leads', {}],
    ['get_lead', { phone: '3125550142' }],
    ['get_lead', { lead_id: jane.leadId }],
    ['get_lead_history', { phone: '3125550142' }],
    ['get_lead_history', { lead_id: jane.leadId }],
    ['mark_do_not_call', { phone: '3125550142', idempotency_key: 'rec', dry_run: true }],
    ['place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: 'rec', dry_run: true }],
    ['request_payment', { phone: '3125550142', amountCents: 500, description: 'Deposit', idempotency_key: 'rec', dry_run: true }],
    ['send_sms', { phone: '3125550142', body: 'Hi Jane', idempotency_key: 'rec', dry_run: true }],
  ]
  let answered = 0
  for (const scopes of SCOPE_SETS) {
    for (const [tool, args] of calls) {
      const answer = await app.call(account.keys[scopes.join(',')] as string, tool, args)
      assertClean(t, answer, `${tool} ${JSON.stringify(args)} [${scopes.join(',')}]`)
      if (answer.result) {
        answered += 1
        assertClean(t, JSON.parse(answer.result.content[0].text), `${tool}: content[0].text`)
      }
    }
  }
  t.ok(answered >= 20, `${answered} answers with results were checked`)

  const history = (await app.call(account.keys.read, 'get_lead_history', { phone: '3125550142' })).result?.structuredContent
  // Newest first: the last four events lead the page.
  t.match(history.events.slice(0, 4), [
    { type: 'CallTranscriptAvailable', data: { callId: 'CA2' } },
    { type: 'CallRecordingAvailable', data: { callId: 'CA2' } },
    { type: 'CallTranscriptAvailable', data: { callId: 'CA1' } },
    { type: 'CallRecordingAvailable', data: { callId: 'CA1' } },
  ], 'the history keeps the facts, without the recordings and transcripts')
  t.same(history.events[3].data, { decisionId: 'dec_1', callId: 'CA1', at: '2025-01-01T00:00:00Z' }, 'the first recording event: its facts, not its URL')
  t.same((await app.call(account.keys.read, 'get_lead', { phone: '3125550142' })).result?.structuredContent.lead.extra_fields, {}, 'pushed recording fields are withheld too')
})

t.test('errors pass the same filter: data and message', async (t) => {
  const built = await buildApp(t)
  const { account } = await built.createAccount()
  const { key } = await built.leadline.accounts.createApiKey(account.accountId, ['read'], null, operatorContext)
  const leaky = defineTool({
    name: 'leaky',
    title: 'Leaky',
    description: 'A test tool that fails with recordings in its error',
    scope: 'read',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: { where: z.enum(['message', 'details']) },
    output: z.object({}),
    async run({ where }) {
      if (where === 'message') throw new DomainError('carrier_error', `the carrier failed; recording at ${RECORDING_URL}`)
      throw new DomainError('carrier_error', 'the carrier failed', { recordingUrl: RECORDING_URL, transcript: TRANSCRIPT_TEXT, callId: 'CA1', media: [TRANSCRIPTION_URL, 'ok'] })
    },
  })
  const fastify = Fastify()
  fastify.decorate('leadline', built.leadline)
  fastify.decorate('publicUrl', 'http://leadline.test')
  await fastify.register(mcpRoutes, { tools: new ToolRegistry([leaky]) })
  t.teardown(() => fastify.close())
  const call = async (where: string) =>
    (
      await fastify.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { authorization: `Bearer ${key.secret}` },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'leaky', arguments: { where } } },
      })
    ).json()
  t.same((await call('message')).error, { code: -32603, message: 'the tool failed (details withheld)', data: { code: 'carrier_error' } })
  t.same((await call('details')).error, { code: -32603, message: 'the carrier failed', data: { code: 'carrier_error', call_id: 'CA1', media: ['ok'] } })
})
