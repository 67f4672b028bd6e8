/**
 * Intake: the slice of the lead aggregate that receives the person as submitted. The first
 * submission receives the lead and groups it into Inbound Leads; later ones record only what
 * changed; the account marks and clears do-not-call.
 */
import { DomainError } from '../../shared/decider.ts'
import type { AccountSettings } from '../../account/account-settings.ts'
import { isValidNumber } from '../../dialing/destination.ts'
import type { IntakeWarning, LeadFields } from './normalize-lead-input.ts'
import { mergeExtraFields } from './extra-fields.ts'
import { joinName, namesAgree } from './full-name.ts'
import { textKeyword } from './text-keywords.ts'
import { NOTES_KEPT, applyEdit, decideEdit, decideNote, type AddNote, type EditLead, type Note } from './lead-edits.ts'
import { addConsentRecord, type ConsentEvidence, type ConsentRecord } from './consent.ts'
import { INBOUND_LEADS, type IntakeEvent, type SubmissionExtras, type SubmissionOrigin, type TextReplyKind, type LeadFieldChanges, type LeadPhoneConflict, type LeadReceived } from './intake.events.ts'

export type ReceiveLead = {
  type: 'ReceiveLead'
  accountId: string
  newLeadId: string
  fields: LeadFields
  /**
   * Fields the normaliser derived (a first name split from a full name): they fill gaps, and
   * overwrite a stored name only to keep its forms agreeing (reconcileNames), never a name sent apart.
   */
  derived?: readonly string[]
  /** Intake's warnings on this submission, kept on its event so the operator and auditors see them too. */
  warnings?: readonly IntakeWarning[]
  /** Group a new lead into Inbound Leads (true for the webhook; false for a lead first met by place_call). */
  list?: boolean
  /**
   * Decide speed to lead in the same append as a new lead (the account's settings now, and the id
   * a call decision gets): the decision or the reason there is none is on the log with the lead,
   * atomically (lead.decider.ts). Absent (place_call's new person), no speed to lead is decided.
   */
  speedToLead?: { settings: AccountSettings; decisionId: string }
  /** The submission's consent evidence, kept as one more record on the lead. */
  consent?: ConsentEvidence
  /** The lead form and the source it came from (SubmissionOrigin). */
  origin?: SubmissionOrigin
  /** A lead form's test submission: a new lead received so is a test lead for good. */
  test?: boolean
}

/**
 * A text the person sent to the account's number, once per carrier message id: a person first met
 * by a text becomes a lead (not listed in Inbound Leads, no speed to lead) with `fields`; an opt-out
 * keyword marks them do-not-call (`sms_keyword`) in the same append, and any text that is no keyword
 * is a reply (`LeadReplied`).
 */
export type ReceiveText = {
  type: 'ReceiveText'
  accountId: string
  newLeadId: string
  fields: LeadFields
  messageId: string
  from: string
  to: string
  body: string
  carrier: string
}

/** Claims the reply to inbound text `replyTo` before it is sent: once per text, and one opt-out confirmation per opt-out. */
export type ClaimTextReply = { type: 'ClaimTextReply'; replyTo: string; kind: TextReplyKind; from: string; to: string; body: string; node: string }

/** How the claimed reply ended: sent (the carrier's message id) or not (`failure`, `unknown_outcome` included). */
export type RecordTextReply = {
  type: 'RecordTextReply'
  replyTo: string
  outcome: { readonly sent: true; readonly messageId: string; readonly carrier: string } | { readonly sent: false; readonly failure: string; readonly message: string }
}

/**
 * The operator clears do-not-call. `phone` (E.164), when it is not the lead's own number, clears only
 * that number's suppression: the lead is another person. Absent or the lead's number: the lead's flag
 * and its number's suppression.
 */
export type ClearDoNotCall = { type: 'ClearDoNotCall'; phone?: string }

export type MarkDoNotCall = { type: 'MarkDoNotCall'; source?: string }

