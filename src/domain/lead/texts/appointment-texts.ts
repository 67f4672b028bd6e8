/**
 * Appointment texts (issue #45): a confirmation when an appointment is booked or moved, and reminders
 * before it, decided on the lead's stream like every text. Booking (or moving) plans them once per
 * appointment and start (`AppointmentTextsScheduled`, with stable text ids); each planned text, once
 * due, is decided once (`TextDecided`, which the texter claims and sends), made to wait for the texting
 * window (`AppointmentTextDeferred`), or skipped with the rule or reason that refused it
 * (`AppointmentTextSkipped`). The texts slice (texts.decider.ts) lends the one contact check and the
 * decision of a text, so the same rules hold as for any text.
 *
 * Rules (docs/appointments.md, reminders):
 * - a reminder is planned at start − its offset; one whose moment is already past at booking, or
 *   within MIN_REMINDER_MINUTES of a confirmation sent then, is not planned (the confirmation says it);
 * - late (the window was closed, the server was down): a text goes only while the appointment has not
 *   begun, and a reminder only while more time remains than the next shorter reminder's offset
 *   (else `too_late`: that one says the same, sooner); a reminder is also dropped when the
 *   confirmation went out less than MIN_REMINDER_MINUTES before;
 * - outside the window, a text waits for it to open when that is still in time by the rules above,
 *   else it is skipped with the window's rule;
 * - the settings as they are when a text is due decide whether it still goes (`confirmation_off`, `reminder_off`).
 */
import type { AccountSettings } from '../../account/account-settings.ts'
import { leadTimeZone } from '../../dialing/lead-time-zone.ts'
import type { ContactCheck } from '../../dialing/may-call.ts'
import { DomainError } from '../../shared/decider.ts'
import type { AppointmentRecord, AppointmentsState } from '../appointments/appointments.decider.ts'
import { appointmentTextBody } from './appointment-text-body.ts'
import { MIN_REMINDER_MINUTES } from './appointment-texts-setting.ts'
import type { PlannedAppointmentText, TextEvent } from './texts.events.ts'

const MINUTE = 60_000

export type AppointmentTextStatus = 'planned' | 'decided' | 'skipped'

export interface AppointmentTextRecord extends PlannedAppointmentText {
  readonly appointmentId: string
  /** The start the text was planned for: a moved appointment's old texts are never sent. */
  readonly start: string
  /** The plan it belongs to (planKey): moved away and back, the old plan's texts are not the new one's. */
  readonly plan: string
  readonly status: AppointmentTextStatus
  /** When its TextDecided was appended; null until then. */
  readonly decidedAt: string | null
}

export interface AppointmentTextsState {
  /** Every appointment text planned on this lead, by text id. */
  readonly appointmentTexts: Readonly<Record<string, AppointmentTextRecord>>
  /** Each appointment's last plan (planKey): its start and the booking or move it followed. */
  readonly appointmentPlans: Readonly<Record<string, string>>
}

export const INITIAL_APPOINTMENT_TEXTS: AppointmentTextsState = { appointmentTexts: {}, appointmentPlans: {} }

export type AppointmentTextCommand =
  /** Plan appointment `appointmentId`'s texts for its current start (once per booking or move); the confirmation is decided at once when it may go. */
  | { type: 'ScheduleAppointmentTexts'; settings: AccountSettings; business: string; appointmentId: string }
  /** Decide the planned text `textId`, now due: sent, made to wait for the window, or skipped with why. */
  | { type: 'DecideAppointmentText'; settings: AccountSettings; business: string; textId: string }

/** What the appointment texts read of the lead. */
export interface AppointmentTextsLead {
  readonly exists: boolean
  readonly leadId: string
  readonly fields: { readonly phone: string; readonly state?: string | undefined } | null
  readonly appointments: AppointmentsState
  readonly texts: AppointmentTextsState
}

/** What the texts slice lends: its contact check, its decision of one text, and its evolve. */
export interface TextsSlicePorts<S extends AppointmentTextsLead> {
  check(settings: AccountSettings, lead: S, now: Date): ContactCheck
  decideText(settings: AccountSettings, lead: S, text: { textId: string; reason: 'appointment_confirmation' | 'appointment_reminder'; body: string; appointmentId: string }, now: Date): TextEvent[]
  evolve(lead: S, event: TextEvent): S
}

/** `txt_{appointment}_{c|r<minutes>}_{start}`: the same text of the same appointment and start has the same id, whoever plans it. */
export function appointmentTextId(appointmentId: string, kind: 'confirmation' | 'reminder', minutesBefore: number | null, start: string): string {
  const startKey = start.replace(/[^0-9TZ]/g, '')
  return `txt_${appointmentId}_${kind === 'confirmation' ? 'c' : `r${minutesBefore ?? 0}`}_${startKey}`
}

/** Which booking or move of the appointment a plan follows: its start and when it was booked or last moved. */
export function planKey(start: string, bookedOrMovedAt: string): string {
  return `${start}@${bookedOrMovedAt}`
}

