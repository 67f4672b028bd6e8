/**
 * Appointments (issue #45): the open slots of an appointment type, and booking, moving and calling off
 * a lead's appointment in the account's calendar. The calendar work is book-appointment.command.ts's
 * (claims, then the event under a stable UID); this records the outcome on the lead's stream, keyed by
 * the appointment id, which an idempotency key fixes (the same key, the same appointment, whatever retries).
 */
import { DateTime } from 'luxon'
import type { AccountState } from '../domain/account/account.decider.ts'
import { businessHoursOf } from '../domain/account/account-settings.ts'
import type { AppointmentType } from '../domain/appointments/appointment-type.ts'
import { dayClaimDecider } from '../domain/appointments/day-claim.decider.ts'
import { dayClaimStream } from '../domain/appointments/day-claim.events.ts'
import { MAX_RANGE_DAYS, dayOf, openSlots, type OpenSlot } from '../domain/appointments/open-slots.ts'
import { slotClaimDecider } from '../domain/appointments/slot-claim.decider.ts'
import { slotClaimStream } from '../domain/appointments/slot-claim.events.ts'
import { leadTimeZone } from '../domain/dialing/lead-time-zone.ts'
import type { Actor } from '../domain/event.ts'
import type { AppointmentRecord } from '../domain/lead/appointments/appointments.decider.ts'
import type { AppointmentActor } from '../domain/lead/appointments/appointments.events.ts'
import { leadDecider, type LeadState } from '../domain/lead/lead.decider.ts'
import { leadStream } from '../domain/lead/lead.events.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { newId } from '../domain/shared/ids.ts'
import { sha256Hex } from '../domain/shared/sha256.ts'
import type { CommandHandler } from '../eventstore/command-handler.ts'
import type { CalendarConnection } from '../integrations/calendar/calendar.port.ts'
import type { Accounts } from './accounts.ts'
import { bookAppointment, cancelAppointment, moveAppointment, withoutSpan, type BookAppointmentDeps } from './book-appointment.command.ts'
import { calendarRefusal, type Calendars } from './calendars.ts'

export interface OpenSlotsAnswer {
  readonly type: AppointmentType
  readonly accountZone: string
  readonly slots: OpenSlot[]
}

/** An appointment as the commands answer it. */
export interface AppointmentView {
  readonly appointmentId: string
  readonly leadId: string
  readonly appointmentTypeId: string
  readonly typeName: string
  readonly status: AppointmentRecord['status']
  readonly start: string
  readonly end: string
  readonly accountZone: string
  readonly accountTime: string
  readonly leadZone: string | null
  readonly leadTime: string | null
  readonly provider: string
  readonly calendarId: string
  readonly eventUid: string
  readonly dryRun: boolean
  /** True when the answer is an earlier booking under the same appointment id (a retry), nothing done now. */
  readonly alreadyDone: boolean
  /** Where the appointment was before a move; null otherwise. */
  readonly previousStart: string | null
  /** A cancellation's calendar outcome: `deleted`, `already_gone` (someone deleted it there), `other_calendar` (not in the connected calendar); null otherwise. */
  readonly calendarEvent: 'deleted' | 'already_gone' | 'other_calendar' | 'would_delete' | null
}

interface WriteInput {
  readonly accountId: string
  readonly phoneLast10: string
  readonly by: AppointmentActor
  readonly actor: Actor
  readonly idempotencyKey: string | null
  readonly dryRun: boolean
}

export interface AppointmentsDeps {
  readonly commands: CommandHandler
  readonly accounts: Accounts
  readonly calendars: Pick<Calendars, 'open'>
  readonly clock: () => Date
  /** Where the console is (LEADLINE_PUBLIC_URL): the event links to the lead's page there. */
  readonly publicUrl: string
}

/** How many next slots a refused booking offers. */
const NEXT_SLOTS = 3
const DAY_MS = 86_400_000

/** The appointment id an idempotency key fixes within an account: the same key, the same booking, on any node. */
export function appointmentIdFor(accountId: string, idempotencyKey: string | null): string {
  return idempotencyKey === null ? newId('apt') : `apt_${sha256Hex(`${accountId}\n${idempotencyKey}`).slice(0, 26)}`
}

export class Appointments {
  constructor(private readonly deps: AppointmentsDeps) {}

