/** Outbound events of a call in: who took it, or why nobody did; ids, times and outcomes only (never a voicemail or its URL). */
import t from 'tap'
import { OUTBOUND_EVENT_TYPES, OUTBOUND_SOURCE_TYPES, outboundEventOf } from '../../../src/domain/outbound-events/outbound-events.ts'
import type { RecordedEvent } from '../../../src/domain/event.ts'

const recorded = (type: string, data: Record<string, unknown>): RecordedEvent =>
  ({ id: 'evt_1', type, stream: 'lead-acc1-3125550142', data, metadata: {}, position: 7, revision: 3, recordedAt: '2026-03-10T15:00:01.000Z' }) as unknown as RecordedEvent

t.test('call.inbound.connected and call.inbound.missed are heard of; the call coming in, the callback key and the voicemail are not events of their own', async (t) => {
  t.ok(OUTBOUND_EVENT_TYPES.includes('call.inbound.connected'))
  t.ok(OUTBOUND_EVENT_TYPES.includes('call.inbound.missed'))
  t.same(OUTBOUND_SOURCE_TYPES.filter((type) => type.startsWith('Inbound')), ['InboundCallConnected', 'InboundCallMissed'])
  const connected = outboundEventOf(recorded('InboundCallConnected', { callId: 'CA1', by: 'owner', leg: 1, ownerNumber: '+13125550172', at: '2026-03-10T15:00:00.000Z' }))
  t.match(connected, { accountId: 'acc1', event: { type: 'call.inbound.connected', data: { call_id: 'CA1', taken_by: 'owner', owner_number: '+13125550172', at: '2026-03-10T15:00:00.000Z' } } })
  const missed = outboundEventOf(recorded('InboundCallMissed', { callId: 'CA2', reason: 'outside_business_hours', callbackRequested: false, at: '2026-03-10T15:00:00.000Z' }))
  t.match(missed, { event: { type: 'call.inbound.missed', data: { call_id: 'CA2', reason: 'outside_business_hours' } } })
  t.equal(outboundEventOf(recorded('InboundVoicemailLeft', { callId: 'CA2', durationSeconds: 12, at: '' })), null, 'a voicemail is no outbound event')
})
