/** The intake slice's events on the lead's stream: the person as submitted, grouped and flagged do-not-call. */
import type { DomainEvent } from '../../shared/decider.ts'
import { speedToLeadSkipLine, type SpeedToLeadSkip } from '../calls/calls.events.ts'
import type { IntakeWarning, LeadFields } from './normalize-lead-input.ts'
import type { TextKeyword } from './text-keywords.ts'
import type { ConsentEvidence } from './consent.ts'
import { editSummary, noteSummary, type LeadEditedData, type Note } from './lead-edits.ts'
import { changeList, plural, printable, quoted, type EventSummaries } from '../../shared/printable.ts'

export const INBOUND_LEADS = { listId: 'inbound-leads', listName: 'Inbound Leads' } as const

/**
 * Where a submission came from, beyond its fields: the lead form that sent it (`google_lead_form`, `facebook_lead_ads`)
 * with the facts it gives about the lead (Google's `lead_id`, `campaign_id`, `gcl_id`, …), and the
 * source named in the webhook URL whose field map read it, with the fields the map filled.
 */
export interface SubmissionOrigin {
  readonly form?: 'google_lead_form' | 'facebook_lead_ads'
  readonly facts?: Readonly<Record<string, string>>
  readonly source?: string
  readonly mapped?: ReadonlyArray<{ readonly field: string; readonly path: string }>
}

/** What a submission carries besides the lead's fields; every member absent when it has nothing to say. */
export interface SubmissionExtras {
  /** The submission's consent evidence (consent.ts), as sent: one record per submission, never overwritten. */
  consent?: ConsentEvidence
  origin?: SubmissionOrigin
  /** A lead form's test submission (Google's `is_test`): a lead received this way is a test lead, never dialed or texted. */
  test?: true
}

/** The core fields a later submission may change (identity fields excepted). */
export type LeadFieldChanges = Partial<Omit<LeadFields, 'phoneLast10' | 'phoneRaw' | 'industryFields' | 'extraFields'>>

export type LeadReceived = DomainEvent<
  'LeadReceived',
  {
    leadId: string
    accountId: string
    fields: LeadFields
    receivedAt: string
    /** What intake told the sender about this submission (absent when it had nothing to say). */
    warnings?: readonly IntakeWarning[]
    /**
     * The list the lead joined as it arrived (Inbound Leads, for the webhook); absent for a person
     * first met by place_call. Older logs record the grouping as a LeadAddedToList right after.
     */
    list?: LeadList
    /**
     * Speed to lead's answer when it did not call, decided with the lead (absent when it called: a
     * CallDecided follows in the same append, or when none was decided). Older logs record it as a
     * SpeedToLeadSkipped right after.
     */
    speedToLeadSkipped?: SpeedToLeadSkip
  } & SubmissionExtras
>
/** A later submission for the same person: only what changed (empty values never erase data). */
export type LeadUpdated = DomainEvent<
  'LeadUpdated',
  {
    leadId: string
    changes: LeadFieldChanges
    industryFields: Record<string, string>
    extraFields: Array<{ name: string; value: unknown }>
    updatedAt: string
    /** What intake told the sender about this submission (absent when it had nothing to say). */
    warnings?: readonly IntakeWarning[]
  } & SubmissionExtras
>
export interface LeadList {
  readonly listId: string
  readonly listName: string
}
/** A lead grouped into a list after it arrived (a new lead's own list is on its LeadReceived). */
export type LeadAddedToList = DomainEvent<'LeadAddedToList', { leadId: string } & LeadList>
export type LeadDoNotCallCleared = DomainEvent<'LeadDoNotCallCleared', { leadId: string; clearedAt: string }>
/**
 * Marked do-not-call by the account (a tool or the operator), or by the lead (`source`:
 * `in_call_keypress` for 9 in the call's menu, `assistant_call` for an opt-out to the voice assistant, `sms_keyword` for STOP or a synonym texted to the
 * account's number), as opposed to by the sender's own flag.
 */
export type LeadMarkedDoNotCall = DomainEvent<'LeadMarkedDoNotCall', { leadId: string; markedAt: string; source?: string }>

/**
 * A number for this person (same last ten digits) that is not the one on record: another country
 * code, say. Recorded so it is never silent. A webhook submission's number does not replace a valid
 * number on record (`kept`: true); it replaces one that was not valid (`kept`: false, and its
 * LeadUpdated carries the change). place_call rings the number it was asked to and keeps the record.
 */
export type LeadPhoneConflict = DomainEvent<
  'LeadPhoneConflict',
  { leadId: string; storedPhone: string; receivedPhone: string; receivedRaw: string; source: 'webhook' | 'place_call'; kept: boolean; message: string; at: string }
>