  /** The type's open slots in [from, to): its hours less the calendar's busy times, too-soon starts and full days. */
  async listOpenSlots(input: { accountId: string; typeId: string; from: string; to: string; leadZone: string | null }): Promise<OpenSlotsAnswer> {
    const { account, type, calendar } = await this.typeContext(input.accountId, input.typeId)
    return { type, accountZone: account.settings.timeZone, slots: await this.slots(account, type, calendar, input.from, input.to, input.leadZone) }
  }

  async book(input: WriteInput & { typeId: string; start: string }): Promise<AppointmentView> {
    // The lead first: a lead of another account is lead_not_found, whatever that account's calendar.
    const lead = await this.lead(input.accountId, input.phoneLast10)
    const { account, type, calendar } = await this.typeContext(input.accountId, input.typeId)
    const appointmentId = appointmentIdFor(input.accountId, input.idempotencyKey)
    const earlier = lead.appointments.appointments[appointmentId]
    if (earlier !== undefined) return this.view(account, lead, earlier, { alreadyDone: true })
    const leadZone = zoneOf(lead)
    const booking = { ...this.bookingInput(account, lead, type, appointmentId, input.start, input.actor) }
    const deps = this.calendarDeps(calendar)
    if (input.dryRun) {
      await this.refuseTaken(input.accountId, account, type, calendar, leadZone, booking.start, appointmentId)
      const slot = await this.offered(account, type, calendar, booking.start, leadZone)
      if (slot === null) throw await this.unavailable(account, type, calendar, leadZone, booking.start, 'slot_unavailable')
      return this.draftView(account, lead, type, appointmentId, slot.start, slot.end, input.by)
    }
    let booked
    try {
      booked = await bookAppointment(deps, booking)
    } catch (error) {
      throw await this.withNextSlots(error, account, type, calendar, leadZone, booking.start)
    }
    const connection = account.calendar!
    const result = await this.deps.commands.handle(leadStream(input.accountId, input.phoneLast10), leadDecider, {
      type: 'RecordAppointmentBooked', appointmentId, appointmentTypeId: type.id, typeName: type.name, start: booked.start, end: booked.end,
      provider: connection.provider, calendarId: type.calendarId, eventUid: booked.eventUid, leadZone, by: input.by, idempotencyKey: input.idempotencyKey,
    }, { actor: input.actor, correlationId: `booking-${appointmentId}` })
    return this.view(account, result.state, result.state.appointments.appointments[appointmentId]!, {})
  }

  async reschedule(input: WriteInput & { appointmentId: string; start: string }): Promise<AppointmentView> {
    const { account, lead, record } = await this.appointment(input.accountId, input.phoneLast10, input.appointmentId)
    if (record.status !== 'booked') throw notBooked(record)
    const { type, calendar } = await this.typeContext(input.accountId, record.appointmentTypeId, account)
    this.requireSameCalendar(account, record)
    const booking = this.bookingInput(account, lead, type, record.appointmentId, input.start, input.actor)
    if (Date.parse(booking.start) === Date.parse(record.start)) return this.view(account, lead, record, { alreadyDone: true })
    const from = { start: record.start, end: record.end }
    const leadZone = record.leadZone ?? zoneOf(lead)
    if (input.dryRun) {
      await this.refuseTaken(input.accountId, account, type, calendar, leadZone, booking.start, record.appointmentId)
      const slot = await this.offered(account, type, calendar, booking.start, leadZone, from)
      if (slot === null) throw await this.unavailable(account, type, calendar, leadZone, booking.start, 'slot_unavailable')
      return { ...this.view(account, lead, record, { dryRun: true }), start: slot.start, end: slot.end, accountTime: slot.accountTime, leadTime: slot.leadTime, previousStart: record.start }
    }
    try {
      await moveAppointment(this.calendarDeps(calendar), { ...booking, from })
    } catch (error) {
      throw await this.withNextSlots(error, account, type, calendar, leadZone, booking.start)
    }
    const moved = await this.deps.commands.handle(leadStream(input.accountId, input.phoneLast10), leadDecider, {
      type: 'RecordAppointmentRescheduled', appointmentId: record.appointmentId, start: booking.start, end: new Date(Date.parse(booking.start) + type.durationMinutes * 60_000).toISOString(), by: input.by,
    }, { actor: input.actor, correlationId: `booking-${record.appointmentId}` })
    return { ...this.view(account, moved.state, moved.state.appointments.appointments[record.appointmentId]!, {}), previousStart: record.start }
  }

