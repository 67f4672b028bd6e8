/**
 * Account settings and their documented defaults (docs/configuration.md). Events store only what
 * changed; the current settings are the defaults overlaid with every change, in order.
 */
import { IANAZone } from 'luxon'
import { isSupportedCountry } from 'libphonenumber-js/max'
import { z } from 'zod'
import { DomainError } from '../shared/decider.ts'
import { DEFAULT_CALLING_HOURS, normaliseCallingHours } from './calling-hours.ts'
import { INDUSTRIES } from '../lead/intake/industry-fields.ts'
import { DEFAULT_FOLLOW_UP, normaliseFollowUpPolicy } from '../dialing/follow-up-policy.ts'
import { DEFAULT_ON_ANSWER, MAX_AGENT_NUMBERS, formatOnAnswer, parseOnAnswer } from '../dialing/on-answer.ts'
import { DEFAULT_VOICEMAIL, DEFAULT_VOICEMAILS_PER_DAY, MAX_VOICEMAILS_PER_DAY, voicemailTemplateProblem } from '../dialing/voicemail.ts'
import { ALERT_KINDS, type AlertKind } from '../owner-alerts/owner-alerts.events.ts'
import { DEFAULT_BRIEF, assistantBriefSchema, type AssistantBrief } from './assistant-brief.ts'
import { DEFAULT_CURRENCY, DEFAULT_PAY_LINK_TEMPLATE, isSupportedCurrency, payLinkTemplateProblem } from './pay-link-text.ts'
import { DEFAULT_MISSED_CALL_TEXT, MISSED_CALL_TEXT_OFF, missedCallTextProblem } from '../lead/texts/missed-call-text.ts'
import { DEFAULT_APPOINTMENT_TEXTS, appointmentTextsSchema, type AppointmentTextsSetting } from '../lead/texts/appointment-texts-setting.ts'

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
  /** Countries (ISO 3166 alpha-2) any call may go to; null: the default country only. */
  readonly allowedCountries: readonly string[] | null
  /** Further countries place_call (only) may ring, on top of allowedCountries; null: none. */
  readonly placeCallCountries: readonly string[] | null
  /** Industry whose field list unrecognised webhook fields are matched against. */
  readonly industry: string | null
  /** Never ring a lead outside 08:00–21:00 in the lead's own zone. */
  readonly leadTimeGuard: boolean
  /** Calls per second this account may start (pacing); Twilio's default is 1. */
  readonly callsPerSecond: number
  /** Canonical follow-up policy (see follow-up-policy.ts). */
  readonly followUp: string
  /** What happens when a lead answers (see on-answer.ts). */
  readonly onAnswer: string
  /** Ask the carrier to tell a person from a machine on every call (answering-machine detection). */
  readonly amd: boolean
  /** The spoken voicemail (see voicemail.ts): `{first_name}`, `{business}`, `{callback_number}`. */
  readonly voicemail: string
  /** A recording (http(s) URL) played instead of the spoken voicemail; null: speak `voicemail`. */
  readonly voicemailUrl: string | null
  /** At most this many voicemails to one lead in any 24 hours; 0: never leave one. */
  readonly voicemailPerDay: number
  /** A contacted lead with no answer, reply or update for this long is stale (get_next_actions). */
  readonly staleAfterMinutes: number
  /** The account's connected Stripe account (`acct_…`): pay-links charge on it, money settles into it. */
  readonly stripeAccount: string | null
  /** ISO 4217, lower case: the currency of the account's pay-links. */
  readonly currency: string
  /** The pay-link text (see pay-link-text.ts): `{business}`, `{description}`, `{amount}`, `{link}`. */
  readonly payLinkTemplate: string
  /** The Twilio Messaging Service (`MG…`) texts go through (A2P 10DLC attaches to it); null: from the bare caller ID. */
  readonly messagingService: string | null
  /** The owner's own number (E.164) that alerts are texted to; null: no alerts. */
  readonly alertTo: string | null
  /** What the owner is alerted of (with `alertTo`). */
  readonly alerts: readonly AlertKind[]
  /** What the voice assistant says and asks, and its limits (assistant-brief.ts); replaced whole. */
  readonly assistantBrief: AssistantBrief
  /** The text-back after a missed inbound call (missed-call-text.ts): `{business}`, `{first_name}`; null: none. */
  readonly missedCallText: string | null
  /** When an inbound call rings the owner numbers (calling-hours syntax); null: the calling hours. */
  readonly businessHours: string | null
  /** The owner numbers (E.164, at most MAX_AGENT_NUMBERS) an inbound call rings within business hours; none: nobody is rung. */
  readonly inboundRing: readonly string[]
  /** Ring the owner numbers one after the other, or all at once (the first to press 1 takes the call). */
  readonly inboundRingMode: 'sequential' | 'simultaneous'
  /** A caller nobody took may leave a voicemail (at most INBOUND_VOICEMAIL_MAX_SECONDS). */
  readonly inboundVoicemail: boolean
  /** The texts a lead gets about an appointment they booked (appointment-texts-setting.ts): a confirmation, reminders before it. */
  readonly appointmentTexts: AppointmentTextsSetting
}

