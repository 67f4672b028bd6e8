/**
 * A time as a person hears it on the phone, in the account's zone: "today at 2:30 PM",
 * "tomorrow at 9 AM", "on Monday at 9 AM", "on March 14 at 9 AM".
 */
import { DateTime } from 'luxon'

export function spokenTime(iso: string, zone: string, now: Date): string {
  const at = DateTime.fromISO(iso, { zone })
  const today = DateTime.fromJSDate(now, { zone }).startOf('day')
  const clock = at.minute === 0 ? at.toFormat('h a') : at.toFormat('h:mm a')
  const days = Math.round(at.startOf('day').diff(today, 'days').days)
  if (days <= 0) return `today at ${clock}`
  if (days === 1) return `tomorrow at ${clock}`
  if (days < 7) return `on ${at.toFormat('cccc')} at ${clock}`
  return `on ${at.toFormat('LLLL d')} at ${clock}`
}
