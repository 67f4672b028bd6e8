/**
 * Where each lead stands (issue #44): the lead-status read model derives one status from the facts its
 * events leave, the strongest winning (do not call, paid, qualified, connected, a waiting callback,
 * replied, voicemail left, calling, new), and a callback stops waiting once a call is decided for it.
 */
import t from 'tap'
import type { RecordedEvent } from '../../../src/domain/event.ts'
import { openViewsDatabase } from '../../../src/read-models/views-database.ts'
import { leadStatusProjection } from '../../../projections/lead-status/lead-status.projection.ts'
import { LeadStatusQueries } from '../../../projections/lead-status/lead-status.queries.ts'

const STREAM = 'lead-acc_1-3125550142'
let position = 0

function event(type: string, data: Record<string, unknown>): RecordedEvent {
  position += 1
  return {
    id: `ev${position}`, type, data, stream: STREAM, revision: position, position, recordedAt: '2026-03-10T15:00:00.000Z', prevHash: null, hash: '',
    metadata: { correlationId: 'c', causationId: null, actor: { kind: 'process', id: 'test' }, schemaVersion: 1 },
  } as unknown as RecordedEvent
}

/** A fresh read model, and a step that applies one event and answers the lead's status ("callback at …" with its time). */
function statusSteps(t: { teardown(fn: () => void): void }) {
  const db = openViewsDatabase(':memory:')
  t.teardown(() => db.close())
  leadStatusProjection.setup(db)
  const queries = new LeadStatusQueries(db)
  const status = (type: string, data: Record<string, unknown> = {}) => {
    leadStatusProjection.apply(db, event(type, data))
    const row = queries.ofStream('acc_1', STREAM)
    return row?.status === 'callback' ? `callback at ${row.callbackAt}` : row?.status
  }
  return { status, queries }
}

t.test('each fact moves the lead on; stronger facts win; a callback waits until a call is decided for it', async (t) => {
  const { status } = statusSteps(t)
  const call = (purpose: string, decidedAt: string) => ({ decisionId: 'dec', purpose, decidedAt })
  t.equal(status('LeadReceived', { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142' }, receivedAt: '2026-03-10T15:00:00.000Z' }), 'new')
  t.equal(status('CallDecided', call('speed_to_lead', '2026-03-10T15:00:01.000Z')), 'calling')
  t.equal(status('VoicemailLeft', { decisionId: 'dec', callId: 'CA1', at: '2026-03-10T15:01:00.000Z' }), 'voicemail_left')
  t.equal(status('LeadReplied', { leadId: 'ld_1', messageId: 'SM1', repliedAt: '2026-03-10T15:05:00.000Z' }), 'replied')
  t.equal(status('CallbackRequested', { decisionId: 'dec', callbackAt: '2026-03-10T20:00:00.000Z', at: '2026-03-10T15:06:00.000Z' }), 'callback at 2026-03-10T20:00:00.000Z')
  t.equal(status('CallDecided', call('place_call', '2026-03-10T16:00:00.000Z')), 'callback at 2026-03-10T20:00:00.000Z', 'a call before the callback is due leaves it waiting')
  t.equal(status('CallDecided', call('follow_up', '2026-03-10T20:00:00.000Z')), 'replied', 'the callback called for: back to what the lead did')
  t.equal(status('OwnerConnectEnded', { decisionId: 'dec', connected: false, status: 'no-answer', at: '2026-03-10T20:01:00.000Z' }), 'replied', 'a connect that reached nobody is not one')
  t.equal(status('OwnerConnectEnded', { decisionId: 'dec', connected: true, status: 'completed', at: '2026-03-10T20:05:00.000Z' }), 'connected')
  t.equal(status('InboundCallConnected', { callId: 'CA9', by: 'assistant', leg: null, ownerNumber: null, at: '2026-03-10T20:06:00.000Z' }), 'connected')
  t.equal(status('AssistantCallEnded', { decisionId: 'dec', disposition: 'not_interested', endedAt: '2026-03-10T20:10:00.000Z' }), 'connected')
  t.equal(status('AssistantCallEnded', { decisionId: 'dec', disposition: 'qualified', endedAt: '2026-03-10T20:11:00.000Z' }), 'qualified')
  t.equal(status('PaymentSettled', { requestId: 'req', at: '2026-03-10T21:00:00.000Z' }), 'paid')
  t.equal(status('LeadMarkedDoNotCall', { leadId: 'ld_1', markedAt: '2026-03-10T22:00:00.000Z' }), 'do_not_call', 'do not call over everything')
  t.equal(status('LeadDoNotCallCleared', { leadId: 'ld_1', clearedAt: '2026-03-10T23:00:00.000Z' }), 'paid', 'cleared: where it stood')
})

t.test('a lead received do-not-call, or updated to it, is do_not_call; an inbound call an owner took is connected', async (t) => {
  const db = openViewsDatabase(':memory:')
  t.teardown(() => db.close())
  leadStatusProjection.setup(db)
  const queries = new LeadStatusQueries(db)
  leadStatusProjection.apply(db, event('LeadReceived', { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142', doNotCall: true }, receivedAt: '2026-03-10T15:00:00.000Z' }))
  t.equal(queries.ofStream('acc_1', STREAM)?.status, 'do_not_call')
  t.equal(queries.ofStream('acc_2', STREAM), null, "another account's lead is not found")
  leadStatusProjection.apply(db, event('LeadDoNotCallCleared', { leadId: 'ld_1', clearedAt: '2026-03-10T16:00:00.000Z' }))
  leadStatusProjection.apply(db, event('InboundCallConnected', { callId: 'CA9', by: 'owner', leg: 0, ownerNumber: '+13125550177', at: '2026-03-10T16:01:00.000Z' }))
  t.equal(queries.ofStream('acc_1', STREAM)?.status, 'connected')
  leadStatusProjection.apply(db, event('LeadUpdated', { leadId: 'ld_1', changes: { doNotCall: true }, updatedAt: '2026-03-10T17:00:00.000Z' }))
  t.equal(queries.ofStream('acc_1', STREAM)?.status, 'do_not_call')
})

t.test('an appointment booked is "appointment" until every booked one is cancelled or marked; paid and do-not-call still win', async (t) => {
  const { status, queries } = statusSteps(t)
  const at = '2026-03-10T16:00:00.000Z'
  t.equal(status('LeadReceived', { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142' }, receivedAt: '2026-03-10T15:00:00.000Z' }), 'new')
  t.equal(status('AssistantCallEnded', { decisionId: 'dec', disposition: 'qualified', endedAt: at }), 'qualified')
  t.equal(status('AppointmentBooked', { leadId: 'ld_1', appointmentId: 'apt_1', at }), 'appointment', 'booked beats qualified')
  t.equal(status('AppointmentBooked', { leadId: 'ld_1', appointmentId: 'apt_2', at }), 'appointment')
  t.equal(status('AppointmentNoShow', { appointmentId: 'apt_1', by: 'owner', at }), 'appointment', 'another is still booked')
  t.equal(status('AppointmentCancelled', { appointmentId: 'apt_2', by: 'calendar', reason: null, at }), 'qualified', 'none booked: where it stood')
  t.equal(status('AppointmentBooked', { leadId: 'ld_1', appointmentId: 'apt_3', at }), 'appointment')
  t.equal(status('PaymentSettled', { requestId: 'req', at }), 'paid', 'paid beats it')
  t.equal(status('AppointmentAttended', { appointmentId: 'apt_3', by: 'owner', at }), 'paid')
  t.equal(queries.ofStream('acc_1', STREAM)?.status, 'paid')
})