/** The longest inbound voicemail the carrier records. */
export const INBOUND_VOICEMAIL_MAX_SECONDS = 120

/** The hours inbound calls ring the owners: the business hours, else the calling hours. */
export function businessHoursOf(settings: AccountSettings): string {
  return settings.businessHours ?? settings.callingHours
}

export const DEFAULT_SETTINGS: AccountSettings = {
  timeZone: 'America/New_York',
  speedToLead: false,
  callingHours: DEFAULT_CALLING_HOURS,
  callerId: null,
  defaultCountry: 'US',
  allowedCountries: null,
  placeCallCountries: null,
  industry: null,
  leadTimeGuard: true,
  callsPerSecond: 1,
  followUp: DEFAULT_FOLLOW_UP,
  onAnswer: DEFAULT_ON_ANSWER,
  amd: true,
  voicemail: DEFAULT_VOICEMAIL,
  voicemailUrl: null,
  voicemailPerDay: DEFAULT_VOICEMAILS_PER_DAY,
  staleAfterMinutes: 24 * 60,
  stripeAccount: null,
  currency: DEFAULT_CURRENCY,
  payLinkTemplate: DEFAULT_PAY_LINK_TEMPLATE,
  messagingService: null,
  alertTo: null,
  alerts: ALERT_KINDS,
  assistantBrief: DEFAULT_BRIEF,
  missedCallText: DEFAULT_MISSED_CALL_TEXT,
  businessHours: null,
  inboundRing: [],
  inboundRingMode: 'sequential',
  inboundVoicemail: true,
  appointmentTexts: DEFAULT_APPOINTMENT_TEXTS,
}

const e164 = /^\+[1-9]\d{6,14}$/

// A list of countries: `US,CA` or an array; stored upper case, once each, in the order given.
const countryList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => [...new Set((typeof value === 'string' ? value.split(/[\s,]+/) : value).map((c) => c.trim().toUpperCase()).filter((c) => c !== ''))])
  .refine((list) => list.length > 0, 'name at least one country (ISO 3166 codes such as US,CA)')
  .refine((list) => list.length <= 250, 'at most 250 countries')
  .superRefine((list, ctx) => {
    const unknown = list.filter((c) => !isSupportedCountry(c))
    if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `unknown country code ${unknown.join(', ')}` })
  })

