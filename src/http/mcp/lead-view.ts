/**
 * What the lead tools share: the `phone` or `lead_id` argument that names a lead, finding it within
 * the key's account only, and a lead as tools return it. A lead of another account is
 * `lead_not_found`, exactly like a lead that does not exist.
 */
import { DISPOSITIONS } from '../../domain/lead/assistant/assistant.events.ts'
import { CONSENT_FIELD_NAMES, CONSENT_FIELDS, MAX_CONSENT_RECORDS_KEPT } from '../../domain/lead/intake/consent.ts'
import { z } from 'zod'
import { DomainError } from '../../domain/shared/decider.ts'
import { leadStream } from '../../domain/lead/lead.events.ts'
import type { LeadState } from '../../domain/lead/lead.decider.ts'
import type { CallSummary } from '../../domain/lead/calls/call-summary.ts'
import { CALL_RESULTS } from '../../domain/lead/calls/call-outcome.ts'
import { phoneIdentity } from '../../domain/lead/intake/phone.ts'
import { inboundOutcome, lastInboundCall } from '../../domain/lead/inbound/inbound.decider.ts'
import type { InboundLead } from '../../../projections/inbound-leads/inbound-leads.queries.ts'
import { RPC_CODES, RpcError } from './json-rpc.ts'
import type { ToolContext } from './tool.ts'

export const phoneArgument = z
  .string()
  .max(64)
  .refine((phone) => phoneIdentity(phone) !== undefined, 'must hold at least ten digits')

/** The two ways to name a lead; a tool takes exactly one of them. */
export const leadReference = {
  phone: phoneArgument
    .optional()
    .describe("The lead's phone number, in any formatting (\"(312) 555-0142\", \"+1 312 555 0142\"); leads are matched by its last ten digits. Give phone or lead_id."),
  lead_id: z.string().min(1).max(64).optional().describe('The lead id (ld_…) as list_leads returns it. Give phone or lead_id.'),
}

export type LeadReference = { readonly phone?: string | undefined; readonly lead_id?: string | undefined }

export function leadNotFound(): DomainError {
  return new DomainError('lead_not_found', 'no lead with that phone number or id in this account')
}

/** The tools' `check`: exactly one of phone and lead_id, refused as invalid arguments before anything runs. */
export function requireOneLeadReference(reference: LeadReference): void {
  if ((reference.phone === undefined) === (reference.lead_id === undefined)) {
    throw new RpcError(RPC_CODES.invalidParams, 'invalid_arguments', 'give exactly one of phone and lead_id', {
      problems: [{ path: '', message: 'give exactly one of phone and lead_id' }],
    })
  }
}

function exactlyOne(reference: LeadReference): { phone: string } | { leadId: string } {
  requireOneLeadReference(reference)
  return reference.phone !== undefined ? { phone: reference.phone } : { leadId: reference.lead_id as string }
}

/** The stream of the lead a reference names in the key's account (by phone, the stream may not exist yet). */
export function leadStreamOf(context: ToolContext, reference: LeadReference): string {
  const by = exactlyOne(reference)
  const accountId = context.account.accountId
  if ('phone' in by) return leadStream(accountId, phoneIdentity(by.phone) as string)
  const lead = context.services.inboundLeads.get(accountId, { leadId: by.leadId })
  if (!lead) throw leadNotFound()
  return leadStream(accountId, phoneIdentity(lead.phone) as string)
}

/** The lead a reference names, as Inbound Leads has it; `lead_not_found` when the account has no such lead. */
export function findLead(context: ToolContext, reference: LeadReference): InboundLead {
  const by = exactlyOne(reference)
  const accountId = context.account.accountId
  const lead = context.services.inboundLeads.get(accountId, 'phone' in by ? { phoneLast10: phoneIdentity(by.phone) as string } : { leadId: by.leadId })
  if (!lead) throw leadNotFound()
  return lead
}

// Text that came in with the lead may be withheld by the recordings filter, so it is optional as well as nullable.
const text = z.string().nullable().optional()

