/**
 * Whether the voice assistant books appointments in its calls, and which type (docs/assistant.md
 * "Booking appointments"): the brief's `appointmentTypeId`, or the account's only type when the brief
 * names none. Off when the account has no calendar, no type, several types and none named, or when the
 * brief names a type the account does not have (a setting error the owner is told about).
 */
import type { AppointmentType } from '../appointments/appointment-type.ts'
import type { AccountSettings } from './account-settings.ts'

/** What the answer reads of the account (its state, account.decider.ts). */
export interface BookingAccount {
  readonly settings: AccountSettings
  readonly appointmentTypes: ReadonlyMap<string, AppointmentType>
  readonly calendar: { readonly calendars: ReadonlyArray<{ readonly id: string }> } | null
}

export type AssistantBooking =
  | { readonly on: true; readonly type: AppointmentType }
  /** `problem`: the owner's setting is wrong (say so where the brief is shown); otherwise booking is simply not set up. */
  | { readonly on: false; readonly why: string; readonly problem: boolean }

export function assistantBooking(account: BookingAccount): AssistantBooking {
  // A brief kept before the member existed has none: the same as null.
  const named = account.settings.assistantBrief.appointmentTypeId ?? null
  const types = [...account.appointmentTypes.values()]
  const ids = types.map((t) => t.id).join(', ')
  let type: AppointmentType | undefined
  if (named !== null) {
    type = account.appointmentTypes.get(named)
    if (type === undefined) {
      const others = types.length === 0 ? 'it has none' : `name one of ${ids}, or none`
      return { on: false, problem: true, why: `the brief's appointmentTypeId names appointment type "${named}", which this account does not have (${others})` }
    }
  } else if (types.length === 1) {
    type = types[0]!
  } else {
    return types.length === 0
      ? { on: false, problem: false, why: 'the account has no appointment types' }
      : { on: false, problem: false, why: `the account has ${types.length} appointment types and the brief's appointmentTypeId names none of them (${ids})` }
  }
  if (account.calendar === null) return { on: false, problem: named !== null, why: 'no calendar is connected' }
  if (!account.calendar.calendars.some((c) => c.id === type.calendarId)) {
    return { on: false, problem: true, why: `appointment type "${type.id}" goes to a calendar the connection does not have` }
  }
  return { on: true, type }
}

/** Why the brief may not name `typeId` now, or null: a type the account has (null always may). */
export function bookingTypeProblem(account: Pick<BookingAccount, 'appointmentTypes'>, typeId: string | null): string | null {
  if (typeId === null || account.appointmentTypes.has(typeId)) return null
  const ids = [...account.appointmentTypes.keys()]
  return `no appointment type "${typeId}" in this account (${ids.length === 0 ? 'it has none yet: add one in Setup → Calendar' : `one of ${ids.join(', ')}, or none`})`
}
