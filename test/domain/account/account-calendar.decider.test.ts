/** The account's calendar connection and appointment types (account.decider.ts, issue #45). */
import t from 'tap'
import { accountDecider, type AccountCommand } from '../../../src/domain/account/account.decider.ts'
import type { AccountEvent } from '../../../src/domain/account/account.events.ts'
import { DEFAULT_SETTINGS } from '../../../src/domain/account/account-settings.ts'
import { deciderSpec } from '../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const at = NOW.toISOString()
const spec = deciderSpec<AccountCommand, AccountEvent, ReturnType<typeof accountDecider.initialState>>(accountDecider, NOW)
const SEALED = 'llsealed1.0a1b2c3d.bm9uY2U.Y2lwaGVy.dGFn'
const calendars = [{ id: 'https://cal.example/jobs/', name: 'Jobs', timeZone: 'America/Chicago' }]
const created: AccountEvent = { type: 'AccountCreated', data: { accountId: 'acc_1', name: 'Acme', settings: DEFAULT_SETTINGS, createdAt: at } }
const connected: AccountEvent = { type: 'CalendarConnected', data: { provider: 'caldav', label: 'owner at cal.example', sealedCredentials: SEALED, calendars, connectedAt: at } }
const type = { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, calendarId: 'https://cal.example/jobs/' }
const saved: AccountEvent = { type: 'AppointmentTypeSaved', data: { type: { ...type, bufferMinutes: 0, bookableHours: null, minimumNoticeMinutes: 120, maxPerDay: null }, savedAt: at } }

t.test('connect: recorded with its credentials sealed; credentials in the clear are refused', async (t) => {
  spec([created]).when({ type: 'ConnectCalendar', provider: 'caldav', label: 'owner at cal.example', sealedCredentials: SEALED, calendars }).then(t, [connected])
  spec([created]).when({ type: 'ConnectCalendar', provider: 'caldav', label: 'x', sealedCredentials: '{"password":"hunter2"}', calendars }).thenThrows(t, 'secret_not_sealed')
  spec([]).when({ type: 'ConnectCalendar', provider: 'caldav', label: 'x', sealedCredentials: SEALED, calendars }).thenThrows(t, 'account_not_found')
})

t.test('disconnect: once; nothing to disconnect changes nothing', async (t) => {
  spec([created, connected]).when({ type: 'DisconnectCalendar' }).then(t, [{ type: 'CalendarDisconnected', data: { disconnectedAt: at } }])
  spec([created]).when({ type: 'DisconnectCalendar' }).then(t, [])
})

t.test('an appointment type: checked, filled in, on one of the connection\'s calendars; the same again changes nothing', async (t) => {
  spec([created, connected]).when({ type: 'SaveAppointmentType', input: type }).then(t, [saved])
  spec([created, connected, saved]).when({ type: 'SaveAppointmentType', input: type }).then(t, [])
  spec([created]).when({ type: 'SaveAppointmentType', input: type }).thenThrows(t, 'calendar_not_connected')
  spec([created, connected]).when({ type: 'SaveAppointmentType', input: { ...type, calendarId: 'https://elsewhere/' } }).thenThrows(t, 'unknown_calendar')
  spec([created, connected]).when({ type: 'SaveAppointmentType', input: { ...type, durationMinutes: 0 } }).thenThrows(t, 'invalid_appointment_type')
})

t.test('remove: a type the account has; an unknown one is refused', async (t) => {
  spec([created, connected, saved]).when({ type: 'RemoveAppointmentType', typeId: 'estimate' }).then(t, [{ type: 'AppointmentTypeRemoved', data: { typeId: 'estimate', removedAt: at } }])
  spec([created, connected]).when({ type: 'RemoveAppointmentType', typeId: 'estimate' }).thenThrows(t, 'appointment_type_not_found')
})

t.test('connecting again replaces the connection; the types stay', async (t) => {
  const other = { ...connected, data: { ...connected.data, provider: 'simulated', calendars: [{ id: 'simulated:primary', name: 'Sim', timeZone: null }] } } as AccountEvent
  let state = accountDecider.initialState()
  for (const event of [created, connected, saved, other]) state = accountDecider.evolve(state, event)
  t.equal(state.calendar?.provider, 'simulated')
  t.same([...state.appointmentTypes.keys()], ['estimate'])
})
