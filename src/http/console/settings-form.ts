/**
 * The settings form's values, both ways: read from the account's settings to fill the form, and
 * read from a submitted form into a settings change for the account decider (which validates it
 * again, as it does for the CLI). Calling hours are edited day by day, not as text.
 */
import type { AccountSettings, SettingsChange } from '../../domain/account/account-settings.ts'
import { DAY_NAMES, formatCallingHours, parseCallingHours, type CallingWindow } from '../../domain/account/calling-hours.ts'
import { formatFollowUpSteps, parseFollowUpPolicy } from '../../domain/dialing/follow-up-policy.ts'
import type { AssistantBrief } from '../../domain/account/assistant-brief.ts'
import { parseOnAnswer } from '../../domain/dialing/on-answer.ts'
import { DEFAULT_VOICEMAIL, MAX_VOICEMAILS_PER_DAY } from '../../domain/dialing/voicemail.ts'
import { DEFAULT_MISSED_CALL_TEXT } from '../../domain/lead/texts/missed-call-text.ts'
import { formatReminderOffsets, parseReminderOffsets } from '../../domain/lead/texts/appointment-texts-setting.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { formField } from './session.ts'

export type Day = (typeof DAY_NAMES)[number]
export type OnAnswerMode = 'greeting' | 'greeting-bridge' | 'bridge' | 'twiml' | 'agent-first' | 'agent-first-assistant' | 'assistant'
const ON_ANSWER_MODES: readonly OnAnswerMode[] = ['greeting', 'greeting-bridge', 'bridge', 'twiml', 'agent-first', 'agent-first-assistant', 'assistant']
export type StaleUnit = 'minutes' | 'hours' | 'days'

export interface DayHours {
  readonly on: boolean
  readonly from: string
  readonly to: string
}

export interface SettingsFormValues {
  readonly speedToLead: boolean
  readonly timeZone: string
  readonly days: Readonly<Record<Day, DayHours>>
  /** The current spec when it has more than one window on a day (the editor shows one per day). */
  readonly unrepresentableHours: string | null
  readonly callerId: string
  /** Comma-separated ISO country codes; blank: the account's default country. */
  readonly allowedCountries: string
  /** Comma-separated; blank: place_call rings the allowed countries only. */
  readonly placeCallCountries: string
  readonly onAnswerMode: OnAnswerMode
  readonly onAnswerNumber: string
  readonly onAnswerUrl: string
  readonly followUpOn: boolean
  readonly followUpSteps: string
  readonly followUpMax: string
  readonly staleValue: string
  readonly staleUnit: StaleUnit
  readonly stripeAccount: string
  /** Machine detection on every call. */
  readonly amd: boolean
  /** The spoken voicemail; blank: the default message. */
  readonly voicemail: string
  /** A recording played instead; blank: speak the message. */
  readonly voicemailUrl: string
  readonly voicemailPerDay: string
  /** The Twilio Messaging Service (MG…) texts go through; blank: from the bare caller ID. */
  readonly messagingService: string
  /** Text a caller back after a missed inbound call. */
  readonly missedCallTextOn: boolean
  /** Its template; blank: the default text; null: a form without the field (an older page) leaves the setting as it is. */
  readonly missedCallText: string | null
  /** The voice assistant's brief, as the form edits it: questions one a line, `Question? | a good answer`. */
  readonly brief: BriefFormValues
  /** Inbound calls: business hours (blank: the calling hours), owner numbers (comma-separated), how they ring, voicemail. */
  readonly inbound: InboundFormValues
  /** Appointment texts: a confirmation, and reminders as `24h, 1h` (blank: none); null: a form without them (an older page) leaves them as they are. */
  readonly appointmentTexts: { readonly confirmation: boolean; readonly reminders: string } | null
}

export interface InboundFormValues {
  readonly businessHours: string
  readonly ring: string
  /** Blank when the form had no inbound fields (an older page): the inbound settings stay as they are. */
  readonly ringMode: string
  readonly voicemail: boolean
}

export interface BriefFormValues {
  readonly business: string
  readonly questions: string
  readonly callbackWindows: string
  readonly transferNumber: string
  readonly assistantName: string
  readonly voice: string
  readonly language: string
  readonly maxCallMinutes: string
  readonly maxConcurrentCalls: string
  /** The appointment type the assistant books ('' for none named); null: a form without the field (an older page) keeps it. */
  readonly appointmentTypeId: string | null
}

