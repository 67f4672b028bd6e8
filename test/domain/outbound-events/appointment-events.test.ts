/** Outbound events of appointments: booked, rescheduled, cancelled, no-show; ids, times and the type's name only. An attended mark is no event. */
import t from 'tap'
import { OUTBOUND_EVENT_TYPES, OUTBOUND_SOURCE_TYPES, outboundEventOf } from '../../../src/domain/outbound-events/outbound-events.ts'
import type { RecordedEvent } from '../../../src/domain/event.ts'

const recorded = (type: string, data: Record<string, unknown>): RecordedEvent =>
  ({ id: 'evt_1', type, stream: 'lead-acc1-3125550142', data, metadata: {}, position: 7, revision: 3, recordedAt: '2026-03-10T15:00:01.000Z' }) as unknown as RecordedEvent

t.test('appointment.booked, .rescheduled, .cancelled and .no_show, with their payloads', async (t) => {
  t.same(OUTBOUND_EVENT_TYPES.filter((type) => type.startsWith('appointment.')), ['appointment.booked', 'appointment.rescheduled', 'appointment.cancelled', 'appointment.no_show'])
  t.same(OUTBOUND_SOURCE_TYPES.filter((type) => type.startsWith('Appointment')), ['AppointmentBooked', 'AppointmentRescheduled', 'AppointmentCancelled', 'AppointmentNoShow'])
  const booked = outboundEventOf(recorded('AppointmentBooked', {
    leadId: 'ld_1', appointmentId: 'bk_1', appointmentTypeId: 'estimate', typeName: 'Roof estimate', start: '2026-03-11T15:00:00.000Z', end: '2026-03-11T16:00:00.000Z',
    provider: 'caldav', calendarId: 'https://cal.example/owner/jobs/', eventUid: 'leadline-bk_1', leadZone: 'America/Chicago', by: 'assistant', idempotencyKey: 'k', at: '2026-03-10T15:00:00.000Z',
  }))
  t.same(booked?.event, {
    type: 'appointment.booked', timestamp: '2026-03-10T15:00:01.000Z',
    data: {
      event_id: 'evt_1', account_id: 'acc1', lead_id: 'ld_1', appointment_id: 'bk_1', type_id: 'estimate', type_name: 'Roof estimate', start: '2026-03-11T15:00:00.000Z', end: '2026-03-11T16:00:00.000Z',
      lead_zone: 'America/Chicago', provider: 'caldav', by: 'assistant', at: '2026-03-10T15:00:00.000Z',
    },
  }, 'no calendar URL, event UID or idempotency key')
  t.same(outboundEventOf(recorded('AppointmentRescheduled', { appointmentId: 'bk_1', previousStart: '2026-03-11T15:00:00.000Z', start: '2026-03-11T17:00:00.000Z', end: '2026-03-11T18:00:00.000Z', by: 'calendar', at: 'T' }))?.event.data, {
    event_id: 'evt_1', account_id: 'acc1', lead_id: null, appointment_id: 'bk_1', previous_start: '2026-03-11T15:00:00.000Z', start: '2026-03-11T17:00:00.000Z', end: '2026-03-11T18:00:00.000Z', by: 'calendar', at: 'T',
  })
  t.match(outboundEventOf(recorded('AppointmentCancelled', { appointmentId: 'bk_1', by: 'calendar', reason: 'deleted in the calendar', at: 'T' }))?.event, { type: 'appointment.cancelled', data: { appointment_id: 'bk_1', by: 'calendar', reason: 'deleted in the calendar' } })
  t.match(outboundEventOf(recorded('AppointmentNoShow', { appointmentId: 'bk_1', by: 'owner', at: 'T' }))?.event, { type: 'appointment.no_show', data: { appointment_id: 'bk_1', by: 'owner', at: 'T' } })
  t.equal(outboundEventOf(recorded('AppointmentAttended', { appointmentId: 'bk_1', by: 'owner', at: 'T' })), null, 'attended is no outbound event')
})
