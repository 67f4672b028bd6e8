/**
 * The extra fields a lead may carry are bounded (docs/limits.md): 16 KiB of JSON per lead. One
 * submission keeps its unrecognised fields in the order sent while they fit, and the sender is told
 * which were dropped (warning `extra_fields_dropped`; the lead is kept). Across submissions a lead
 * keeps the latest value of each name, and drops the names least recently sent when more arrive.
 * The read models, the lead's state and the tools all hold the same bounded set.
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { MAX_EXTRA_FIELDS_BYTES } from '../../../src/domain/lead/intake/extra-fields.ts'
import { mcpApp } from '../mcp/mcp-helpers.ts'

const notes = (prefix: string, count: number, size = 1000) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix} ${i}`, 'x'.repeat(size)]))
const bytesOf = (extra: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(extra))

t.test('one submission with 60 KB of extra fields: the lead is kept with the first 16 KiB, and a warning names the rest', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const response = await app.app.inject({
    method: 'POST',
    url: '/api/ingest/lead',
    headers: { 'x-service-token': account.token, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'Jane Doe', phone: '(312) 555-0142', ...notes('note', 60) }),
  })
  t.equal(response.statusCode, 201, 'the lead is created')
  const warnings = response.json().warnings as Array<{ code: string; field: string; message: string }>
  const dropped = warnings.filter((w) => w.code === 'extra_fields_dropped')
  t.equal(dropped.length, 1, 'one warning')
  t.match(dropped[0], { field: /^note \d+$/, message: /extra fields are limited to 16384 bytes per lead: \d+ of them were not kept \(note \d+, note \d+, note \d+, note \d+, note \d+, …\)/ })
  await app.settle()
  const lead = (await app.call(account.keys.read, 'get_lead', { phone: '3125550142' })).result?.structuredContent.lead
  const kept = Object.keys(lead.extra_fields)
  t.ok(kept.length > 10 && kept.length < 60, `${kept.length} of the 60 kept`)
  t.same(kept, kept.map((_, i) => `note ${i}`), 'the first ones, in the order sent')
  t.ok(bytesOf(lead.extra_fields) <= MAX_EXTRA_FIELDS_BYTES, 'within the bound')
  t.match(dropped[0]?.message, new RegExp(`${60 - kept.length} of them were not kept`))
})

t.test('across submissions: the latest value of each name, the least recently sent dropped first; read model and state agree', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142', ...notes('old', 10), keep: 'first value' })
  await account.pushLead({ phone: '(312) 555-0142', keep: 'second value' })
  await account.pushLead({ phone: '(312) 555-0142', ...notes('new', 10) })
  const extra = (await app.call(account.keys.read, 'get_lead', { phone: '3125550142' })).result?.structuredContent.lead.extra_fields as Record<string, string>
  t.ok(bytesOf(extra) <= MAX_EXTRA_FIELDS_BYTES, `${bytesOf(extra)} bytes, within the bound`)
  t.equal(extra.keep, 'second value', 'the latest value of a name, and it was sent recently enough to stay')
  t.same(Object.keys(notes('new', 10)).filter((name) => !(name in extra)), [], 'every name of the latest submission is kept')
  t.ok(!('old 0' in extra) && !('old 1' in extra), 'the least recently sent went first')
  t.ok(Object.keys(extra).some((name) => name.startsWith('old ')), 'and only as many as needed')
  const { state } = await app.leadline.commands.load(`lead-${account.accountId}-3125550142`, leadDecider)
  t.same(Object.fromEntries((state.fields?.extraFields ?? []).map((f) => [f.name, f.value])), extra, "the lead's own state holds the same fields")
})
