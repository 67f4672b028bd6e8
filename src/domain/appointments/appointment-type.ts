/**
 * An appointment type: what a lead can book (a roof estimate, a 15-minute call), how long it takes, the
 * gap kept around it, the hours it can be booked in, how much notice it needs, how many fit in a day, and
 * the calendar it goes to. Bad input is refused with `invalid_appointment_type`, naming the field.
 */
import { z } from 'zod'
import { normaliseCallingHours } from '../account/calling-hours.ts'
import { DomainError } from '../shared/decider.ts'

export interface AppointmentType {
  readonly id: string
  readonly name: string
  readonly durationMinutes: number
  /** Kept free before and after, against the owner's events and other appointments alike. */
  readonly bufferMinutes: number
  /** Calling-hours syntax (`mon-fri 09:00-17:00, sat 10:00-13:00`) in the account's zone; null: the account's business hours. */
  readonly bookableHours: string | null
  /** A slot must start at least this long after now. */
  readonly minimumNoticeMinutes: number
  /** At most this many of this type on one day (the account's day); null: no limit. */
  readonly maxPerDay: number | null
  /** The calendar the events go to (its id from the calendar connection). */
  readonly calendarId: string
}

/** What an owner leaves out when creating a type. */
export const APPOINTMENT_TYPE_DEFAULTS = {
  bufferMinutes: 0,
  bookableHours: null,
  minimumNoticeMinutes: 120,
  maxPerDay: null,
} as const

const WEEK_MINUTES = 7 * 24 * 60

const schema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, _ and -, up to 64'),
  name: z.string().trim().min(1).max(120),
  durationMinutes: z.number().int().min(5).max(24 * 60),
  bufferMinutes: z.number().int().min(0).max(24 * 60).default(APPOINTMENT_TYPE_DEFAULTS.bufferMinutes),
  bookableHours: z.string().nullable().default(APPOINTMENT_TYPE_DEFAULTS.bookableHours),
  minimumNoticeMinutes: z.number().int().min(0).max(WEEK_MINUTES * 8).default(APPOINTMENT_TYPE_DEFAULTS.minimumNoticeMinutes),
  maxPerDay: z.number().int().min(1).max(500).nullable().default(APPOINTMENT_TYPE_DEFAULTS.maxPerDay),
  calendarId: z.string().min(1).max(2000),
})

/** Checks and fills in an appointment type; its bookable hours come back in their canonical spelling. */
export function appointmentType(input: unknown): AppointmentType {
  const parsed = schema.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const field = issue.path.join('.') || 'type'
    throw new DomainError('invalid_appointment_type', `invalid appointment type: ${field}: ${issue.message}`, { field })
  }
  const type = parsed.data
  if (type.bookableHours === null) return type
  try {
    return { ...type, bookableHours: normaliseCallingHours(type.bookableHours) }
  } catch (error) {
    const why = error instanceof DomainError ? error.message : String(error)
    throw new DomainError('invalid_appointment_type', `invalid appointment type: bookableHours: ${why}`, { field: 'bookableHours' })
  }
}
