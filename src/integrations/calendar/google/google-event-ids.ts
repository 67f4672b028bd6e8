/**
 * A booking's UID as a Google event id and back. Google ids may only use base32hex (`a-v`, `0-9`), so the
 * UID's bytes are written in hex (a subset) behind a marker. Reversible on purpose: a deleted event comes
 * back from a sync with only its id, and the booking must still be found by its UID.
 */
import { CalendarError, isSafeEventUid } from '../calendar.port.ts'

/** `l`, `i`, `n` are not hex digits: no id of Google's making reads as one of ours by chance. */
const MARKER = 'leadline'
const OURS = /^leadline((?:[0-9a-f]{2})+)$/

export function googleEventId(uid: string): string {
  if (!isSafeEventUid(uid)) throw new CalendarError('rejected', `an event UID must be letters, digits, '.', '_', '-' or '@': ${JSON.stringify(uid)}`)
  return `${MARKER}${Buffer.from(uid, 'utf8').toString('hex')}`
}

/** The booking's UID for one of our ids; an event the owner made keeps its Google id. */
export function uidOfGoogleEvent(id: string): string {
  const hex = OURS.exec(id)?.[1]
  if (hex === undefined) return id
  const uid = Buffer.from(hex, 'hex').toString('utf8')
  return isSafeEventUid(uid) ? uid : id
}