export type IntakeCommand = ReceiveLead | EditLead | AddNote | ClearDoNotCall | MarkDoNotCall | ReceiveText | ClaimTextReply | RecordTextReply

/** A number suppressed on this stream: why, when, and whether its one opt-out confirmation was claimed. */
export interface SuppressedNumber {
  readonly source: string
  readonly at: string
  readonly confirmed: boolean
}

// Every type of the union, once: the compiler refuses a missing or a stray one.
const INTAKE_COMMAND_TYPES: { readonly [T in IntakeCommand['type']]: true } = {
  ReceiveLead: true, EditLead: true, AddNote: true, ClearDoNotCall: true, MarkDoNotCall: true, ReceiveText: true, ClaimTextReply: true, RecordTextReply: true,
}

export function isIntakeCommand(command: { readonly type: string }): command is IntakeCommand {
  return Object.hasOwn(INTAKE_COMMAND_TYPES, command.type)
}

/** The person as intake knows them: the lead's own fields, beside its calls and payments (lead.decider.ts). */
export interface IntakeState {
  readonly exists: boolean
  readonly leadId: string
  readonly accountId: string
  readonly fields: LeadFields | null
  /** Do-not-call is sticky: a sender's later "no" does not clear it; only the operator does. */
  readonly doNotCall: boolean
  readonly lists: readonly string[]
  readonly receivedAt: string
  readonly updatedAt: string
  readonly submissions: number
  /** What intake said about the latest submission (phone_not_valid, phone_conflict, …). */
  readonly warnings: readonly IntakeWarning[]
  /** The carrier message ids of the texts received from this person (a repeated webhook changes nothing). */
  readonly textsReceived: readonly string[]
  /** The replies claimed, by the inbound text they answer, and how each ended. */
  readonly textReplies: Readonly<Record<string, 'claimed' | 'sent' | 'failed'>>
  /** An opt-out confirmation was claimed since the lead last became do-not-call (one per opt-out, ever). */
  readonly optOutConfirmed: boolean
  /**
   * Full numbers (E.164) with these last ten digits that opted out by number (NumberSuppressed): never
   * called or texted, whoever the lead is (may-call.ts refuses `suppressed`).
   */
  readonly suppressed: Readonly<Record<string, SuppressedNumber>>
  /** Texts from the person that were no keyword (LeadReplied), and when the latest came. */
  readonly replies: number
  readonly lastReplyAt: string | null
  /** Received as a lead form's test submission: never dialed or texted (may-call.ts refuses `test_lead`). */
  readonly test: boolean
  /** The consent evidence of each submission that carried any, oldest first: the latest MAX_CONSENT_RECORDS_KEPT. */
  readonly consent: readonly ConsentRecord[]
  /** How many submissions carried consent evidence, in all. */
  readonly consentTotal: number
  /** The latest lead-form facts (Google's lead_id, campaign_id, gcl_id, …), with the form that sent them. */
  readonly sourceFacts: { readonly form: string; readonly facts: Readonly<Record<string, string>>; readonly receivedAt: string } | null
  /** The account's notes on the lead, oldest first: the latest NOTES_KEPT (the history holds every one). */
  readonly notes: readonly Note[]
  readonly notesTotal: number
}

export const INITIAL_INTAKE: IntakeState = {
  exists: false,
  leadId: '',
  accountId: '',
  fields: null,
  doNotCall: false,
  lists: [],
  receivedAt: '',
  updatedAt: '',
  submissions: 0,
  warnings: [],
  textsReceived: [],
  textReplies: {},
  optOutConfirmed: false,
  suppressed: {},
  replies: 0,
  lastReplyAt: null,
  test: false,
  consent: [],
  consentTotal: 0,
  sourceFacts: null,
  notes: [],
  notesTotal: 0,
}