  async cancel(input: WriteInput & { appointmentId: string; reason: string | null }): Promise<AppointmentView> {
    const { account, lead, record } = await this.appointment(input.accountId, input.phoneLast10, input.appointmentId)
    if (record.status === 'cancelled') return this.view(account, lead, record, { alreadyDone: true })
    if (record.status !== 'booked') throw notBooked(record)
    const connected = account.calendar !== null && account.calendar.provider === record.provider && account.calendar.calendars.some((c) => c.id === record.calendarId)
    if (input.dryRun) return { ...this.view(account, lead, record, { dryRun: true }), status: 'cancelled', calendarEvent: connected ? 'would_delete' : 'other_calendar' }
    const calendar = connected ? await this.deps.calendars.open(input.accountId) : null
    let calendarEvent: AppointmentView['calendarEvent']
    try {
      calendarEvent = await cancelAppointment({ handler: this.deps.commands, calendar, clock: this.deps.clock }, {
        accountId: input.accountId, accountZone: account.settings.timeZone, bookingId: record.appointmentId, type: { id: record.appointmentTypeId, calendarId: record.calendarId },
        start: record.start, actor: input.actor,
      })
    } catch (error) {
      throw calendarRefusal(error)
    }
    const result = await this.deps.commands.handle(leadStream(input.accountId, input.phoneLast10), leadDecider, {
      type: 'RecordAppointmentCancelled', appointmentId: record.appointmentId, by: input.by, reason: input.reason, settings: account.settings,
    }, { actor: input.actor, correlationId: `booking-${record.appointmentId}` })
    return { ...this.view(account, result.state, result.state.appointments.appointments[record.appointmentId]!, {}), calendarEvent }
  }

  private async slots(account: AccountState, type: AppointmentType, calendar: CalendarConnection, from: string, to: string, leadZone: string | null, own: { start: string; end: string } | null = null): Promise<OpenSlot[]> {
    const accountZone = account.settings.timeZone
    const range = checkedRange(from, to)
    const buffer = type.bufferMinutes * 60_000
    let busy
    try {
      busy = await calendar.busy(type.calendarId, { start: new Date(range.from - buffer).toISOString(), end: new Date(range.to + buffer).toISOString() }, accountZone)
    } catch (error) {
      throw calendarRefusal(error)
    }
    const fullDays = type.maxPerDay === null ? [] : await this.fullDays(account.accountId, type, accountZone, range.from, range.to)
    return openSlots({ type, accountZone, accountHours: businessHoursOf(account.settings), leadZone, from, to, busy: withoutSpan(busy, own), fullDays }, this.deps.clock())
  }

  /** The days in [from, to) on the account's clock whose places for `type` are all taken. */
  private async fullDays(accountId: string, type: AppointmentType, zone: string, from: number, to: number): Promise<string[]> {
    const days: string[] = []
    for (let day = DateTime.fromMillis(from, { zone }).startOf('day'); day.toMillis() < to; day = day.plus({ days: 1 })) days.push(day.toISODate()!)
    const held = await Promise.all(days.map(async (day) => (await this.deps.commands.load(dayClaimStream(accountId, type.id, day), dayClaimDecider)).state.held.length))
    return days.filter((_, i) => held[i]! >= type.maxPerDay!)
  }

  /** The slot at `start` when it is offered now, else null. */
  private async offered(account: AccountState, type: AppointmentType, calendar: CalendarConnection, start: string, leadZone: string | null, own: { start: string; end: string } | null = null): Promise<OpenSlot | null> {
    const slots = await this.slots(account, type, calendar, start, new Date(Date.parse(start) + 1).toISOString(), leadZone, own)
    return slots.find((s) => s.start === start) ?? null
  }

  /** A dry run's check of the claim a real booking would race for: a slot another booking holds is `slot_taken`. */
  private async refuseTaken(accountId: string, account: AccountState, type: AppointmentType, calendar: CalendarConnection, leadZone: string | null, start: string, bookingId: string): Promise<void> {
    const { state } = await this.deps.commands.load(slotClaimStream(accountId, start), slotClaimDecider)
    if (state.bookingId !== null && state.bookingId !== bookingId) throw await this.unavailable(account, type, calendar, leadZone, start, 'slot_taken')
    if (type.maxPerDay === null) return
    const day = dayOf(Date.parse(start), account.settings.timeZone)
    const { held } = (await this.deps.commands.load(dayClaimStream(accountId, type.id, day), dayClaimDecider)).state
    if (!held.includes(bookingId) && held.length >= type.maxPerDay) {
      const full = new DomainError('day_full', `${day} already has ${held.length} of ${type.id} (at most ${type.maxPerDay} a day): offer another day`, { day, maxPerDay: type.maxPerDay })
      throw await this.withNextSlots(full, account, type, calendar, leadZone, start)
    }
  }

