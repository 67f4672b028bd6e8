/** Events of the `lead-{accountId}-{last10}` stream: one person's whole history. */
import type { DomainEvent } from '../shared/decider.ts'
import type { LeadFields } from './intake/normalize-lead-input.ts'

export const INBOUND_LEADS = { listId: 'inbound-leads', listName: 'Inbound Leads' } as const

/** The core fields a later submission may change (identity fields excepted). */
export type LeadFieldChanges = Partial<Omit<LeadFields, 'phoneLast10' | 'phoneRaw' | 'industryFields' | 'extraFields'>>

export type LeadReceived = DomainEvent<
  'LeadReceived',
  { leadId: string; accountId: string; fields: LeadFields; receivedAt: string }
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
  }
>
export type LeadAddedToList = DomainEvent<'LeadAddedToList', { leadId: string; listId: string; listName: string }>
export type LeadDoNotCallCleared = DomainEvent<'LeadDoNotCallCleared', { leadId: string; clearedAt: string }>
/** Marked do-not-call by the account (a tool or the operator), as opposed to by the sender's own flag. */
export type LeadMarkedDoNotCall = DomainEvent<'LeadMarkedDoNotCall', { leadId: string; markedAt: string }>

export type LeadEvent = LeadReceived | LeadUpdated | LeadAddedToList | LeadDoNotCallCleared | LeadMarkedDoNotCall

export function leadStream(accountId: string, phoneLast10: string): string {
  return `lead-${accountId}-${phoneLast10}`
}

/** Parses `lead-{accountId}-{last10}`; account ids never contain a dash. */
export function parseLeadStream(stream: string): { accountId: string; phoneLast10: string } | null {
  const match = /^lead-([^-]+)-(\d{10})$/.exec(stream)
  return match ? { accountId: match[1] as string, phoneLast10: match[2] as string } : null
}