function briefValues(brief: AssistantBrief): BriefFormValues {
  return {
    business: brief.business,
    questions: brief.questions.map((q) => (q.goodAnswer === '' ? q.question : `${q.question} | ${q.goodAnswer}`)).join('\n'),
    callbackWindows: brief.callbackWindows ?? '',
    transferNumber: brief.transferNumber ?? '',
    assistantName: brief.assistantName,
    voice: brief.voice ?? '',
    language: brief.language,
    maxCallMinutes: String(brief.maxCallMinutes),
    maxConcurrentCalls: String(brief.maxConcurrentCalls),
    appointmentTypeId: brief.appointmentTypeId ?? '',
  }
}

/** The brief a submitted form asks for; the settings' own schema checks every member. */
function briefOf(values: BriefFormValues): Record<string, unknown> {
  const questions = values.questions.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '').map((line) => {
    const [question = '', ...good] = line.split('|')
    return { question: question.trim(), goodAnswer: good.join('|').trim() }
  })
  const whole = (value: string, field: string, what: string) => {
    if (!/^\d{1,3}$/.test(value)) throw invalid(field, `${what} must be a whole number`)
    return Number(value)
  }
  return {
    business: values.business,
    questions,
    callbackWindows: values.callbackWindows === '' ? null : values.callbackWindows,
    transferNumber: values.transferNumber === '' ? null : values.transferNumber,
    assistantName: values.assistantName,
    voice: values.voice === '' ? null : values.voice,
    language: values.language,
    maxCallMinutes: whole(values.maxCallMinutes, 'assistantBrief.maxCallMinutes', 'the longest call'),
    maxConcurrentCalls: whole(values.maxConcurrentCalls, 'assistantBrief.maxConcurrentCalls', 'assistant calls at once'),
    ...(values.appointmentTypeId === null ? {} : { appointmentTypeId: values.appointmentTypeId === '' ? null : values.appointmentTypeId }),
  }
}

const UNIT_MINUTES: Readonly<Record<StaleUnit, number>> = { minutes: 1, hours: 60, days: 24 * 60 }

