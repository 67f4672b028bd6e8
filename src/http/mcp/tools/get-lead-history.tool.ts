/** `get_lead_history` (read): one lead's history, as its events, newest first, a page at a time. */
import { z } from 'zod'
import { upcast } from '../../../domain/upcasters.ts'
import { summarise } from '../../../audit/event-summary.ts'
import { DomainError } from '../../../domain/shared/decider.ts'
import { openCursor, sealCursor } from '../../../domain/shared/opaque-cursor.ts'
import type { RecordedEvent } from '../../../domain/event.ts'
import { jsonBytes, PAGE_BYTES } from '../answer-budget.ts'
import { leadNotFound, leadReference, leadStreamOf, requireOneLeadReference } from '../lead-view.ts'
import { defineTool } from '../tool.ts'

export const DEFAULT_HISTORY_PAGE = 100
export const MAX_HISTORY_PAGE = 500
/** Events read from the log at a time while a page fills: a page cut by size never reads far past its end. */
const READ_CHUNK = 50

// A page's cursor is the revision of its oldest event, sealed for the lead's stream (and so for the account).
const cursorScope = (stream: string) => `lead-history\u0000${stream}`

function invalidCursor(): DomainError {
  return new DomainError('invalid_cursor', "invalid cursor: pass back the next_cursor of a previous page of this lead's history")
}

/** The revision just before the cursor's page ends, where the next page starts. */
function startOf(stream: string, cursor: string): number {
  const opened = openCursor(cursorScope(stream), cursor)
  const revision = opened === null ? Number.NaN : Number(opened)
  if (!Number.isSafeInteger(revision) || revision < 1 || String(revision) !== opened) throw invalidCursor()
  return revision - 1
}

function entryOf(event: RecordedEvent) {
  return {
    revision: event.revision,
    type: event.type,
    time: event.recordedAt,
    actor: { kind: event.metadata.actor.kind, id: event.metadata.actor.id },
    summary: summarise(event),
    data: event.data as Record<string, unknown>,
  }
}

export const tool = defineTool({
  name: 'get_lead_history',
  title: 'Lead history',
  summary: "One lead's events, newest first, a page at a time",
  description:
    `Everything that happened to one lead of this account, newest first, a page at a time: each submission and update, list changes, do-not-call changes, call decisions and outcomes, follow-ups, pay-links and how each payment settled. Each entry has the event type, the time, who or what caused it (actor), a one-line summary and its data; notes (add_note), edits (update_lead), callbacks (schedule_callback) and paused or resumed follow-up are events too. A page holds at most limit events (default ${DEFAULT_HISTORY_PAGE}) and about 512 KB; when older events remain, next_cursor fetches them (null once the first event is reached), and total_events says how many there are in all. Recordings and transcripts are never included. Name the lead by phone (any formatting) or lead_id.`,
  scope: 'read',
  heavy: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    ...leadReference,
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_HISTORY_PAGE)
      .default(DEFAULT_HISTORY_PAGE)
      .describe(`Events per page (1-${MAX_HISTORY_PAGE}, default ${DEFAULT_HISTORY_PAGE})`),
    cursor: z.string().min(1).max(200).optional().describe('next_cursor of the previous page: the events before it'),
  },
  check: requireOneLeadReference,
  output: z.object({
    lead_id: z.string(),
    events: z
      .array(
        z.object({
          revision: z.number().int().describe('0 for the first event, then +1'),
          type: z.string(),
          time: z.string().describe('ISO UTC time the event was recorded'),
          actor: z.object({ kind: z.string(), id: z.string() }).describe('webhook_token, api_key, operator, process, carrier, …'),
          summary: z.string().describe('What happened, in one line, as `leadline history` prints it (a note, an edit, a paused follow-up, …)'),
          data: z.record(z.string(), z.unknown()).describe("The event's own data, as recorded"),
        }),
      )
      .describe('Newest first'),
    total_events: z.number().int().describe('Events in the lead\'s whole history'),
    next_cursor: z.string().nullable().describe('Pass back as cursor for the older events; null when this page reaches the first event'),
  }),
  async run(args, context) {
    const { store } = context.services
    const stream = leadStreamOf(context, args)
    const newest = await store.streamRevision(stream)
    if (newest < 0) throw leadNotFound()
    let from = args.cursor === undefined ? newest : startOf(stream, args.cursor)
    if (from > newest) throw invalidCursor()
    const [first] = await store.readStream(stream, { from: 0, limit: 1 })
    const events: ReturnType<typeof entryOf>[] = []
    let bytes = 0
    let cut = false
    while (from >= 0 && events.length < args.limit && !cut) {
      const chunk = await store.readStream(stream, { direction: 'backwards', from, limit: Math.min(READ_CHUNK, args.limit - events.length) })
      if (chunk.length === 0) break
      for (const event of chunk) {
        const entry = entryOf(upcast(event))
        bytes += jsonBytes(entry) + 1
        if (bytes > PAGE_BYTES && events.length > 0) {
          cut = true
          break
        }
        events.push(entry)
      }
      from = (chunk[chunk.length - 1] as RecordedEvent).revision - 1
    }
    const oldest = events[events.length - 1]
    return {
      lead_id: (first?.data as { leadId: string }).leadId,
      events,
      total_events: newest + 1,
      next_cursor: oldest !== undefined && oldest.revision > 0 ? sealCursor(cursorScope(stream), String(oldest.revision)) : null,
    }
  },
})