function currentPlanKey(appointment: AppointmentRecord): string {
  return planKey(appointment.start, appointment.changedAt ?? appointment.bookedAt)
}

/** The texts an appointment starting at `start` gets, planned at `now` under `settings`. */
export function planAppointmentTexts(settings: AccountSettings['appointmentTexts'], appointmentId: string, start: string, now: Date): PlannedAppointmentText[] {
  const startMs = Date.parse(start)
  if (startMs <= now.getTime()) return []
  const planned: PlannedAppointmentText[] = []
  if (settings.confirmation) planned.push({ textId: appointmentTextId(appointmentId, 'confirmation', null, start), kind: 'confirmation', minutesBefore: null, dueAt: now.toISOString() })
  const earliest = now.getTime() + (settings.confirmation ? MIN_REMINDER_MINUTES * MINUTE : 0)
  for (const minutes of [...settings.remindersMinutesBefore].sort((a, b) => b - a)) {
    const due = startMs - minutes * MINUTE
    if (due > earliest || (!settings.confirmation && due >= earliest)) {
      planned.push({ textId: appointmentTextId(appointmentId, 'reminder', minutes, start), kind: 'reminder', minutesBefore: minutes, dueAt: new Date(due).toISOString() })
    }
  }
  return planned
}

export function evolveAppointmentTexts(state: AppointmentTextsState, event: TextEvent): AppointmentTextsState {
  switch (event.type) {
    case 'AppointmentTextsScheduled': {
      const { appointmentId, start } = event.data
      const plan = planKey(start, event.data.planFor)
      const added = Object.fromEntries(event.data.texts.map((text) => [text.textId, { ...text, appointmentId, start, plan, status: 'planned' as const, decidedAt: null }]))
      return { appointmentTexts: { ...state.appointmentTexts, ...added }, appointmentPlans: { ...state.appointmentPlans, [appointmentId]: plan } }
    }
    case 'AppointmentTextDeferred':
      return withText(state, event.data.textId, { dueAt: event.data.until })
    case 'AppointmentTextSkipped':
      return withText(state, event.data.textId, { status: 'skipped' })
    case 'TextDecided':
      return event.data.appointmentId === undefined ? state : withText(state, event.data.textId, { status: 'decided', decidedAt: event.data.at })
    default:
      return state
  }
}

function withText(state: AppointmentTextsState, textId: string, change: Partial<AppointmentTextRecord>): AppointmentTextsState {
  const text = state.appointmentTexts[textId]
  return text === undefined ? state : { ...state, appointmentTexts: { ...state.appointmentTexts, [textId]: { ...text, ...change } } }
}

export function decideAppointmentTexts<S extends AppointmentTextsLead>(command: AppointmentTextCommand, lead: S, now: Date, ports: TextsSlicePorts<S>): TextEvent[] {
  if (!lead.exists || !lead.fields) throw new DomainError('lead_not_found', 'lead not found')
  return command.type === 'ScheduleAppointmentTexts' ? schedule(command, lead, now, ports) : decideDue(command, lead, now, ports)
}

function schedule<S extends AppointmentTextsLead>(command: Extract<AppointmentTextCommand, { type: 'ScheduleAppointmentTexts' }>, lead: S, now: Date, ports: TextsSlicePorts<S>): TextEvent[] {
  const appointment = lead.appointments.appointments[command.appointmentId]
  if (appointment === undefined) throw new DomainError('appointment_not_found', `no appointment ${command.appointmentId} on this lead`)
  // Cancelled or marked since, or planned for this start already (a redelivery, another node): nothing more.
  if (appointment.status !== 'booked' || lead.texts.appointmentPlans[appointment.appointmentId] === currentPlanKey(appointment)) return []
  // Moved back to a start planned before: the new plan's ids follow the old ones', so no text id is decided twice.
  const texts = planAppointmentTexts(command.settings.appointmentTexts, appointment.appointmentId, appointment.start, now).map((text) => {
    let textId = text.textId
    for (let n = 2; lead.texts.appointmentTexts[textId] !== undefined; n++) textId = `${text.textId}_${n}`
    return { ...text, textId }
  })
  const scheduled: TextEvent = { type: 'AppointmentTextsScheduled', data: { leadId: lead.leadId, appointmentId: appointment.appointmentId, start: appointment.start, planFor: appointment.changedAt ?? appointment.bookedAt, texts, at: now.toISOString() } }
  const confirmation = texts.find((text) => text.kind === 'confirmation')
  if (confirmation === undefined) return [scheduled]
  // The confirmation is due at once: decided in the same append when it may go, else made to wait or skipped.
  const after = ports.evolve(lead, scheduled)
  return [scheduled, ...decideDue({ type: 'DecideAppointmentText', settings: command.settings, business: command.business, textId: confirmation.textId }, after, now, ports)]
}

const ENDED: Readonly<Record<Exclude<AppointmentRecord['status'], 'booked'>, string>> = {
  cancelled: 'the appointment was cancelled', attended: 'the appointment was marked attended', no_show: 'the appointment was marked a no-show',
}