function clock(minutes: number): string {
  const m = minutes % 1440
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`
}

export function valuesFromSettings(settings: AccountSettings): SettingsFormValues {
  const windows = parseCallingHours(settings.callingHours)
  const days = {} as Record<Day, DayHours>
  let unrepresentable = false
  for (const [index, day] of DAY_NAMES.entries()) {
    const mine = windows.filter((w) => w.days.includes(index + 1))
    if (mine.length > 1) unrepresentable = true
    const w = mine[0]
    days[day] = w ? { on: true, from: clock(w.start), to: clock(w.end) } : { on: false, from: '09:00', to: '18:00' }
  }
  const onAnswer = parseOnAnswer(settings.onAnswer)
  const policy = parseFollowUpPolicy(settings.followUp)
  const stale = settings.staleAfterMinutes
  const staleUnit: StaleUnit = stale % UNIT_MINUTES.days === 0 ? 'days' : stale % UNIT_MINUTES.hours === 0 ? 'hours' : 'minutes'
  return {
    speedToLead: settings.speedToLead,
    timeZone: settings.timeZone,
    days,
    unrepresentableHours: unrepresentable ? settings.callingHours : null,
    callerId: settings.callerId ?? '',
    allowedCountries: settings.allowedCountries?.join(', ') ?? '',
    placeCallCountries: settings.placeCallCountries?.join(', ') ?? '',
    onAnswerMode: onAnswer.kind === 'greeting'
      ? (onAnswer.ownerNumber ? 'greeting-bridge' : 'greeting')
      : onAnswer.kind === 'agent-first' && onAnswer.fallback === 'assistant' ? 'agent-first-assistant' : onAnswer.kind,
    onAnswerNumber: onAnswer.kind === 'twiml' || onAnswer.kind === 'assistant' ? '' : onAnswer.kind === 'agent-first' ? onAnswer.ownerNumbers.join(', ') : (onAnswer.ownerNumber ?? ''),
    onAnswerUrl: onAnswer.kind === 'twiml' ? onAnswer.url : '',
    followUpOn: policy.steps.length > 0,
    followUpSteps: policy.steps.length > 0 ? formatFollowUpSteps(policy.steps) : '10m, 1h, next-day 10:00',
    followUpMax: String(policy.maxPer24h),
    staleValue: String(stale / UNIT_MINUTES[staleUnit]),
    staleUnit,
    stripeAccount: settings.stripeAccount ?? '',
    amd: settings.amd,
    voicemail: settings.voicemail,
    voicemailUrl: settings.voicemailUrl ?? '',
    voicemailPerDay: String(settings.voicemailPerDay),
    messagingService: settings.messagingService ?? '',
    missedCallTextOn: settings.missedCallText !== null,
    missedCallText: settings.missedCallText ?? DEFAULT_MISSED_CALL_TEXT,
    brief: briefValues(settings.assistantBrief),
    inbound: { businessHours: settings.businessHours ?? '', ring: settings.inboundRing.join(', '), ringMode: settings.inboundRingMode, voicemail: settings.inboundVoicemail },
    appointmentTexts: {
      confirmation: settings.appointmentTexts.confirmation,
      reminders: settings.appointmentTexts.remindersMinutesBefore.length === 0 ? '' : formatReminderOffsets(settings.appointmentTexts.remindersMinutesBefore).replaceAll(',', ', '),
    },
  }
}

type Body = Readonly<Record<string, unknown>>

function text(body: Body, name: string): string {
  return formField(body, name).trim()
}

function oneOf<T extends string>(value: string, allowed: readonly T[], fallback: T): T {
  return (allowed as readonly string[]).includes(value) ? (value as T) : fallback
}

export function valuesFromForm(body: Body): SettingsFormValues {
  const days = {} as Record<Day, DayHours>
  for (const day of DAY_NAMES) days[day] = { on: body[`day-${day}`] !== undefined, from: text(body, `from-${day}`), to: text(body, `to-${day}`) }
  return {
    speedToLead: body.speedToLead !== undefined,
    timeZone: text(body, 'timeZone'),
    days,
    unrepresentableHours: null,
    callerId: text(body, 'callerId'),
    allowedCountries: text(body, 'allowedCountries'),
    placeCallCountries: text(body, 'placeCallCountries'),
    onAnswerMode: oneOf(text(body, 'onAnswerMode'), ON_ANSWER_MODES, 'greeting'),
    onAnswerNumber: text(body, 'onAnswerNumber'),
    onAnswerUrl: text(body, 'onAnswerUrl'),
    followUpOn: body.followUpOn !== undefined,
    followUpSteps: text(body, 'followUpSteps'),
    followUpMax: text(body, 'followUpMax'),
    staleValue: text(body, 'staleValue'),
    staleUnit: oneOf(text(body, 'staleUnit'), ['minutes', 'hours', 'days'], 'hours'),
    stripeAccount: text(body, 'stripeAccount'),
    amd: body.amd !== undefined,
    voicemail: text(body, 'voicemail'),
    voicemailUrl: text(body, 'voicemailUrl'),
    voicemailPerDay: text(body, 'voicemailPerDay'),
    messagingService: text(body, 'messagingService'),
    missedCallTextOn: body.missedCallTextOn !== undefined,
    missedCallText: body.missedCallText === undefined ? null : text(body, 'missedCallText'),
    brief: {
      business: text(body, 'briefBusiness'), questions: text(body, 'briefQuestions'), callbackWindows: text(body, 'briefCallbackWindows'),
      transferNumber: text(body, 'briefTransferNumber'), assistantName: text(body, 'briefAssistantName'), voice: text(body, 'briefVoice'),
      language: text(body, 'briefLanguage'), maxCallMinutes: text(body, 'briefMaxCallMinutes'), maxConcurrentCalls: text(body, 'briefMaxConcurrentCalls'),
      appointmentTypeId: body.briefAppointmentType === undefined ? null : text(body, 'briefAppointmentType'),
    },
    inbound: { businessHours: text(body, 'businessHours'), ring: text(body, 'inboundRing'), ringMode: text(body, 'inboundRingMode'), voicemail: body.inboundVoicemail !== undefined },
    appointmentTexts: body.appointmentReminders === undefined ? null : { confirmation: body.appointmentConfirmation !== undefined, reminders: text(body, 'appointmentReminders') },
  }
}

function invalid(field: string, message: string): DomainError {
  return new DomainError('invalid_setting', message, { field })
}

function minutesOf(value: string, day: Day, which: 'from' | 'to'): number {
  const match = /^(\d{2}):(\d{2})$/.exec(value)
  if (!match || Number(match[1]) > 23 || Number(match[2]) > 59) throw invalid(`${which}-${day}`, `${day}: "${value}" is not a time (HH:MM)`)
  return Number(match[1]) * 60 + Number(match[2])
}

/** The calling-hours spec the day editor describes: days with the same hours share one window. */
export function callingHoursOf(days: Readonly<Record<Day, DayHours>>): string {
  const byHours = new Map<string, CallingWindow & { days: number[] }>()
  for (const [index, day] of DAY_NAMES.entries()) {
    const hours = days[day]
    if (!hours.on) continue
    const start = minutesOf(hours.from, day, 'from')
    let end = minutesOf(hours.to, day, 'to')
    // 00:00 as the end is midnight at the end of the day (00:00-00:00 is the whole day).
    if (end === 0) end = 1440
    if (start === end) throw invalid(`to-${day}`, `${day}: the window from ${hours.from} to ${hours.to} is empty`)
    const key = `${start}-${end}`
    const window = byHours.get(key) ?? { days: [], start, end }
    window.days.push(index + 1)
    byHours.set(key, window)
  }
  return formatCallingHours([...byHours.values()])
}

/** The settings change a submitted form asks for (every editable setting, validated by the decider). */
export function changeOf(values: SettingsFormValues): SettingsChange {
  const onAnswer = (() => {
    switch (values.onAnswerMode) {
      case 'greeting':
        return 'greeting'
      case 'greeting-bridge':
        return `greeting+bridge:${values.onAnswerNumber}`
      case 'bridge':
        return `bridge:${values.onAnswerNumber}`
      case 'twiml':
        return `twiml:${values.onAnswerUrl}`
      case 'agent-first':
        return `agent-first:${values.onAnswerNumber}`
      case 'agent-first-assistant':
        return `agent-first:${values.onAnswerNumber};then=assistant`
      case 'assistant':
        return 'assistant'
    }
  })()
  const max = Number(values.followUpMax)
  if (values.followUpOn && (!Number.isInteger(max) || max < 1 || max > 99)) throw invalid('followUpMax', 'follow-up: the most calls in 24 hours must be a whole number from 1 to 99')
  const stale = Number(values.staleValue)
  if (values.staleValue === '' || !Number.isFinite(stale) || stale <= 0) throw invalid('staleValue', 'the stale threshold must be a positive number')
  const voicemails = Number(values.voicemailPerDay)
  if (values.voicemailPerDay === '' || !Number.isInteger(voicemails)) {
    throw invalid('voicemailPerDay', `voicemails per day must be a whole number from 0 to ${MAX_VOICEMAILS_PER_DAY}`)
  }
  const reminders = values.appointmentTexts === null ? null : parseReminderOffsets(values.appointmentTexts.reminders)
  if (values.appointmentTexts !== null && reminders === null) {
    throw invalid('appointmentReminders', 'appointment reminders: times before the start such as 24h, 1h or 90m, comma-separated (empty: none)')
  }
  return {
    speedToLead: values.speedToLead,
    timeZone: values.timeZone,
    callingHours: callingHoursOf(values.days),
    callerId: values.callerId === '' ? null : values.callerId,
    allowedCountries: values.allowedCountries === '' ? null : values.allowedCountries.split(','),
    placeCallCountries: values.placeCallCountries === '' ? null : values.placeCallCountries.split(','),
    onAnswer,
    followUp: values.followUpOn ? `${values.followUpSteps}; max ${max} per 24h` : 'off',
    staleAfterMinutes: Math.round(stale * UNIT_MINUTES[values.staleUnit]),
    stripeAccount: values.stripeAccount === '' ? null : values.stripeAccount,
    amd: values.amd,
    voicemail: values.voicemail === '' ? DEFAULT_VOICEMAIL : values.voicemail,
    voicemailUrl: values.voicemailUrl === '' ? null : values.voicemailUrl,
    voicemailPerDay: voicemails,
    messagingService: values.messagingService === '' ? null : values.messagingService,
    ...(values.missedCallText === null ? {} : { missedCallText: values.missedCallTextOn ? (values.missedCallText === '' ? DEFAULT_MISSED_CALL_TEXT : values.missedCallText) : null }),
    // A form without the assistant's fields (an older page) leaves the brief as it is.
    ...(Object.values(values.brief).every((v) => v === '' || v === null) ? {} : { assistantBrief: briefOf(values.brief) as unknown as AssistantBrief }),
    ...(values.inbound.ringMode === '' ? {} : {
      businessHours: values.inbound.businessHours === '' ? null : values.inbound.businessHours,
      // Read by the settings' own rules (E.164, at most five), as the CLI's flag is.
      inboundRing: values.inbound.ring as unknown as readonly string[],
      inboundRingMode: values.inbound.ringMode as AccountSettings['inboundRingMode'],
      inboundVoicemail: values.inbound.voicemail,
    }),
    ...(values.appointmentTexts === null || reminders === null ? {} : { appointmentTexts: { confirmation: values.appointmentTexts.confirmation, remindersMinutesBefore: reminders } }),
  }
}