  /** A refusal of `start` that offers the next open slots after it (error.data.next_slots). */
  private async unavailable(account: AccountState, type: AppointmentType, calendar: CalendarConnection, leadZone: string | null, start: string, code: 'slot_taken' | 'slot_unavailable'): Promise<DomainError> {
    const message = code === 'slot_taken' ? `the slot at ${start} was just booked by someone else: offer the next one` : `${start} is not an open slot of ${type.name}: offer one list_open_slots gives`
    return this.withNextSlots(new DomainError(code, message, { start }), account, type, calendar, leadZone, start) as Promise<DomainError>
  }

  private async withNextSlots(error: unknown, account: AccountState, type: AppointmentType, calendar: CalendarConnection, leadZone: string | null, start: string): Promise<unknown> {
    if (!(error instanceof DomainError) || !['slot_taken', 'slot_unavailable', 'day_full'].includes(error.code)) return calendarRefusal(error)
    const from = Math.max(Date.parse(start), this.deps.clock().getTime())
    const next = (await this.slots(account, type, calendar, new Date(from).toISOString(), new Date(from + 14 * DAY_MS).toISOString(), leadZone).catch(() => []))
      .filter((s) => s.start !== new Date(Date.parse(start)).toISOString())
      .slice(0, NEXT_SLOTS)
    return new DomainError(error.code, error.message, { ...error.details, nextSlots: next.map(slotAnswer) })
  }

  private async typeContext(accountId: string, typeId: string, known?: AccountState): Promise<{ account: AccountState; type: AppointmentType; calendar: CalendarConnection }> {
    const account = known ?? (await this.deps.accounts.get(accountId))
    if (!account) throw new DomainError('account_not_found', 'account not found')
    const type = account.appointmentTypes.get(typeId)
    if (type === undefined) {
      const types = [...account.appointmentTypes.values()].map((t) => ({ id: t.id, name: t.name, duration_minutes: t.durationMinutes }))
      throw new DomainError('appointment_type_not_found', `no appointment type ${JSON.stringify(typeId)} in this account${types.length === 0 ? ' (it has none yet: the owner adds them in Setup → Calendar)' : `: one of ${types.map((t) => t.id).join(', ')}`}`, { typeId, types })
    }
    if (account.calendar === null) throw new DomainError('calendar_not_connected', 'this account has no calendar connected: the owner connects one in Setup → Calendar or with `leadline calendar connect`')
    if (!account.calendar.calendars.some((c) => c.id === type.calendarId)) {
      throw new DomainError('calendar_not_found', `appointment type ${type.id} goes to a calendar the connection does not have: the owner saves the type again with one of its calendars`, { typeId: type.id, calendarId: type.calendarId })
    }
    const calendar = await this.deps.calendars.open(accountId)
    if (calendar === null) throw new DomainError('calendar_not_connected', 'this account has no calendar connected')
    return { account, type, calendar }
  }

  private requireSameCalendar(account: AccountState, record: AppointmentRecord): void {
    if (account.calendar?.provider !== record.provider) {
      throw new DomainError('calendar_changed', `appointment ${record.appointmentId} is in a ${record.provider} calendar the account no longer has connected: cancel it and book again`, { appointmentId: record.appointmentId })
    }
  }

  private async lead(accountId: string, phoneLast10: string): Promise<LeadState> {
    const { state } = await this.deps.commands.load(leadStream(accountId, phoneLast10), leadDecider)
    if (!state.exists) throw new DomainError('lead_not_found', 'no lead with that phone number or id in this account')
    return state
  }

