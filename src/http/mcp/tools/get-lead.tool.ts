/** `get_lead` (read): one lead of the account, by phone or lead id. */
import { z } from 'zod'
import { leadDecider } from '../../../domain/lead/lead.decider.ts'
import { callSummary } from '../../../domain/lead/calls/call-summary.ts'
import { findLead, leadOutput, leadOutputOf, leadReference, leadStreamOf, paymentsOutput, paymentsOutputOf, requireOneLeadReference } from '../lead-view.ts'
import { callsOutput, callsOutputOf, repliesOutput, repliesOutputOf, speedToLeadOutput, speedToLeadOutputOf, warningsOutput } from '../lead-view.ts'
import { assistantOutput, assistantOutputOf, lastInboundOutput, lastInboundOutputOf, consentOutput, consentOutputOf, sourceFactsOutput, sourceFactsOutputOf } from '../lead-view.ts'
import { defineTool } from '../tool.ts'
import { appointmentsOutput, appointmentsOutputOf } from '../appointments-view.ts'
import { NOTES_KEPT } from '../../../domain/lead/intake/lead-edits.ts'

/** A lead's pay-links shown at most: the answer stays bounded however many were asked of one person. */
export const MAX_PAYMENTS_SHOWN = 100

export const tool = defineTool({
  name: 'get_lead',
  title: 'Get a lead',
  summary: 'One lead, by phone or lead id',
  description:
    "One lead of this account with every field Leadline holds for it: name, phone, email, state, age, source, vendor, do-not-call, industry fields and any extra fields the sender pushed, its consent evidence (TrustedForm, Jornaya, the consent text, timestamp, IP address and page, one record per submission, as sent: Leadline does not judge it), whether it is a lead form's test lead (never called or texted), the lead form's ids for it (Google's lead_id, campaign_id, gcl_id), and its pay-links (request_payment) with how each settled. Its calls in brief: attempts today and in all, how the last call went (answered by a person or a machine, voicemail left, the key the lead pressed, a callback asked for, connected to the owner, opted out) and when follow-up calls next; whether and when the lead replied by text (never what they wrote); the voice assistant's latest outcome (disposition, the answers to the brief's questions, the callback booked; never the transcript); the last time the person called the account's number (taken or missed, a call back asked for, a voicemail's length; never the recording). Its appointments, upcoming and past (type, start and end in the account's and the lead's zone, booked, cancelled, attended or no_show). The account's latest notes (add_note), and whether its follow-up is paused (pause_follow_up) and when it next calls or texts. Name the lead by phone (any formatting) or by lead_id. A lead that is not in this account is lead_not_found.",
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: leadReference,
  check: requireOneLeadReference,
  output: z.object({
    lead: leadOutput,
    payments: paymentsOutput.describe(`Pay-links asked of this lead (request_payment), oldest first, with how each settled: the newest ${MAX_PAYMENTS_SHOWN}`),
    payments_total: z.number().int().describe('Pay-links asked of this lead in all'),
    speed_to_lead: speedToLeadOutput,
    calls: callsOutput,
    replies: repliesOutput,
    warnings: warningsOutput,
    consent: consentOutput,
    consent_total: z.number().int().describe('Submissions that carried consent evidence, in all'),
    test_lead: z.boolean().describe("Received as a lead form's test submission (Google's is_test): never called or texted"),
    source_facts: sourceFactsOutput,
    notes: z
      .array(z.object({ note_id: z.string(), text: z.string(), author: z.object({ kind: z.string(), id: z.string() }), at: z.string() }))
      .describe(`The latest ${NOTES_KEPT} notes (add_note), oldest first; get_lead_history has every one`),
    notes_total: z.number().int().describe('Notes on this lead in all'),
    suppressed_numbers: z
      .array(z.object({ phone: z.string().describe('E.164'), source: z.string().describe('sms_keyword: it texted STOP or a synonym'), at: z.string() }))
      .describe("Do-not-call by number: full numbers with this lead's last ten digits that opted out (the lead's own, or another person's), never called or texted until the operator clears them"),
    follow_up: z
      .object({
        paused: z.boolean().describe('pause_follow_up stopped the cadence until resume_follow_up'),
        paused_at: z.string().nullable(),
        next_at: z.string().nullable().describe('The pending follow-up step (it waits while paused); null when none is pending'),
      })
      .describe("The lead's follow-up cadence"),
    assistant: assistantOutput,
    last_inbound: lastInboundOutput,
    appointments: appointmentsOutput,
  }),
  async run(args, context) {
    const lead = leadOutputOf(findLead(context, args))
    const { state } = await context.services.commands.load(leadStreamOf(context, args), leadDecider)
    const payments = paymentsOutputOf(state)
    // Do-not-call as the lead's own record has it now: Inbound Leads may be a moment behind a mark_do_not_call.
    return { lead: { ...lead, do_not_call: state.doNotCall }, payments: payments.slice(-MAX_PAYMENTS_SHOWN), payments_total: payments.length, speed_to_lead: speedToLeadOutputOf(state), calls: callsOutputOf(callSummary(state.dialing, context.account.settings.timeZone, context.services.clock())), replies: repliesOutputOf(state), warnings: [...state.warnings], consent: consentOutputOf(state), consent_total: state.consentTotal, test_lead: state.test, source_facts: sourceFactsOutputOf(state),
      notes: state.notes.map((note) => ({ note_id: note.noteId, text: note.text, author: { kind: note.author.kind, id: note.author.id }, at: note.at })),
      notes_total: state.notesTotal,
      suppressed_numbers: Object.entries(state.suppressed).map(([phone, number]) => ({ phone, source: number.source, at: number.at })),
      follow_up: { paused: state.dialing.followUpPaused !== null, paused_at: state.dialing.followUpPaused, next_at: state.dialing.pendingFollowUp?.dueAt ?? null },
      assistant: assistantOutputOf(state), last_inbound: lastInboundOutputOf(state),
      appointments: appointmentsOutputOf(state, context.account.settings.timeZone, context.services.clock()) }
  },
})
