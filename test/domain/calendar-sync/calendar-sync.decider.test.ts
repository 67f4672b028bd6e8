/** The calendar sync's record for an account (src/domain/calendar-sync/calendar-sync.decider.ts): each thing once. */
import t from 'tap'
import { calendarSyncDecider, type CalendarSyncCommand } from '../../../src/domain/calendar-sync/calendar-sync.decider.ts'
import type { CalendarSyncEvent } from '../../../src/domain/calendar-sync/calendar-sync.events.ts'
import { deciderSpec } from '../../helpers/decider-spec.ts'

const spec = deciderSpec(calendarSyncDecider, new Date('2026-03-01T12:00:00Z'))
const at = '2026-03-01T12:00:00.000Z'
const accountId = 'acct1'
const save = (token: string, connectedAt = '2026-02-01T00:00:00.000Z'): CalendarSyncCommand => ({ type: 'SaveSyncToken', accountId, connectedAt, calendarId: 'cal', token })
const saved = (token: string, connectedAt = '2026-02-01T00:00:00.000Z'): CalendarSyncEvent => ({ type: 'CalendarSyncTokenSaved', data: { accountId, connectedAt, calendarId: 'cal', token, savedAt: at } })
const fail = (kind: string, message = 'refused'): CalendarSyncCommand => ({ type: 'RecordSyncFailure', accountId, kind, message })
const failed = (kind: string, message = 'refused'): CalendarSyncEvent => ({ type: 'CalendarSyncFailed', data: { accountId, kind, message, failedAt: at } })
const recovered: CalendarSyncEvent = { type: 'CalendarSyncRecovered', data: { accountId, recoveredAt: at } }
const flag: CalendarSyncCommand = { type: 'FlagEditConflict', accountId, appointmentId: 'apt_1', start: '2026-03-11T15:00:00.000Z', kind: 'slot_taken', otherBookingId: 'apt_2' }
const flagged: CalendarSyncEvent = { type: 'CalendarEditConflict', data: { accountId, appointmentId: 'apt_1', start: '2026-03-11T15:00:00.000Z', kind: 'slot_taken', otherBookingId: 'apt_2', at } }

t.test('a token is saved when it is new, or the connection is; the same again is nothing', async (t) => {
  spec([]).when(save('t1')).then(t, [saved('t1')])
  spec([saved('t1')]).when(save('t1')).then(t, [])
  spec([saved('t1')]).when(save('t2')).then(t, [saved('t2')])
  spec([saved('t1')]).when(save('t1', '2026-02-20T00:00:00.000Z')).then(t, [saved('t1', '2026-02-20T00:00:00.000Z')])
})
t.test('a failure is recorded once while it lasts; a success after it recovers; a success alone is nothing', async (t) => {
  spec([]).when(fail('unauthorized')).then(t, [failed('unauthorized')])
  spec([failed('unauthorized')]).when(fail('unauthorized')).then(t, [])
  spec([failed('unauthorized')]).when(fail('unreachable')).then(t, [failed('unreachable')])
  spec([failed('unauthorized')]).when({ type: 'RecordSyncSuccess', accountId }).then(t, [recovered])
  spec([failed('unauthorized'), recovered]).when({ type: 'RecordSyncSuccess', accountId }).then(t, [])
  spec([failed('unauthorized'), recovered]).when(fail('unauthorized')).then(t, [failed('unauthorized')])
})
t.test('a conflict is flagged once', async (t) => {
  spec([]).when(flag).then(t, [flagged])
  spec([flagged]).when(flag).then(t, [])
  spec([flagged]).when({ ...flag, start: '2026-03-12T15:00:00.000Z' } as CalendarSyncCommand).then(t, [{ ...flagged, data: { ...flagged.data, start: '2026-03-12T15:00:00.000Z' } } as CalendarSyncEvent])
})