const CHANGEABLE: ReadonlyArray<keyof LeadFieldChanges> = [
  'phone', 'phoneExtension', 'fullName', 'firstName', 'lastName', 'email', 'state', 'age', 'dob', 'source', 'vendor',
  'leadDate', 'doNotCall', 'city', 'zip', 'address',
]

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function diffFields(current: LeadFields, incoming: LeadFields, doNotCall: boolean, derived: readonly string[]): LeadFieldChanges {
  const changes: Record<string, unknown> = {}
  for (const key of CHANGEABLE) {
    const value = incoming[key]
    if (value === undefined || sameValue(value, current[key])) continue
    if (derived.includes(key) && current[key] !== undefined) continue
    // A later "not do-not-call" never clears the flag (spec §2.1 rule 3; the operator clears it).
    if (key === 'doNotCall' && (value === false && doNotCall)) continue
    changes[key] = value
  }
  reconcileNames(current, incoming, derived, changes)
  return changes as LeadFieldChanges
}

/**
 * A name form the sender left out follows the one they changed, when the stored forms agreed (the
 * full name was the first and last names joined, or split into them): "last_name: Smith" on Jane Doe makes her Jane
 * Smith, not Jane Smith by last name and Jane Doe by full name. Forms that disagree were sent apart
 * (full name "Bob Smith", first name "Robert"): what was sent is kept, and only a sent form changes.
 */
function reconcileNames(current: LeadFields, incoming: LeadFields, derived: readonly string[], changes: Record<string, unknown>): void {
  if (!namesAgree(current.fullName, current.firstName, current.lastName)) return
  const sent = (key: 'fullName' | 'firstName' | 'lastName'): boolean => incoming[key] !== undefined && !derived.includes(key)
  if (sent('fullName')) {
    // The normaliser split the sent full name into the forms not sent.
    for (const key of ['firstName', 'lastName'] as const) {
      const split = incoming[key]
      if (!sent(key) && split !== undefined && split !== current[key]) changes[key] = split
    }
  } else if (sent('firstName') || sent('lastName')) {
    const first = (changes.firstName as string | undefined) ?? current.firstName
    const last = (changes.lastName as string | undefined) ?? current.lastName
    const full = joinName(first, last)
    if (full !== undefined && full !== current.fullName) changes.fullName = full
  }
}

/** The submission's consent, origin and test flag as its event carries them: only those it has. */
function extrasOf(command: ReceiveLead): SubmissionExtras {
  return {
    ...(command.consent !== undefined && Object.keys(command.consent).length > 0 ? { consent: command.consent } : {}),
    ...(command.origin !== undefined && Object.keys(command.origin).length > 0 ? { origin: command.origin } : {}),
    ...(command.test === true ? { test: true as const } : {}),
  }
}

/** A lead's consent records and lead-form facts after a submission that carried them. */
function withSubmissionExtras<S extends IntakeState>(state: S, extras: SubmissionExtras, at: string): S {
  // Most submissions carry neither: the state as it is, not a copy.
  if (extras.consent === undefined && extras.origin?.facts === undefined) return state
  const consent = extras.consent === undefined ? {} : { consent: addConsentRecord(state.consent, { ...extras.consent, receivedAt: at }), consentTotal: state.consentTotal + 1 }
  const facts = extras.origin?.form !== undefined && extras.origin.facts !== undefined ? { sourceFacts: { form: extras.origin.form, facts: extras.origin.facts, receivedAt: at } } : {}
  return { ...state, ...consent, ...facts }
}

/** The submission's warnings as an event carries them: only when there are any, so most events stay as they were. */
function warningsOf(command: { readonly warnings?: readonly IntakeWarning[] }): { warnings?: readonly IntakeWarning[] } {
  return command.warnings !== undefined && command.warnings.length > 0 ? { warnings: command.warnings } : {}
}

/**
 * A number asked for this person that is not the one on record (same last ten digits, another full
 * number): recorded, never silently taken. Null when they agree.
 */