/** The countries a call of this kind may go to: the account's allowed countries, and for place_call the ones it widens to. */
export function callCountries(settings: AccountSettings, placeCall: boolean): readonly string[] {
  const allowed = settings.allowedCountries ?? [settings.defaultCountry]
  if (!placeCall || settings.placeCallCountries === null) return allowed
  return [...new Set([...allowed, ...settings.placeCallCountries])]
}

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
    allowedCountries: countryList.nullable(),
    placeCallCountries: countryList.nullable(),
    industry: z
      .string()
      .refine((i) => (INDUSTRIES as readonly string[]).includes(i), `must be one of: ${INDUSTRIES.join(', ')}`)
      .nullable(),
    leadTimeGuard: z.boolean(),
    callsPerSecond: z.number().min(0.1, 'must be at least 0.1').max(100, 'must be at most 100'),
    followUp: z.string(),
    onAnswer: z.string(),
    amd: z.boolean(),
    voicemail: z.string().superRefine((template, ctx) => {
      const problem = voicemailTemplateProblem(template)
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem })
    }),
    voicemailUrl: z
      .string()
      .url('must be an http(s) URL of a recording')
      .max(2048, 'must be at most 2048 characters')
      .refine((url) => /^https?:\/\//i.test(url), 'must be an http(s) URL of a recording')
      .nullable(),
    voicemailPerDay: z.number().int('must be a whole number').min(0, 'must be 0 or more').max(MAX_VOICEMAILS_PER_DAY, `must be at most ${MAX_VOICEMAILS_PER_DAY}`),
    staleAfterMinutes: z.number().int().min(5, 'must be at least 5 minutes').max(60 * 24 * 90, 'must be at most 90 days'),
    stripeAccount: z.string().regex(/^acct_[0-9A-Za-z]{6,64}$/, 'must be a Stripe connected account id such as acct_1Nv0FGQ9RKHgCVdK').nullable(),
    currency: z
      .string()
      .transform((c) => c.trim().toLowerCase())
      .refine((c) => isSupportedCurrency(c), 'must be an ISO 4217 currency code such as usd, cad or eur'),
    payLinkTemplate: z.string().superRefine((template, ctx) => {
      const problem = payLinkTemplateProblem(template)
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem })
    }),
    messagingService: z.string().regex(/^MG[0-9a-f]{32}$/, 'must be a Twilio Messaging Service SID: MG and 32 hex digits').nullable(),
    alertTo: z.string().regex(e164, 'must be an E.164 number such as +15551234567').nullable(),
    // `new_lead,callback` or an array; `none` (or nothing) for none. Stored once each, in ALERT_KINDS' order.
    alerts: z
      .union([z.string(), z.array(z.string())])
      .transform((value) => (typeof value === 'string' ? value.split(/[\s,]+/) : value).map((k) => k.trim().toLowerCase()).filter((k) => k !== '' && k !== 'none'))
      .superRefine((list, ctx) => {
        const unknown = list.filter((k) => !(ALERT_KINDS as readonly string[]).includes(k))
        if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `unknown alert ${unknown.join(', ')} (known: ${ALERT_KINDS.join(', ')}, or none)` })
      })
      .transform((list) => ALERT_KINDS.filter((k) => list.includes(k))),
    assistantBrief: assistantBriefSchema,
    // `off` (any case) or null turns it off; anything else is a template.
    missedCallText: z
      .string()
      .nullable()
      .transform((text) => (text === null || text.trim().toLowerCase() === MISSED_CALL_TEXT_OFF ? null : text))
      .superRefine((template, ctx) => {
        const problem = template === null ? null : missedCallTextProblem(template)
        if (problem !== null) ctx.addIssue({ code: 'custom', message: problem })
      }),
    businessHours: z.string().nullable(),
    // `+1…,+1…` or an array; `none` (or nothing) for none. Stored once each, in the order given.
    inboundRing: z
      .union([z.string(), z.array(z.string())])
      .transform((value) => [...new Set((typeof value === 'string' ? value.split(/[\s,]+/) : value).map((n) => n.trim()).filter((n) => n !== '' && n !== 'none'))])
      .superRefine((list, ctx) => {
        const bad = list.find((n) => !e164.test(n))
        if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `"${bad}" is not an E.164 number such as +15551234567` })
        if (list.length > MAX_AGENT_NUMBERS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_AGENT_NUMBERS} numbers` })
      }),
    inboundRingMode: z.enum(['sequential', 'simultaneous'], { message: 'must be sequential or simultaneous' }),
    inboundVoicemail: z.boolean(),
    appointmentTexts: appointmentTextsSchema,
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
  if (change.callingHours !== undefined) change.callingHours = normaliseCallingHours(change.callingHours)
  if (change.businessHours !== undefined && change.businessHours !== null) change.businessHours = normaliseCallingHours(change.businessHours)
  if (change.followUp !== undefined) change.followUp = normaliseFollowUpPolicy(change.followUp)
  if (change.onAnswer !== undefined) change.onAnswer = formatOnAnswer(parseOnAnswer(change.onAnswer))
  return change
}