/**
 * A text the person sent to the account's number (Twilio's messaging webhook), once per carrier
 * message id. What it says is kept like a transcript (`transcript`: the recordings policy removes it
 * from every tool answer, the console and the history); `keyword` is what it is when it is one
 * (text-keywords.ts): an opt-out makes the lead do-not-call in the same append.
 */
export type TextReceived = DomainEvent<
  'TextReceived',
  {
    leadId: string; messageId: string; from: string; to: string; transcript: string; keyword: TextKeyword | null; carrier: string; receivedAt: string
    /**
     * The sender is not this lead: `from` shares the lead's last ten digits but not its full number. The
     * text acts for `from` only (its opt-out suppresses that number); absent when the lead sent it.
     */
    otherNumber?: true
  }
>
/**
 * The person texted back something that is not a keyword: a person is waiting for a call. Recorded
 * in the same append as its TextReceived; it carries when and the message id, never the text (that
 * stays in the TextReceived, kept like a transcript). The lead decider stops a pending follow-up
 * with it (`FollowUpStopped`, `replied`).
 */
export type LeadReplied = DomainEvent<'LeadReplied', { leadId: string; messageId: string; repliedAt: string }>
/**
 * A full number (E.164) that must never be called or texted by this account: its opt-out, by number
 * (`sms_keyword`: STOP or a synonym texted from that number). Kept on
 * the stream of its last ten digits, so every decision about that stream sees it. An opt-out from the
 * lead's own number also marks the lead do-not-call in the same append.
 */
export type NumberSuppressed = DomainEvent<'NumberSuppressed', { leadId: string; phone: string; source: string; messageId?: string; at: string }>
/** The operator cleared a number's suppression (leadline leads clear-dnc), as they clear do-not-call. */
export type NumberSuppressionCleared = DomainEvent<'NumberSuppressionCleared', { leadId: string; phone: string; at: string }>
/** What Leadline answers a keyword with: the one opt-out confirmation, or the answer to HELP. */
export type TextReplyKind = 'opt_out_confirmation' | 'help'
/** The claim of a reply to inbound text `replyTo`, before the carrier is asked: at most one, ever. */
export type TextReplyClaimed = DomainEvent<
  'TextReplyClaimed',
  { leadId: string; replyTo: string; kind: TextReplyKind; from: string; to: string; body: string; node: string; at: string }
>
export type TextReplySent = DomainEvent<'TextReplySent', { leadId: string; replyTo: string; messageId: string; carrier: string; at: string }>
/** The reply was not sent (`failure`: the carrier's), or may have been (`unknown_outcome`): never resent. */
export type TextReplyFailed = DomainEvent<'TextReplyFailed', { leadId: string; replyTo: string; failure: string; message: string; at: string }>

/** The account set or cleared some of the lead's fields by hand (update_lead): only what changed. */
export type LeadEdited = DomainEvent<'LeadEdited', LeadEditedData>
/** A note the account kept on the lead (add_note), with who wrote it. */
export type NoteAdded = DomainEvent<'NoteAdded', Note & { leadId: string }>

export type IntakeEvent =
  | LeadEdited | NoteAdded
  | LeadReceived | LeadUpdated | LeadAddedToList | LeadDoNotCallCleared | LeadMarkedDoNotCall | LeadPhoneConflict
  | TextReceived | LeadReplied | TextReplyClaimed | TextReplySent | TextReplyFailed
  | NumberSuppressed | NumberSuppressionCleared

export function isIntakeEvent(event: { readonly type: string }): event is IntakeEvent {
  return Object.hasOwn(INTAKE_SUMMARIES, event.type)
}

/** The person's name as the lead carries it. */
export function leadName(fields: Partial<LeadFields> | null | undefined): string | null {
  if (!fields) return null
  const name = fields.fullName ?? [fields.firstName, fields.lastName].filter((p) => p !== undefined && p !== '').join(' ')
  return name === '' ? null : name
}

function receivedSummary(fields: LeadFields): string {
  const parts: string[] = []
  const name = leadName(fields)
  if (name !== null) parts.push(printable(name))
  parts.push(printable(fields.phone))
  if (fields.email !== undefined) parts.push(printable(fields.email))
  if (fields.state !== undefined) parts.push(printable(fields.state))
  if (fields.source !== undefined) parts.push(`source ${quoted(fields.source)}`)
  if (fields.vendor !== undefined) parts.push(`vendor ${quoted(fields.vendor)}`)
  if (fields.doNotCall === true) parts.push('do-not-call')
  const industry = Object.keys(fields.industryFields ?? {}).length
  if (industry > 0) parts.push(plural(industry, 'industry field'))
  const extra = (fields.extraFields ?? []).length
  if (extra > 0) parts.push(plural(extra, 'extra field'))
  return `lead received: ${parts.join(', ')}`
}

