/**
 * What an appointment's confirmation and reminders say (issue #45): the appointment's kind, the
 * business, the time in the lead's zone with its zone named, and how to change it. Never "reply
 * CANCEL": CANCEL is an opt-out keyword (src/domain/consent/) and stays one, so the text says how to
 * reschedule without it. The texts slice adds the opt-out line.
 */
import { DateTime } from 'luxon'

/** An owner's name or an appointment type's name is cut to this many characters in a text. */
const MAX_NAME = 60

export interface AppointmentTextValues {
  readonly kind: 'confirmation' | 'reminder'
  /** The appointment type's name ("Roof estimate"). */
  readonly typeName: string
  /** The account's name. */
  readonly business: string
  /** The number the text goes from, which the lead may call (the account's caller ID); null: none named. */
  readonly number: string | null
  /** The appointment's start, UTC ISO. */
  readonly start: string
  /** The lead's IANA zone: the time is written in it. */
  readonly zone: string
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > MAX_NAME ? `${flat.slice(0, MAX_NAME - 1).trimEnd()}…` : flat
}

/** "today at 10:00 AM CDT", "tomorrow, Tue Mar 12 at 10:00 AM CDT", "Tue Mar 12 at 10:00 AM CDT", from `now` in `zone`. */
export function appointmentWhen(start: string, zone: string, now: Date): string {
  const at = DateTime.fromISO(start, { zone: 'utc' }).setZone(zone).setLocale('en-US')
  const today = DateTime.fromJSDate(now).setZone(zone).startOf('day')
  const days = Math.round(at.startOf('day').diff(today, 'days').days)
  const time = at.toFormat('h:mm a ZZZZ')
  if (days === 0) return `today at ${time}`
  const date = at.toFormat(at.year === today.year ? 'ccc LLL d' : 'ccc LLL d, yyyy')
  return days === 1 ? `tomorrow, ${date} at ${time}` : `${date} at ${time}`
}

/** The text's body before the opt-out line. */
export function appointmentTextBody(values: AppointmentTextValues, now: Date): string {
  const what = `your ${clip(values.typeName) || 'appointment'} with ${clip(values.business)} is ${appointmentWhen(values.start, values.zone, now)}`
  const change = `To change the time, reply with a time that suits you${values.number === null ? '' : ` or call ${values.number}`}.`
  return values.kind === 'confirmation' ? `Confirmed: ${what}. ${change}` : `Reminder: ${what}. ${change}`
}