export const leadOutput = z
  .object({
    lead_id: z.string(),
    phone: z.string().describe('E.164'),
    full_name: text,
    first_name: text,
    last_name: text,
    email: text,
    state: text,
    age: z.number().nullable(),
    dob: text,
    source: text,
    vendor: text,
    lead_date: text,
    city: text,
    zip: text,
    address: text,
    do_not_call: z.boolean(),
    industry_fields: z.record(z.string(), z.string()).describe("Fields matched to the account's industry field list"),
    extra_fields: z.record(z.string(), z.unknown()).describe('Fields the sender pushed that Leadline does not recognise, as received (latest value per name)'),
    submissions: z.number().int().describe('How many times the lead was pushed'),
    received_at: z.string(),
    updated_at: z.string(),
  })
  .describe('A lead as listed in Inbound Leads')

export function leadOutputOf(lead: InboundLead): z.output<typeof leadOutput> {
  return {
    lead_id: lead.leadId,
    phone: lead.phone,
    full_name: lead.fullName,
    first_name: lead.firstName,
    last_name: lead.lastName,
    email: lead.email,
    state: lead.state,
    age: lead.age,
    dob: lead.dob,
    source: lead.source,
    vendor: lead.vendor,
    lead_date: lead.leadDate,
    city: lead.city,
    zip: lead.zip,
    address: lead.address,
    do_not_call: lead.doNotCall,
    industry_fields: lead.industryFields,
    extra_fields: Object.fromEntries(lead.extraFields.map((field) => [field.name, field.value])),
    submissions: lead.submissions,
    received_at: lead.receivedAt,
    updated_at: lead.updatedAt,
  }
}

export const paymentsOutput = z
  .array(
    z.object({
      request_id: z.string(),
      status: z.enum(['open', 'settled', 'failed', 'expired']).describe('open: not paid yet; settled: the money arrived in the connected account'),
      amount_cents: z.number().int().describe("In the currency's smallest unit"),
      currency: z.string(),
      description: z.string(),
      texted: z.boolean().describe('Whether the carrier accepted the text with the link'),
      url: z.string().nullable(),
      provider: z.string().describe('stripe, or simulated: no card is ever charged'),
      requested_at: z.string(),
      expires_at: z.string().nullable(),
      settled_at: z.string().nullable(),
    }),
  )
  .describe('Pay-links asked of this lead (request_payment), oldest first, with how each settled')

/** A lead's pay-links as tools return them. */
export function paymentsOutputOf(state: LeadState): z.output<typeof paymentsOutput> {
  return state.payments.order.flatMap((id) => {
    const p = state.payments.requests[id]
    if (!p) return []
    return [{
      request_id: p.requestId, status: p.status, amount_cents: p.amountCents, currency: p.currency, description: p.description,
      texted: p.stage === 'texted', url: p.url, provider: p.provider, requested_at: p.requestedAt, expires_at: p.expiresAt, settled_at: p.settledAt,
    }]
  })
}

export const speedToLeadOutput = z
  .object({
    status: z.enum(['pending', 'decided', 'skipped']).describe('decided: speed to lead called; skipped: it did not, for `reason`'),
    reason: z.string().nullable().describe('When skipped: speed_to_lead_off, do_not_call, suppressed, test_lead, no_caller_id, phone_not_valid, number_type_not_allowed, country_not_allowed, outside_calling_hours, outside_lead_hours, no_calling_hours'),
    message: z.string().nullable(),
    next_allowed_at: z.string().nullable(),
    rule: z.string().nullable().describe('When skipped by a calling rule: its name, e.g. "FL 501.616" (docs/dialing.md)'),
  })
  .describe('Whether speed to lead called this lead, and if not why')

export function speedToLeadOutputOf(state: LeadState): z.output<typeof speedToLeadOutput> {
  const skip = state.dialing.speedToLeadSkip
  return { status: state.dialing.speedToLead, reason: skip?.reason ?? null, message: skip?.message ?? null, next_allowed_at: skip?.nextAllowedAt ?? null, rule: skip?.rule ?? null }
}

export const repliesOutput = z
  .object({
    count: z.number().int().describe('Texts the lead sent that were no keyword (not STOP, HELP, START or their synonyms)'),
    last_reply_at: z.string().nullable().describe('When the latest came (ISO UTC); null when none did'),
  })
  .describe('Whether the lead texted back, and when: a reply stops follow-up and lists the lead first in get_next_actions. Never what they wrote')