/** What else a submission brought, in a few words: `; test submission; consent evidence; google lead form`. */
function extrasLine(d: SubmissionExtras): string {
  const parts: string[] = []
  if (d.test === true) parts.push('test submission')
  if (d.consent !== undefined) parts.push(`consent evidence (${Object.keys(d.consent).map(printable).join(', ')})`)
  if (d.origin?.form !== undefined) parts.push(`from a ${d.origin.form === 'google_lead_form' ? 'Google Ads lead form' : d.origin.form === 'facebook_lead_ads' ? 'Facebook lead ad' : printable(d.origin.form)}`)
  if (d.origin?.source !== undefined) parts.push(`source ${quoted(d.origin.source)}${d.origin.mapped !== undefined ? ` (field map: ${d.origin.mapped.map((m) => printable(m.field)).join(', ')})` : ''}`)
  return parts.map((p) => `; ${p}`).join('')
}

/** A submission's warnings, by code and the field as sent: `; warnings: phone_not_valid (phone)`. */
function warningList(warnings: readonly { code: string; field: string }[] | undefined): string {
  if (warnings === undefined || warnings.length === 0) return ''
  return `; warnings: ${warnings.map((w) => `${printable(w.code)} (${printable(w.field)})`).join(', ')}`
}

const KEYWORD_WORDS: Record<string, string> = { opt_out: 'opt-out', help: 'help', opt_in: 'opt-in, not acted on' }
const REPLY_WORDS: Record<string, string> = { opt_out_confirmation: 'opt-out confirmation text', help: 'help answer text' }

const addedToList = (listName: string) => `added to list ${quoted(listName)}`

// Every type of the union, once (the compiler refuses a missing or a stray one): also what `is…Event` checks.
export const INTAKE_SUMMARIES: EventSummaries<IntakeEvent> = {
  LeadReceived: (d) =>
    receivedSummary(d.fields) +
    extrasLine(d) +
    warningList(d.warnings) +
    (d.list ? `; ${addedToList(d.list.listName)}` : '') +
    (d.speedToLeadSkipped ? `; ${speedToLeadSkipLine(d.speedToLeadSkipped)}` : ''),
  LeadUpdated: (d) => {
    const changed = changeList(d.changes)
    const more = [
      ...(Object.keys(d.industryFields).length > 0 ? [`${plural(Object.keys(d.industryFields).length, 'industry field')} set`] : []),
      ...(d.extraFields.length > 0 ? [`${plural(d.extraFields.length, 'extra field')} added`] : []),
    ]
    const all = [...changed, ...more]
    return `submitted again: ${all.length === 0 ? 'nothing changed' : all.join(', ')}${extrasLine(d)}${warningList(d.warnings)}`
  },
  LeadAddedToList: (d) => addedToList(d.listName),
  LeadEdited: (d) => editSummary(d),
  NoteAdded: (d) => noteSummary(d),
  LeadDoNotCallCleared: () => 'do-not-call cleared',
  LeadMarkedDoNotCall: (d) =>
    d.source === 'in_call_keypress' ? 'marked do-not-call: the lead pressed 9 in the call'
      : d.source === 'sms_keyword' ? 'marked do-not-call: the lead texted an opt-out keyword'
        : d.source === 'assistant_call' ? 'marked do-not-call: the lead asked the assistant to stop calling'
        : 'marked do-not-call',
  LeadPhoneConflict: (d) => `phone conflict (${printable(d.source)}): ${printable(d.message)}`,
  TextReceived: (d) =>
    `text received from ${printable(d.from)} to ${printable(d.to)}${d.keyword === null ? '' : ` (keyword: ${KEYWORD_WORDS[d.keyword] ?? printable(String(d.keyword))})`}` +
    (d.otherNumber === true ? "; not the lead's number: it acts for that number only" : ''),
  LeadReplied: (d) => `the lead replied by text (message ${printable(d.messageId)}): call them`,
  TextReplyClaimed: (d) => `${REPLY_WORDS[d.kind] ?? printable(String(d.kind))} claimed: ${printable(d.from)} → ${printable(d.to)}`,
  TextReplySent: (d) => `reply text sent through ${printable(d.carrier)} (message ${printable(d.messageId)})`,
  NumberSuppressed: (d) =>
    `${printable(d.phone)} suppressed: never called or texted${d.source === 'sms_keyword' ? ' (it texted an opt-out keyword)' : ''}`,
  NumberSuppressionCleared: (d) => `${printable(d.phone)} no longer suppressed (cleared by the operator)`,
  TextReplyFailed: (d) => `reply text not sent: ${printable(d.failure)}: ${printable(d.message)} (never resent)`,
}
