/**
 * Account settings and their documented defaults (docs/configuration.md). Events store only what
 * changed; the current settings are the defaults overlaid with every change, in order.
 */
import { IANAZone } from 'luxon'
import { isSupportedCountry } from 'libphonenumber-js'
import { z } from 'zod'
import { DomainError } from '../shared/decider.ts'
import { DEFAULT_CALLING_HOURS, normaliseCallingHours } from './calling-hours.ts'
import { INDUSTRIES } from '../lead/intake/industry-fields.ts'

export interface AccountSettings {
  /** IANA zone: calling hours and ages are computed here, never in the server's zone. */
  readonly timeZone: string
  readonly speedToLead: boolean
  /** Canonical calling-hours spec (see calling-hours.ts). */
  readonly callingHours: string
  /** The account's own number, E.164; calls and texts go out from it. */
  readonly callerId: string | null
  /** ISO 3166 alpha-2 country used to read phone numbers written without a country code. */
  readonly defaultCountry: string
  /** Industry whose field list unrecognised webhook fields are matched against. */
  readonly industry: string | null
}

export const DEFAULT_SETTINGS: AccountSettings = {
  timeZone: 'America/New_York',
  speedToLead: false,
  callingHours: DEFAULT_CALLING_HOURS,
  callerId: null,
  defaultCountry: 'US',
  industry: null,
}

const e164 = /^\+[1-9]\d{6,14}$/

/** Validates and normalises a partial settings change; throws DomainError naming the bad setting. */
export const settingsChangeSchema = z
  .object({
    timeZone: z.string().refine((zone) => IANAZone.isValidZone(zone), 'unknown IANA time zone'),
    speedToLead: z.boolean(),
    callingHours: z.string(),
    callerId: z.string().regex(e164, 'must be an E.164 number such as +15551234567').nullable(),
    defaultCountry: z
      .string()
      .transform((c) => c.toUpperCase())
      .refine((c) => isSupportedCountry(c), 'unknown country code'),
    industry: z
      .string()
      .refine((i) => (INDUSTRIES as readonly string[]).includes(i), `must be one of: ${INDUSTRIES.join(', ')}`)
      .nullable(),
  })
  .partial()
  .strict()

export type SettingsChange = Partial<AccountSettings>

export function validateSettingsChange(input: unknown): SettingsChange {
  const parsed = settingsChangeSchema.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.join('.') || 'settings'
    throw new DomainError('invalid_setting', `invalid ${field}: ${issue?.message ?? 'invalid value'}`, { field })
  }
  const change: { -readonly [K in keyof AccountSettings]?: AccountSettings[K] } = { ...parsed.data }
  if (change.callingHours !== undefined) {
    change.callingHours = normaliseCallingHours(change.callingHours)
  }
  return change
}