function decideDue<S extends AppointmentTextsLead>(command: Extract<AppointmentTextCommand, { type: 'DecideAppointmentText' }>, lead: S, now: Date, ports: TextsSlicePorts<S>): TextEvent[] {
  const text = lead.texts.appointmentTexts[command.textId]
  // Decided or skipped before: a repeat decides nothing twice.
  if (text === undefined || text.status !== 'planned') return []
  const at = now.toISOString()
  const skipped = (reason: string, message: string): TextEvent[] => [
    { type: 'AppointmentTextSkipped', data: { appointmentId: text.appointmentId, textId: text.textId, kind: text.kind, reason, message, at } },
  ]
  const appointment = lead.appointments.appointments[text.appointmentId]
  if (appointment === undefined) return skipped('appointment_not_found', 'the appointment is not on this lead')
  if (appointment.status !== 'booked') return skipped(`appointment_${appointment.status}`, ENDED[appointment.status])
  if (currentPlanKey(appointment) !== text.plan) return skipped('appointment_moved', `the appointment moved (now at ${appointment.start}): its texts are planned again`)
  const startMs = Date.parse(appointment.start)
  if (now.getTime() >= startMs) return skipped('appointment_started', 'the appointment has begun')
  const settings = command.settings
  if (text.kind === 'confirmation' && !settings.appointmentTexts.confirmation) return skipped('confirmation_off', 'the account turned appointment confirmations off')
  if (text.kind === 'reminder' && !settings.appointmentTexts.remindersMinutesBefore.includes(text.minutesBefore ?? -1)) {
    return skipped('reminder_off', `the account no longer sends a reminder ${text.minutesBefore} minutes before`)
  }
  const inTime = stillInTime(text, lead)
  const late = inTime(now.getTime())
  if (late !== null) return skipped(late.reason, late.message)

  const check = ports.check(settings, lead, now)
  if (!check.allowed) {
    const opens = check.nextAllowedAt === null ? null : Date.parse(check.nextAllowedAt)
    if (opens !== null && opens > now.getTime() && opens < startMs && inTime(opens) === null) {
      return [{ type: 'AppointmentTextDeferred', data: { appointmentId: text.appointmentId, textId: text.textId, kind: text.kind, until: new Date(opens).toISOString(), reason: check.reason as string, message: check.message, at } }]
    }
    const tooLate = opens === null ? '' : ' (the window opens too late for it)'
    return skipped(check.reason as string, `${check.message}${tooLate}`)
  }
  const body = appointmentTextBody({
    kind: text.kind, typeName: appointment.typeName, business: command.business, number: settings.callerId, start: appointment.start, zone: zoneOf(appointment, lead, settings),
  }, now)
  try {
    return ports.decideText(settings, lead, { textId: text.textId, reason: text.kind === 'confirmation' ? 'appointment_confirmation' : 'appointment_reminder', body, appointmentId: text.appointmentId }, now)
  } catch (error) {
    if (!(error instanceof DomainError)) throw error
    return skipped(error.code, error.message)
  }
}

/**
 * Whether a late reminder still says something at moment `ms`: more time remains than the next
 * shorter reminder's offset, and the confirmation did not go out just before. Null when it does.
 */
function stillInTime(text: AppointmentTextRecord, lead: AppointmentTextsLead): (ms: number) => { reason: string; message: string } | null {
  const siblings = Object.values(lead.texts.appointmentTexts).filter((t) => t.appointmentId === text.appointmentId && t.plan === text.plan)
  // A shorter reminder that was skipped says nothing: it does not stand in for this one.
  const shorter = siblings.filter((t) => t.kind === 'reminder' && t.status !== 'skipped' && (t.minutesBefore ?? 0) < (text.minutesBefore ?? 0)).map((t) => t.minutesBefore ?? 0)
  const next = shorter.length === 0 ? 0 : Math.max(...shorter)
  const confirmedAt = siblings.find((t) => t.kind === 'confirmation' && t.decidedAt !== null)?.decidedAt ?? null
  return (ms) => {
    if (text.kind !== 'reminder') return null
    if (Date.parse(text.start) - ms <= next * MINUTE) return { reason: 'too_late', message: `${next} minutes or less remain: the ${next}-minute reminder says the same` }
    // The confirmation stands in for a reminder that would follow it within minutes (when it waited for the window).
    if (confirmedAt !== null && ms - Date.parse(confirmedAt) < MIN_REMINDER_MINUTES * MINUTE) {
      return { reason: 'just_confirmed', message: `the confirmation went out less than ${MIN_REMINDER_MINUTES} minutes before` }
    }
    return null
  }
}

/** The lead's zone: the one the booking recorded, else their state's or number's, else the account's. */
function zoneOf(appointment: AppointmentRecord, lead: AppointmentTextsLead, settings: AccountSettings): string {
  return appointment.leadZone ?? leadTimeZone({ phone: lead.fields?.phone, state: lead.fields?.state })?.zone ?? settings.timeZone
}
