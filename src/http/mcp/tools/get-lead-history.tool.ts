/** `get_lead_history` (read): one lead's whole history, as its events, oldest first. */
import { z } from 'zod'
import { upcast } from '../../../domain/upcasters.ts'
import { leadNotFound, leadReference, leadStreamOf, requireOneLeadReference } from '../lead-view.ts'
import { defineTool } from '../tool.ts'

const MAX_EVENTS = 1000

export const tool = defineTool({
  name: 'get_lead_history',
  title: 'Lead history',
  description:
    "Everything that happened to one lead of this account, oldest first: each submission and update, list changes, do-not-call changes, call decisions and outcomes, follow-ups, pay-links and how each payment settled. Each entry has the event type, the time, who or what caused it (actor) and its data. Recordings and transcripts are never included. Name the lead by phone (any formatting) or lead_id.",
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: leadReference,
  check: requireOneLeadReference,
  output: z.object({
    lead_id: z.string(),
    events: z.array(
      z.object({
        revision: z.number().int().describe('0 for the first event, then +1'),
        type: z.string(),
        time: z.string().describe('ISO UTC time the event was recorded'),
        actor: z.object({ kind: z.string(), id: z.string() }).describe('webhook_token, api_key, operator, process, carrier, …'),
        data: z.record(z.string(), z.unknown()),
      }),
    ),
    truncated: z.boolean().describe(`True when the lead has more than ${MAX_EVENTS} events; the first ${MAX_EVENTS} are returned`),
  }),
  async run(args, context) {
    const events = (await context.services.store.readStream(leadStreamOf(context, args), { limit: MAX_EVENTS + 1 })).map(upcast)
    const first = events[0]
    if (!first) throw leadNotFound()
    return {
      lead_id: (first.data as { leadId: string }).leadId,
      events: events.slice(0, MAX_EVENTS).map((event) => ({
        revision: event.revision,
        type: event.type,
        time: event.recordedAt,
        actor: { kind: event.metadata.actor.kind, id: event.metadata.actor.id },
        data: event.data as Record<string, unknown>,
      })),
      truncated: events.length > MAX_EVENTS,
    }
  },
})