  private async appointment(accountId: string, phoneLast10: string, appointmentId: string): Promise<{ account: AccountState; lead: LeadState; record: AppointmentRecord }> {
    const account = await this.deps.accounts.get(accountId)
    if (!account) throw new DomainError('account_not_found', 'account not found')
    const lead = await this.lead(accountId, phoneLast10)
    const record = lead.appointments.appointments[appointmentId]
    if (record === undefined) throw new DomainError('appointment_not_found', `this lead has no appointment ${appointmentId}`, { appointmentId })
    return { account, lead, record }
  }

  private bookingInput(account: AccountState, lead: LeadState, type: AppointmentType, bookingId: string, start: string, actor: Actor) {
    const fields = lead.fields
    const name = fields?.fullName ?? ([fields?.firstName, fields?.lastName].filter(Boolean).join(' ') || (fields?.phone ?? 'Lead'))
    const parsed = Date.parse(start)
    if (Number.isNaN(parsed) || !/(Z|[+-]\d{2}:?\d{2})$/i.test(start)) throw new DomainError('invalid_range', `start must be an ISO 8601 instant with a zone or offset: ${JSON.stringify(start)}`)
    return {
      accountId: account.accountId, accountZone: account.settings.timeZone, accountHours: businessHoursOf(account.settings), bookingId, type, start: new Date(parsed).toISOString(), actor,
      lead: { name, phone: fields?.phone ?? '', source: fields?.source ?? null, link: `${this.deps.publicUrl}/app/leads/${encodeURIComponent(lead.leadId)}`, zone: zoneOf(lead) ?? account.settings.timeZone },
    }
  }

  private calendarDeps(calendar: CalendarConnection): BookAppointmentDeps {
    return { handler: this.deps.commands, calendar, clock: this.deps.clock }
  }

  private view(account: AccountState, lead: LeadState, record: AppointmentRecord, flags: { alreadyDone?: boolean; dryRun?: boolean }): AppointmentView {
    const accountZone = account.settings.timeZone
    return {
      appointmentId: record.appointmentId, leadId: lead.leadId, appointmentTypeId: record.appointmentTypeId, typeName: record.typeName, status: record.status,
      start: record.start, end: record.end, accountZone, accountTime: local(record.start, accountZone)!, leadZone: record.leadZone, leadTime: local(record.start, record.leadZone),
      provider: record.provider, calendarId: record.calendarId, eventUid: record.eventUid, dryRun: flags.dryRun === true, alreadyDone: flags.alreadyDone === true, previousStart: null, calendarEvent: null,
    }
  }

  private draftView(account: AccountState, lead: LeadState, type: AppointmentType, appointmentId: string, start: string, end: string, by: AppointmentActor): AppointmentView {
    const record: AppointmentRecord = {
      appointmentId, appointmentTypeId: type.id, typeName: type.name, start, end, provider: account.calendar!.provider, calendarId: type.calendarId, eventUid: `leadline-${appointmentId}`,
      leadZone: zoneOf(lead), status: 'booked', bookedAt: this.deps.clock().toISOString(), bookedBy: by, changedAt: null,
    }
    return this.view(account, lead, record, { dryRun: true })
  }
}

function notBooked(record: AppointmentRecord): DomainError {
  return new DomainError('appointment_not_booked', `appointment ${record.appointmentId} is ${record.status.replace('_', '-')}`, { appointmentId: record.appointmentId, status: record.status })
}

/** The lead's zone: its state's, else its number's; null when neither tells. */
export function zoneOf(lead: LeadState): string | null {
  const fields = lead.fields
  return leadTimeZone({ state: fields?.state, phone: fields?.phone })?.zone ?? null
}

function local(instant: string, zone: string | null): string | null {
  return zone === null ? null : DateTime.fromISO(instant, { zone }).toISO()
}

function checkedRange(from: string, to: string): { from: number; to: number } {
  const range = { from: Date.parse(from), to: Date.parse(to) }
  if (Number.isNaN(range.from) || Number.isNaN(range.to)) throw new DomainError('invalid_range', 'from and to must be ISO 8601 instants with a zone or offset')
  if (range.to - range.from > MAX_RANGE_DAYS * DAY_MS) throw new DomainError('range_too_long', `a range may cover at most ${MAX_RANGE_DAYS} days`)
  return range
}

/** A slot as tools show it (snake_case): UTC instants, and the start on the account's and the lead's clocks. */
export function slotAnswer(slot: OpenSlot): { start: string; end: string; account_local: string; lead_local: string | null } {
  return { start: slot.start, end: slot.end, account_local: slot.accountTime, lead_local: slot.leadTime }
}
