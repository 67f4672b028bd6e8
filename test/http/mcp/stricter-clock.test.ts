/**
 * The stricter clock wins (issue #40 item 11), as agents see it: a GB mobile with `state: CA` at 01:25
 * London time is neither called nor texted, and place_call's and send_sms' dry runs and
 * get_next_actions name both zones.
 */
import t from 'tap'
import { mcpApp } from './mcp-helpers.ts'

const SETTINGS = {
  callerId: '+15125550100',
  callingHours: 'mon-sun 00:00-24:00',
  leadTimeGuard: true,
  allowedCountries: ['US', 'GB'],
  timeZone: 'America/New_York',
}

t.test('a GB mobile with state CA at 01:25 London: dry runs and get_next_actions name both zones', async (t) => {
  let now = new Date('2026-12-02T01:25:00Z')
  const app = await mcpApp(t, { clock: () => now, start: false })
  const account = await app.account('Acme', SETTINGS)
  const lead = await account.pushLead({ name: 'Olly Abroad', phone: '+44 7400 123456', state: 'CA' })
  const expected = {
    allowed: false,
    reason: 'outside_lead_hours',
    next_allowed_at: '2026-12-02T16:00:00.000Z',
    lead_zone: 'America/Los_Angeles',
    lead_zones: ['America/Los_Angeles', 'Europe/London'],
  }
  const call = await app.call(account.keys.all, 'place_call', { phone: '+447400123456', name: 'Olly Abroad', idempotency_key: 'gb-call', dry_run: true })
  t.match(call.result?.structuredContent, { status: 'would_not_call', check: expected })
  t.match(call.result?.structuredContent.check.message, /Europe\/London/)
  const text = await app.call(account.keys.all, 'send_sms', { lead_id: lead.leadId, body: 'Hello', idempotency_key: 'gb-text', dry_run: true })
  t.match(text.result?.structuredContent, { status: 'would_not_send', check: expected })
  t.match(await app.call(account.keys.all, 'send_sms', { lead_id: lead.leadId, body: 'Hello', idempotency_key: 'gb-text-2' }), {
    error: { data: { code: 'outside_lead_hours', next_allowed_at: '2026-12-02T16:00:00.000Z' } },
  })

  now = new Date('2026-12-02T01:45:00Z')
  const next = (await app.call(account.keys.read, 'get_next_actions', {})).result?.structuredContent
  t.match(next.stale_leads, [{ lead_id: lead.leadId, why: 'never_contacted', next_allowed_at: '2026-12-02T16:00:00.000Z', lead_zones: ['America/Los_Angeles', 'Europe/London'] }])

  // 16:00 London, 08:00 in Los Angeles: both clocks inside.
  now = new Date('2026-12-02T16:00:00Z')
  t.match(await app.call(account.keys.all, 'place_call', { phone: '+447400123456', name: 'Olly Abroad', idempotency_key: 'gb-call-2', dry_run: true }), {
    result: { structuredContent: { status: 'would_call', check: { allowed: true, lead_zones: ['America/Los_Angeles', 'Europe/London'] } } },
  })
})