export function phoneConflict(state: IntakeState, received: string, receivedRaw: string, source: 'webhook' | 'place_call', at: string): LeadPhoneConflict | null {
  const stored = state.fields?.phone
  if (stored === undefined || stored === received) return null
  const kept = isValidNumber(stored) || !isValidNumber(received)
  const message =
    source === 'place_call'
      ? `place_call rang ${received} as asked; the lead's number on record stays ${stored}`
      : kept
        ? `the submission's number ${received} differs from the lead's ${stored}: another person; the lead is left as it was`
        : `the lead's number ${stored} was not valid; it is now ${received}`
  return { type: 'LeadPhoneConflict', data: { leadId: state.leadId, storedPhone: stored, receivedPhone: received, receivedRaw, source, kept: source === 'place_call' || kept, message, at } }
}

/** Is there an opt-out from `to` whose one confirmation is still to be claimed? The lead's own, or another number's. */
function optOutToConfirm(state: IntakeState, to: string): boolean {
  if (to === state.fields?.phone) return state.doNotCall && !state.optOutConfirmed
  const number = state.suppressed[to]
  return number !== undefined && !number.confirmed
}

export function evolveIntake<S extends IntakeState>(state: S, event: IntakeEvent): S {
  switch (event.type) {
    case 'LeadReceived':
      return withSubmissionExtras({
        ...state,
        lists: event.data.list === undefined || state.lists.includes(event.data.list.listName) ? state.lists : [...state.lists, event.data.list.listName],
        exists: true,
        leadId: event.data.leadId,
        accountId: event.data.accountId,
        fields: event.data.fields,
        doNotCall: event.data.fields.doNotCall === true,
        receivedAt: event.data.receivedAt,
        updatedAt: event.data.receivedAt,
        submissions: 1,
        warnings: event.data.warnings ?? [],
        test: event.data.test === true,
      }, event.data, event.data.receivedAt)
    case 'LeadUpdated': {
      const fields = state.fields as LeadFields
      return withSubmissionExtras({
        ...state,
        fields: {
          ...fields,
          ...event.data.changes,
          industryFields: { ...fields.industryFields, ...event.data.industryFields },
          extraFields: mergeExtraFields(fields.extraFields, event.data.extraFields),
        },
        doNotCall: state.doNotCall || event.data.changes.doNotCall === true,
        updatedAt: event.data.updatedAt,
        submissions: state.submissions + 1,
        warnings: event.data.warnings ?? [],
      }, event.data, event.data.updatedAt)
    }
    case 'LeadEdited':
      return { ...state, fields: applyEdit(state.fields as LeadFields, event.data), updatedAt: event.data.editedAt }
    case 'NoteAdded': {
      const { leadId: _leadId, ...note } = event.data
      return { ...state, notes: [...state.notes, note].slice(-NOTES_KEPT), notesTotal: state.notesTotal + 1 }
    }
    case 'LeadAddedToList':
      return state.lists.includes(event.data.listName) ? state : { ...state, lists: [...state.lists, event.data.listName] }
    case 'LeadDoNotCallCleared':
      return {
        ...state,
        doNotCall: false,
        optOutConfirmed: false,
        fields: state.fields ? { ...state.fields, doNotCall: false } : null,
      }
    case 'LeadMarkedDoNotCall':
      return {
        ...state,
        doNotCall: true,
        fields: state.fields ? { ...state.fields, doNotCall: true } : null,
      }
    case 'LeadPhoneConflict':
      // A record of what was asked; a number that replaced the stored one is in the LeadUpdated beside it.
      return state
    case 'TextReceived':
      return { ...state, textsReceived: [...state.textsReceived, event.data.messageId] }
    case 'LeadReplied':
      return { ...state, replies: state.replies + 1, lastReplyAt: event.data.repliedAt }
    case 'TextReplyClaimed': {
      const confirmation = event.data.kind === 'opt_out_confirmation'
      const number = confirmation ? state.suppressed[event.data.to] : undefined
      return {
        ...state,
        textReplies: { ...state.textReplies, [event.data.replyTo]: 'claimed' },
        // Older logs confirmed the lead's opt-out only, whatever number it came from.
        optOutConfirmed: state.optOutConfirmed || (confirmation && (state.fields === null || event.data.to === state.fields.phone)),
        ...(number === undefined ? {} : { suppressed: { ...state.suppressed, [event.data.to]: { ...number, confirmed: true } } }),
      }
    }
    case 'NumberSuppressed':
      return { ...state, suppressed: { ...state.suppressed, [event.data.phone]: { source: event.data.source, at: event.data.at, confirmed: false } } }
    case 'NumberSuppressionCleared': {
      const { [event.data.phone]: _cleared, ...suppressed } = state.suppressed
      return { ...state, suppressed }
    }
    case 'TextReplySent':
      return { ...state, textReplies: { ...state.textReplies, [event.data.replyTo]: 'sent' } }
    case 'TextReplyFailed':
      return { ...state, textReplies: { ...state.textReplies, [event.data.replyTo]: 'failed' } }
    default: {
      const _: never = event
      return state
    }
  }
}

