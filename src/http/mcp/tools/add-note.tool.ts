/** `add_note` (write): a note kept on the lead's own history, with who wrote it. */
import { z } from 'zod'
import { changeLead } from '../../../commands/change-lead.command.ts'
import { MAX_NOTE_LENGTH } from '../../../domain/lead/intake/lead-edits.ts'
import { newId } from '../../../domain/shared/ids.ts'
import { leadReference, leadStreamOf, requireOneLeadReference } from '../lead-view.ts'
import { defineWriteTool } from '../tool.ts'

export const tool = defineWriteTool({
  name: 'add_note',
  title: 'Add a note to a lead',
  summary: "Keep a note on a lead's history",
  description: `Adds a note to one lead of this account: what was agreed on a call, what the person prefers, anything the next person (or agent) should know. The note is an event on the lead's own history (get_lead_history shows it, with who wrote it: your API key), get_lead shows the latest notes and how many there are, and so does the console's lead page. Notes are never texted or said to the lead. Up to ${MAX_NOTE_LENGTH} characters, trimmed; empty is refused (note_empty), longer is refused (note_too_long). Name the lead by phone (any formatting) or lead_id.`,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: {
    ...leadReference,
    text: z.string().min(1).max(MAX_NOTE_LENGTH).describe(`The note, up to ${MAX_NOTE_LENGTH} characters (trimmed)`),
  },
  check: requireOneLeadReference,
  output: z.object({
    lead_id: z.string(),
    note_id: z.string().nullable().describe('The note id (null for a dry run)'),
    text: z.string().describe('The note as kept (trimmed)'),
    notes_total: z.number().int().describe("The lead's notes in all, this one included"),
    dry_run: z.boolean(),
    message: z.string(),
  }),
  async run(args, context) {
    const command = { type: 'AddNote' as const, noteId: newId('note'), text: args.text, author: context.command.actor }
    const { lead, events } = await changeLead(context.services, leadStreamOf(context, args), command, args.dry_run, context.command)
    const note = events.find((event) => event.type === 'NoteAdded')
    const text = note?.type === 'NoteAdded' ? note.data.text : args.text.trim()
    return {
      lead_id: lead.leadId,
      note_id: args.dry_run ? null : command.noteId,
      text,
      notes_total: lead.notesTotal,
      dry_run: args.dry_run,
      message: args.dry_run ? `the note would be added to ${lead.leadId}` : `note added to ${lead.leadId}`,
    }
  },
})
