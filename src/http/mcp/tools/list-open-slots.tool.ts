/** `list_open_slots` (read, issue #45): the times a lead can book an appointment type, in the account's zone and the lead's. */
import { z } from 'zod'
import { MAX_RANGE_DAYS } from '../../../domain/appointments/open-slots.ts'
import { slotAnswer, zoneOf } from '../../../commands/appointments.ts'
import { leadDecider } from '../../../domain/lead/lead.decider.ts'
import { DomainError } from '../../../domain/shared/decider.ts'
import { phoneArgument } from '../lead-view.ts'
import { leadPhoneOf, slotOutput } from '../appointment-view.ts'
import { defineTool } from '../tool.ts'
import { leadStream } from '../../../domain/lead/lead.events.ts'

const DEFAULT_DAYS = 7
const DAY_MS = 86_400_000

const typeOutput = z.object({
  id: z.string(),
  name: z.string(),
  duration_minutes: z.number().int(),
  buffer_minutes: z.number().int(),
  bookable_hours: z.string().nullable().describe("Calling-hours syntax in the account's zone; null: the account's business hours"),
  minimum_notice_minutes: z.number().int(),
  max_per_day: z.number().int().nullable(),
})

export const tool = defineTool({
  name: 'list_open_slots',
  title: 'List open appointment slots',
  summary: "List the times a lead can book, in the account's and the lead's zone",
  description: `Lists the open slots of one of the account's appointment types (a roof estimate, a 15-minute call) between from and to (default: now to ${DEFAULT_DAYS} days on; at most ${MAX_RANGE_DAYS} days): the type's bookable hours in the account's zone, less the busy times of the account's own calendar (the owner's events block slots, with the type's buffer around them), less starts sooner than the type's minimum notice, less days that already hold the type's most a day. Each slot has start and end (UTC) and its start on the account's clock (account_local) and on the lead's (lead_local: give phone or lead_id to have it; the lead's zone comes from their state, else their number). Without appointment_type_id it lists the account's appointment types and no slots, so call it once to learn them. Offer the lead two or three slots, then book one with book_appointment. Refused with error.data.code: appointment_type_not_found (error.data.types lists them), calendar_not_connected, invalid_range, range_too_long, calendar_unauthorized or calendar_unreachable.`,
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: {
    appointment_type_id: z.string().min(1).max(64).optional().describe('The appointment type (its id, from this tool called without it). Leave it out to list the types.'),
    from: z.iso.datetime({ offset: true }).optional().describe('Slots starting at or after this instant (ISO 8601 with a zone or offset); default now'),
    to: z.iso.datetime({ offset: true }).optional().describe(`Slots starting before this instant; default ${DEFAULT_DAYS} days after from, at most ${MAX_RANGE_DAYS} days after it`),
    phone: phoneArgument.optional().describe("A lead's phone, to give each slot on the lead's clock too (lead_local)"),
    lead_id: z.string().min(1).max(64).optional().describe('Or the lead id (ld_…)'),
  },
  output: z.object({
    appointment_types: z.array(typeOutput).describe("The account's appointment types"),
    appointment_type_id: z.string().nullable(),
    account_zone: z.string(),
    lead_zone: z.string().nullable(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    slots: z.array(slotOutput).describe('Open slots by start; empty without appointment_type_id'),
  }),
  async run(args, context) {
    const { accountId } = context.account
    const services = context.services
    const setup = await services.calendars.setup(accountId)
    const appointmentTypes = setup.types.map((t) => ({
      id: t.id, name: t.name, duration_minutes: t.durationMinutes, buffer_minutes: t.bufferMinutes, bookable_hours: t.bookableHours, minimum_notice_minutes: t.minimumNoticeMinutes, max_per_day: t.maxPerDay,
    }))
    const accountZone = context.account.settings.timeZone
    let leadZone: string | null = null
    if (args.phone !== undefined || args.lead_id !== undefined) {
      const last10 = leadPhoneOf(context, args)
      const { state } = await services.commands.load(leadStream(accountId, last10), leadDecider)
      if (!state.exists) throw new DomainError('lead_not_found', 'no lead with that phone number or id in this account')
      leadZone = zoneOf(state)
    }
    if (args.appointment_type_id === undefined) {
      return { appointment_types: appointmentTypes, appointment_type_id: null, account_zone: accountZone, lead_zone: leadZone, from: null, to: null, slots: [] }
    }
    const from = args.from ?? services.clock().toISOString()
    const to = args.to ?? new Date(Date.parse(from) + DEFAULT_DAYS * DAY_MS).toISOString()
    const answer = await services.appointments.listOpenSlots({ accountId, typeId: args.appointment_type_id, from, to, leadZone })
    return {
      appointment_types: appointmentTypes, appointment_type_id: answer.type.id, account_zone: answer.accountZone, lead_zone: leadZone,
      from: new Date(Date.parse(from)).toISOString(), to: new Date(Date.parse(to)).toISOString(), slots: answer.slots.map(slotAnswer),
    }
  },
})