/** That the lead replied and when, from the lead's own record: never the text. */
export function repliesOutputOf(state: LeadState): z.output<typeof repliesOutput> {
  return { count: state.replies, last_reply_at: state.lastReplyAt }
}

export const assistantOutput = z
  .object({
    calls: z.number().int().describe("The voice assistant's calls with this lead that ended"),
    last: z
      .object({
        disposition: z.enum(DISPOSITIONS).describe('How the call went: qualified, not_interested, callback_booked, appointment_booked, transferred, opted_out, wrong_number or no_conversation'),
        answers: z.array(z.object({ question: z.string(), answer: z.string().describe("What the assistant recorded (record_answer), at most 200 characters") })).describe("The answers to the brief's questions"),
        callback_at: z.string().nullable().describe('The callback booked (ISO UTC); null when none'),
        appointment_id: z.string().nullable().describe('The appointment the assistant booked in the call (see appointments); null when none'),
        why: z.string().nullable().describe("Why, in Leadline's words, when the call ended without a decided outcome or after a failure"),
        ended_at: z.string().nullable(),
      })
      .nullable()
      .describe('The latest assistant call; null when there was none'),
  })
  .describe("The voice assistant's outcome with this lead: the disposition and the answers, never the transcript")

/** The assistant's latest outcome from the lead's own record. */
export function assistantOutputOf(state: LeadState): z.output<typeof assistantOutput> {
  const calls = Object.values(state.assistant.calls).filter((c) => c.ended).length
  const last = state.assistant.lastEnded === null ? undefined : state.assistant.calls[state.assistant.lastEnded]
  return {
    calls,
    last: last?.disposition == null ? null : { disposition: last.disposition, answers: last.answers.map((a) => ({ question: a.question, answer: a.answer })), callback_at: last.callbackAt, appointment_id: last.appointmentId, why: last.why, ended_at: last.endedAt },
  }
}

export const lastInboundOutput = z
  .object({
    call_id: z.string().describe("The carrier's call id (CA…); list_calls and get_call show the call (direction inbound)"),
    at: z.string().describe('When the person called'),
    result: z.enum(['connected', 'missed', 'ringing', 'ended']).describe('connected: an owner or the assistant took it; missed: nobody could; ringing: still being put through'),
    taken_by: z.enum(['owner', 'assistant']).nullable().describe('Who took it; null when nobody did'),
    missed_reason: z.string().nullable().describe('outside_business_hours, no_owner_answered, no_owner_numbers or caller_hung_up; null unless missed'),
    callback_requested_at: z.string().nullable().describe('When the caller pressed the key asking for a call back'),
    voicemail_seconds: z.number().int().nullable().describe('The length of the voicemail they left (played only in the console, never returned here); null when none'),
    calls_in: z.number().int().describe('Calls this person made to the account in all'),
  })
  .nullable()
  .describe("The last time this person called the account's number; null when they never did")

export function lastInboundOutputOf(state: LeadState): z.output<typeof lastInboundOutput> {
  const call = lastInboundCall(state.inbound)
  if (call === null) return null
  return {
    call_id: call.callId, at: call.receivedAt, result: inboundOutcome(call), taken_by: call.connected?.by ?? null, missed_reason: call.missed?.reason ?? null,
    callback_requested_at: call.callbackRequestedAt, voicemail_seconds: call.voicemail?.durationSeconds ?? null, calls_in: state.inbound.order.length,
  }
}

export const consentOutput = z
  .array(
    z.object({
      received_at: z.string().describe('When the submission that carried it arrived'),
      trustedform_cert_url: z.string().optional().describe('TrustedForm certificate URL (xxTrustedFormCertUrl)'),
      jornaya_leadid: z.string().optional().describe('Jornaya LeadiD token (universal_leadid, leadid_token)'),
      tcpa_consent_text: z.string().optional().describe('The consent language the person agreed to, as the source sent it'),
      consent_timestamp: z.string().optional().describe('When the person consented, as the source sent it'),
      ip_address: z.string().optional().describe("The person's IP address, as the source sent it"),
      page_url: z.string().optional().describe('The page the form was on, as the source sent it'),
    }),
  )
  .describe(`Consent evidence, one record per submission that carried any, oldest first (the newest ${MAX_CONSENT_RECORDS_KEPT}; the log and audit export keep all). Stored as sent: Leadline does not judge whether it amounts to consent`)