/** Intake's own events for a command; speed to lead and the follow-up a do-not-call stops are the lead decider's to add. */
export function decideIntake(command: IntakeCommand, state: IntakeState, now: Date): IntakeEvent[] {
  const at = now.toISOString()
  switch (command.type) {
    case 'ReceiveLead': {
      const { fields } = command
      if (!state.exists || !state.fields) {
        // One event says it all when nothing else is decided: the lead, its list and why speed to lead did not call.
        const received: LeadReceived = {
          type: 'LeadReceived',
          data: { leadId: command.newLeadId, accountId: command.accountId, fields, receivedAt: at, ...warningsOf(command), ...(command.list === false ? {} : { list: INBOUND_LEADS }), ...extrasOf(command) },
        }
        return [received]
      }
      const current = state.fields
      const conflict = phoneConflict(state, fields.phone, fields.phoneRaw, 'webhook', at)
      // Another full number is another person: the conflict is recorded and the lead is left as it was (no rename, no flag, no list).
      if (conflict?.data.kept === true) return [conflict]
      const industryFields = Object.fromEntries(
        Object.entries(fields.industryFields).filter(([k, v]) => current.industryFields[k] !== v),
      )
      const extraFields = fields.extraFields.filter(
        (extra) => !current.extraFields.some((seen) => seen.name === extra.name && sameValue(seen.value, extra.value)),
      )
      const changes = diffFields(current, fields, state.doNotCall, command.derived ?? [])
      const warnings = [...(command.warnings ?? [])]
      // A number on record that is not valid is replaced by a valid one with the same last ten digits, and says so.
      if (conflict !== null) warnings.push({ code: 'phone_conflict', field: 'phone', message: conflict.data.message })
      // Every submission is recorded, even one that changes nothing: it is a touch the auditor can see.
      const events: IntakeEvent[] = [
        {
          type: 'LeadUpdated',
          data: { leadId: state.leadId, changes, industryFields, extraFields, updatedAt: at, ...warningsOf({ warnings }), ...extrasOf(command) },
        },
      ]
      if (conflict !== null) events.push(conflict)
      if (command.list !== false && !state.lists.includes(INBOUND_LEADS.listName)) {
        events.push({ type: 'LeadAddedToList', data: { leadId: state.leadId, ...INBOUND_LEADS } })
      }
      return events
    }
    case 'EditLead': {
      if (!state.exists || !state.fields) throw new DomainError('lead_not_found', 'lead not found')
      const edit = decideEdit(command, state.leadId, state.fields, at)
      return edit === null ? [] : [{ type: 'LeadEdited', data: edit }]
    }
    case 'AddNote':
      if (!state.exists) throw new DomainError('lead_not_found', 'lead not found')
      return [{ type: 'NoteAdded', data: { leadId: state.leadId, ...decideNote(command, at) } }]
    case 'ClearDoNotCall': {
      const phone = command.phone ?? state.fields?.phone
      const number = phone === undefined ? undefined : state.suppressed[phone]
      if (!state.exists && number === undefined) throw new DomainError('lead_not_found', 'lead not found')
      // Another full number is another person: clearing it leaves the lead's own flag as it is.
      const own = state.exists && phone === state.fields?.phone
      const events: IntakeEvent[] = []
      if (own && state.doNotCall) events.push({ type: 'LeadDoNotCallCleared', data: { leadId: state.leadId, clearedAt: at } })
      if (phone !== undefined && number !== undefined) events.push({ type: 'NumberSuppressionCleared', data: { leadId: state.leadId, phone, at } })
      return events
    }
    case 'MarkDoNotCall': {
      if (!state.exists) throw new DomainError('lead_not_found', 'lead not found')
      if (state.doNotCall) return []
      return [{ type: 'LeadMarkedDoNotCall', data: { leadId: state.leadId, markedAt: at, ...(command.source !== undefined ? { source: command.source } : {}) } }]
    }
    case 'ReceiveText': {
      if (state.textsReceived.includes(command.messageId)) return []
      const events: IntakeEvent[] = []
      const leadId = state.exists ? state.leadId : command.newLeadId
      // A person first met by a text: kept for the account, not listed in Inbound Leads, never called by speed to lead.
      if (!state.exists) events.push({ type: 'LeadReceived', data: { leadId, accountId: command.accountId, fields: command.fields, receivedAt: at } })
      // The text acts for its sender only: a number sharing the lead's last ten digits but not its full number is not the lead.
      const sender = command.fields.phone
      const fromLead = !state.exists || state.fields?.phone === sender
      const keyword = textKeyword(command.body)
      events.push({
        type: 'TextReceived',
        data: {
          leadId, messageId: command.messageId, from: command.from, to: command.to, transcript: command.body, keyword, carrier: command.carrier, receivedAt: at,
          ...(fromLead ? {} : { otherNumber: true as const }),
        },
      })
      if (keyword === 'opt_out') {
        if (fromLead && !state.doNotCall) events.push({ type: 'LeadMarkedDoNotCall', data: { leadId, markedAt: at, source: 'sms_keyword' } })
        if (state.suppressed[sender] === undefined) events.push({ type: 'NumberSuppressed', data: { leadId, phone: sender, source: 'sms_keyword', messageId: command.messageId, at } })
      }
      // START and UNSTOP are keywords too: carrier vocabulary, not a person asking to talk. Another number's reply is not the lead's.
      if (keyword === null && fromLead) events.push({ type: 'LeadReplied', data: { leadId, messageId: command.messageId, repliedAt: at } })
      return events
    }
    case 'ClaimTextReply': {
      if (!state.exists) throw new DomainError('lead_not_found', 'lead not found')
      if (state.textReplies[command.replyTo] !== undefined) return []
      if (command.kind === 'opt_out_confirmation' && !optOutToConfirm(state, command.to)) return []
      const { replyTo, kind, from, to, body, node } = command
      return [{ type: 'TextReplyClaimed', data: { leadId: state.leadId, replyTo, kind, from, to, body, node, at } }]
    }
    case 'RecordTextReply': {
      if (state.textReplies[command.replyTo] !== 'claimed') return []
      const { replyTo, outcome } = command
      return outcome.sent
        ? [{ type: 'TextReplySent', data: { leadId: state.leadId, replyTo, messageId: outcome.messageId, carrier: outcome.carrier, at } }]
        : [{ type: 'TextReplyFailed', data: { leadId: state.leadId, replyTo, failure: outcome.failure, message: outcome.message, at } }]
    }
    default: {
      const _: never = command
      throw new DomainError('unknown_command', `the intake slice has no command ${(command as { type: string }).type}`)
    }
  }
}
