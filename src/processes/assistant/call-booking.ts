/**
 * The assistant's booking tools in one call (docs/assistant.md "Booking appointments"): open times of
 * the brief's appointment type, said on the lead's clock, and the booking through the same command
 * agents use (`appointments.book`, by `assistant`). Only times Leadline offered in this call can be
 * booked; the idempotency key is the call's decision and the start, so a model repeating the tool books
 * once. Result lines hold times only: never a calendar, a lead or an error's inner words.
 */
import { DateTime } from 'luxon'
import type { Logger } from 'pino'
import type { AppointmentType } from '../../domain/appointments/appointment-type.ts'
import type { OpenSlot } from '../../domain/appointments/open-slots.ts'
import type { CommandContext } from '../../eventstore/command-handler.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { Appointments } from '../../commands/appointments.ts'

/** How many times one answer offers: the prompt asks the model to offer two or three. */
const OFFER = 3
/** Offered times at least this far apart when there is a choice, so the lead has a real choice. */
const SPREAD_MS = 60 * 60_000
/** How far ahead the first open times are looked for (the day asked for, or after the time asked for). */
const SEARCH_DAYS = 7
/** A day further ahead than this is refused: the lead's interest does not keep that long. */
export const MAX_BOOKING_DAYS = 60
const DAY_MS = 86_400_000
const REFUSED_CODES = new Set(['slot_taken', 'day_full', 'slot_unavailable'])

export interface CallBookingContext {
  readonly accountId: string
  readonly phoneLast10: string
  readonly decisionId: string
  readonly type: AppointmentType
  /** The lead's zone (the account's when unknown): times are said on this clock. */
  readonly zone: string
}

export interface CallBookingDeps {
  readonly appointments: Pick<Appointments, 'listOpenSlots' | 'book'>
  readonly clock: () => Date
  readonly logger?: Logger
}

/** The idempotency key of the assistant's booking at `start` in the call `decisionId`: one appointment per time per call. */
export function assistantBookingKey(decisionId: string, start: string): string {
  return `assistant-${decisionId}-${new Date(Date.parse(start)).toISOString()}`
}

export class CallBooking {
  /** The starts (UTC ISO) offered to the lead in this call: only these can be booked. */
  private readonly offered = new Set<string>()
  private booked: { appointmentId: string; start: string } | null = null

  constructor(
    private readonly deps: CallBookingDeps,
    private readonly ctx: CallBookingContext,
    private readonly actor: CommandContext['actor'],
  ) {}

  /** The appointment booked in this call, or null. */
  get appointmentId(): string | null {
    return this.booked?.appointmentId ?? null
  }

  async find(args: { day?: string; after?: string }): Promise<string> {
    const now = this.deps.clock().getTime()
    const zone = this.ctx.zone
    let from = now
    let to = now + SEARCH_DAYS * DAY_MS
    if (args.day !== undefined) {
      const day = DateTime.fromISO(args.day, { zone })
      if (!day.isValid) return 'refused: day must be a real date such as 2026-03-12'
      to = day.plus({ days: 1 }).startOf('day').toMillis()
      if (to <= now) return 'refused: that day has passed: ask for another day'
      from = Math.max(day.startOf('day').toMillis(), now)
    } else if (args.after !== undefined) {
      const after = DateTime.fromISO(args.after, { zone })
      if (!after.isValid) return 'refused: after must be a real date or time'
      from = Math.max(after.toMillis(), now)
      to = from + SEARCH_DAYS * DAY_MS
    }
    if (from > now + MAX_BOOKING_DAYS * DAY_MS) return `refused: that is too far ahead: offer times within ${MAX_BOOKING_DAYS} days`
    const slots = await this.openSlots(from, to)
    if (slots === null) return 'refused: open times cannot be found just now: offer a callback instead'
    if (slots.length > 0) return `ok: ${this.offer(slots)}`
    // Nothing on the day (or in the week) asked for: the next open times after it, so the model has something to offer.
    const later = await this.openSlots(to, to + SEARCH_DAYS * DAY_MS)
    if (later === null || later.length === 0) return `refused: no open times in the next ${Math.round((to + SEARCH_DAYS * DAY_MS - now) / DAY_MS)} days: offer a callback instead`
    return `ok: none open then. next: ${this.offer(later)}`
  }

  async book(args: { start: string }): Promise<string> {
    const when = Date.parse(args.start)
    if (Number.isNaN(when)) return 'refused: start must be the ISO start find_appointment_slots gave, e.g. 2026-03-12T15:00:00Z'
    const start = new Date(when).toISOString()
    if (this.booked !== null && this.booked.start !== start) return `refused: this call already booked ${this.spoken(this.booked.start)}: say that time back; one appointment per call`
    if (!this.offered.has(start)) return 'refused: that time was not offered in this call: call find_appointment_slots and offer one of its times'
    try {
      const view = await this.deps.appointments.book({
        accountId: this.ctx.accountId, phoneLast10: this.ctx.phoneLast10, typeId: this.ctx.type.id, start, by: 'assistant', actor: this.actor,
        idempotencyKey: assistantBookingKey(this.ctx.decisionId, start), dryRun: false,
      })
      this.booked = { appointmentId: view.appointmentId, start: view.start }
      return `ok: booked ${this.spoken(view.start)}`
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      if (!REFUSED_CODES.has(error.code)) {
        this.deps.logger?.warn({ decisionId: this.ctx.decisionId, reason: error.code }, 'assistant: an appointment was not booked')
        return 'refused: the appointment cannot be booked just now: offer a callback instead'
      }
      this.offered.delete(start)
      const next = ((error.details?.nextSlots ?? []) as Array<{ start: string }>).map((s) => ({ start: s.start }))
      const why = error.code === 'slot_taken' ? 'that time was just taken' : error.code === 'day_full' ? 'that day is full' : 'that time is no longer open'
      return next.length === 0 ? `refused: ${why}: offer a callback instead` : `refused: ${why}. next: ${this.offer(next)}`
    }
  }

  private async openSlots(from: number, to: number): Promise<OpenSlot[] | null> {
    try {
      const answer = await this.deps.appointments.listOpenSlots({
        accountId: this.ctx.accountId, typeId: this.ctx.type.id, from: new Date(from).toISOString(), to: new Date(to).toISOString(), leadZone: this.ctx.zone,
      })
      return answer.slots
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      this.deps.logger?.warn({ decisionId: this.ctx.decisionId, reason: error.code }, 'assistant: open times could not be listed')
      return null
    }
  }

  /** Two or three of the slots, spread when there is a choice, remembered as offered; said as `Tue Mar 12 at 10:00 AM (2026-03-12T15:00:00Z)`. */
  private offer(slots: ReadonlyArray<{ start: string }>): string {
    const picked: string[] = []
    for (const slot of slots) {
      if (picked.length < OFFER && picked.every((p) => Math.abs(Date.parse(p) - Date.parse(slot.start)) >= SPREAD_MS)) picked.push(slot.start)
    }
    for (const slot of slots) if (picked.length < OFFER && !picked.includes(slot.start)) picked.push(slot.start)
    picked.sort((a, b) => Date.parse(a) - Date.parse(b))
    const starts = picked.map((s) => new Date(Date.parse(s)).toISOString())
    for (const start of starts) this.offered.add(start)
    return starts.map((s) => `${this.spoken(s)} (${s.replace('.000Z', 'Z')})`).join(', ')
  }

  private spoken(start: string): string {
    return DateTime.fromISO(start, { zone: this.ctx.zone }).toFormat("ccc LLL d 'at' h:mm a")
  }
}