export function consentOutputOf(state: LeadState): z.output<typeof consentOutput> {
  return state.consent.map((record) => {
    const out: Record<string, string> = { received_at: record.receivedAt }
    for (const field of CONSENT_FIELDS) {
      const value = record[field]
      if (value !== undefined) out[CONSENT_FIELD_NAMES[field]] = value
    }
    return out as z.output<typeof consentOutput>[number]
  })
}

export const sourceFactsOutput = z
  .object({
    form: z.string().describe('The lead form that sent them: google_lead_form or facebook_lead_ads'),
    facts: z.record(z.string(), z.string()).describe("Its ids for the lead: Google's lead_id, campaign_id, gcl_id, form_id, adgroup_id, creative_id, …"),
    received_at: z.string(),
  })
  .nullable()
  .describe("The latest lead form's facts about this lead; null when none sent any")

export function sourceFactsOutputOf(state: LeadState): z.output<typeof sourceFactsOutput> {
  const facts = state.sourceFacts
  return facts === null ? null : { form: facts.form, facts: { ...facts.facts }, received_at: facts.receivedAt }
}

export const warningsOutput = z
  .array(z.object({ code: z.string(), field: z.string(), message: z.string() }))
  .describe("What intake said about the latest submission (phone_not_valid, phone_conflict, …), as the webhook's answer did")

export const callsOutput = z
  .object({
    attempts_today: z
      .number()
      .int()
      .describe("Calls that rang this lead today, in the account's time zone: each counts toward the daily limit. An agent-first call counts once the lead is dialed, never for the owner's legs alone"),
    attempts_total: z.number().int().describe('Calls decided to this lead in all, agent-first calls that only rang the owner included'),
    last_outcome: z
      .object({
        result: z
          .enum(CALL_RESULTS)
          .describe('As list_calls says of the same call. answered: a person (or a key pressed); machine: a voicemail box or a fax, not the lead; agent_unavailable: agent-first, no owner took the call'),
        answered_by: z.string().nullable().describe("Machine detection's verdict: human, machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax, unknown; null without one"),
        voicemail_left: z.boolean().describe("The account's voicemail was left on this call"),
        menu_choice: z.enum(['connect', 'callback', 'opt_out', 'none']).nullable().describe('The key the lead pressed: 1 connect, 2 callback, 9 opt_out, anything else none; null when no key'),
        callback_at: z.string().nullable().describe('When the lead asked (pressing 2) to be called back'),
        connected_to_owner: z
          .boolean()
          .nullable()
          .describe("After a connect to the owner (menu key 1, agent-first's 1, the assistant's transfer): whether the owner and the lead talked; null when not asked or still ringing. As list_calls says"),
        opted_out: z.boolean().describe('The lead pressed 9: do-not-call from now on'),
        at: z.string().describe("When the call's outcome was last recorded (ISO UTC)"),
      })
      .nullable()
      .describe('How the latest call with an outcome went; null before any (a call still ringing has none yet)'),
    next_follow_up_at: z.string().nullable().describe('When follow-up calls the lead next (a callback the lead asked for included); null when none is scheduled'),
  })
  .describe("The lead's calls: attempts, how the last one went, and the next follow-up. Never a recording or a transcript")

/** A lead's call summary as tools return it. */
export function callsOutputOf(summary: CallSummary): z.output<typeof callsOutput> {
  const last = summary.lastOutcome
  return {
    attempts_today: summary.attemptsToday,
    attempts_total: summary.attemptsTotal,
    last_outcome: last === null ? null : {
      result: last.result, answered_by: last.answeredBy, voicemail_left: last.voicemailLeft, menu_choice: last.menuChoice, callback_at: last.callbackAt,
      connected_to_owner: last.connectedToOwner, opted_out: last.optedOut, at: last.at,
    },
    next_follow_up_at: summary.nextFollowUpAt,
  }
}
