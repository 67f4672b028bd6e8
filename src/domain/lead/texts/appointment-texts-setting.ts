/**
 * The account's appointment texts setting (issue #45): whether a lead gets a confirmation when an
 * appointment is booked or moved, and how many minutes before its start each reminder goes. Off-able:
 * `confirmation: false`, `remindersMinutesBefore: []`.
 */
import { z } from 'zod'

export interface AppointmentTextsSetting {
  readonly confirmation: boolean
  /** Minutes before the start, longest first: at most MAX_REMINDERS, each MIN to MAX_REMINDER_MINUTES, once each. */
  readonly remindersMinutesBefore: readonly number[]
}

export const DEFAULT_APPOINTMENT_TEXTS: AppointmentTextsSetting = { confirmation: true, remindersMinutesBefore: [1440, 60] }
export const MAX_REMINDERS = 3
/** The shortest reminder offset; also the least time Leadline leaves between two texts about one appointment. */
export const MIN_REMINDER_MINUTES = 15
export const MAX_REMINDER_MINUTES = 7 * 24 * 60

const reminders = z
  .array(z.number().int('each reminder is a whole number of minutes').min(MIN_REMINDER_MINUTES, `each reminder at least ${MIN_REMINDER_MINUTES} minutes before`).max(MAX_REMINDER_MINUTES, 'each reminder at most 7 days (10080 minutes) before'))
  .max(MAX_REMINDERS, `at most ${MAX_REMINDERS} reminders`)
  .refine((list) => new Set(list).size === list.length, 'each reminder once (two at the same offset)')
  .transform((list) => [...list].sort((a, b) => b - a))

/** Both parts, always: the setting is replaced whole (the console and `leadline account set` fill in the part left as it was). */
export const appointmentTextsSchema = z.object({ confirmation: z.boolean(), remindersMinutesBefore: reminders }).strict()

/** `24h,1h`, `90m`, `1d`, bare minutes (`1440,60`), or `none`: the reminders' offsets in minutes; null when unreadable. */
export function parseReminderOffsets(spec: string): number[] | null {
  const text = spec.trim().toLowerCase()
  if (text === 'none' || text === 'off' || text === '') return []
  const minutes: number[] = []
  for (const part of text.split(/[\s,]+/).filter((p) => p !== '')) {
    const match = /^(\d{1,6})(m|h|d)?$/.exec(part)
    if (!match) return null
    const n = Number(match[1])
    minutes.push(match[2] === 'd' ? n * 1440 : match[2] === 'h' ? n * 60 : n)
  }
  return minutes
}

/** The offsets as people write them back: `24h,1h`, `90m`; `none`. */
export function formatReminderOffsets(minutes: readonly number[]): string {
  if (minutes.length === 0) return 'none'
  return minutes.map((m) => (m % 1440 === 0 && m >= 2880 ? `${m / 1440}d` : m % 60 === 0 ? `${m / 60}h` : `${m}m`)).join(',')
}
