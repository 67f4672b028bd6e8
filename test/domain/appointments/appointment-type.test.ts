/** Appointment types (src/domain/appointments/appointment-type.ts): defaults, canonical hours, refusals naming the field. */
import t from 'tap'
import { appointmentType } from '../../../src/domain/appointments/appointment-type.ts'
import { DomainError } from '../../../src/domain/shared/decider.ts'

const base = { id: 'estimate', name: 'Roof estimate', durationMinutes: 45, calendarId: 'https://cal.example/owner/jobs/' }

t.test('defaults fill what the owner leaves out; hours come back canonical', async (t) => {
  t.same(appointmentType(base), { ...base, bufferMinutes: 0, bookableHours: null, minimumNoticeMinutes: 120, maxPerDay: null })
  t.equal(appointmentType({ ...base, bookableHours: 'Monday-Friday 9:00-17:00' }).bookableHours, 'mon-fri 09:00-17:00')
})

t.test('bad input is refused with invalid_appointment_type and the field', async (t) => {
  const refusal = (input: unknown) => {
    try {
      appointmentType(input)
      return null
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      return [error.code, error.details?.field]
    }
  }
  t.same(refusal({ ...base, durationMinutes: 0 }), ['invalid_appointment_type', 'durationMinutes'])
  t.same(refusal({ ...base, durationMinutes: 30.5 }), ['invalid_appointment_type', 'durationMinutes'])
  t.same(refusal({ ...base, bufferMinutes: -5 }), ['invalid_appointment_type', 'bufferMinutes'])
  t.same(refusal({ ...base, maxPerDay: 0 }), ['invalid_appointment_type', 'maxPerDay'])
  t.same(refusal({ ...base, bookableHours: 'weekdays 9-5' }), ['invalid_appointment_type', 'bookableHours'])
  t.same(refusal({ ...base, id: '../x' }), ['invalid_appointment_type', 'id'])
  t.same(refusal({ ...base, name: '   ' }), ['invalid_appointment_type', 'name'])
  t.same(refusal(null), ['invalid_appointment_type', 'type'])
})
