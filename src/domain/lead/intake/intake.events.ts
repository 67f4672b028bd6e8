/** The intake slice's events on the lead's stream: the person as submitted, grouped and flagged do-not-call. */
import type { DomainEvent } from '../../shared/decider.ts'
import type { SpeedToLeadSkip } from '../calls/calls.events.ts'
import type { IntakeWarning, LeadFields } from './normalize-lead-input.ts'

export const INBOUND_LEADS = { listId: 'inbound-leads', listName: 'Inbound Leads' } as const

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
  }
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
  }
>
export interface LeadList {
  readonly listId: string
  readonly listName: string
}
/** A lead grouped into a list after it arrived (a new lead's own list is on its LeadReceived). */
export type LeadAddedToList = DomainEvent<'LeadAddedToList', { leadId: string } & LeadList>
export type LeadDoNotCallCleared = DomainEvent<'LeadDoNotCallCleared', { leadId: string; clearedAt: string }>
/** Marked do-not-call by the account (a tool or the operator), as opposed to by the sender's own flag. */
export type LeadMarkedDoNotCall = DomainEvent<'LeadMarkedDoNotCall', { leadId: string; markedAt: string }>

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

export type IntakeEvent = LeadReceived | LeadUpdated | LeadAddedToList | LeadDoNotCallCleared | LeadMarkedDoNotCall | LeadPhoneConflict

// Every type of the union, once: the compiler refuses a missing or a stray one.
const INTAKE_EVENT_TYPES: { readonly [T in IntakeEvent['type']]: true } = {
  LeadReceived: true, LeadUpdated: true, LeadAddedToList: true, LeadDoNotCallCleared: true, LeadMarkedDoNotCall: true, LeadPhoneConflict: true,
}

export function isIntakeEvent(event: { readonly type: string }): event is IntakeEvent {
  return Object.hasOwn(INTAKE_EVENT_TYPES, event.type)
}
