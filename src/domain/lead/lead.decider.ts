/**
 * The lead aggregate: one person per account and phone (last ten digits). The first submission
 * receives the lead and groups it into Inbound Leads; later ones record only what changed.
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import type { IntakeWarning, LeadFields } from './intake/normalize-lead-input.ts'
import { mergeExtraFields } from './intake/extra-fields.ts'
import { joinName, namesAgree } from './intake/full-name.ts'
import { INBOUND_LEADS, type CallEvent, type LeadEvent, type LeadFieldChanges, type LeadReceived } from './lead.events.ts'
import type { AccountSettings } from '../account/account-settings.ts'
import { INITIAL_DIALING, decideCalls, evolveCalls, phoneConflict, speedToLeadOutcome, type CallCommand, type DialingState } from './calls/calls.decider.ts'
import { INITIAL_PAYMENTS, decidePayments, evolvePayments, isPaymentCommand, isPaymentEvent, type PaymentCommand, type PaymentsState } from './payments/payments.decider.ts'

export type LeadCommand =
  | {
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
       * atomically. Absent (place_call's new person), no speed to lead is decided.
       */
      speedToLead?: { settings: AccountSettings; decisionId: string }
    }
  | { type: 'ClearDoNotCall' }
  | { type: 'MarkDoNotCall' }
  | CallCommand
  | PaymentCommand

export interface LeadState {
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
  readonly dialing: DialingState
  /** Pay-links asked of this person and how they settled (lead-payments.ts). */
  readonly payments: PaymentsState
  /** What intake said about the latest submission (phone_not_valid, phone_conflict, …). */
  readonly warnings: readonly IntakeWarning[]
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

/** The submission's warnings as an event carries them: only when there are any, so most events stay as they were. */
function warningsOf(command: { readonly warnings?: readonly IntakeWarning[] }): { warnings?: readonly IntakeWarning[] } {
  return command.warnings !== undefined && command.warnings.length > 0 ? { warnings: command.warnings } : {}
}

/** A lead that becomes do-not-call stops its pending follow-up at once. */
function stopFollowUp(state: LeadState, at: string): LeadEvent[] {
  if (!state.dialing.pendingFollowUp) return []
  return [{ type: 'FollowUpStopped', data: { reason: 'do_not_call', message: 'the lead became do-not-call', at } }]
}

export const leadDecider: Decider<LeadCommand, LeadEvent, LeadState> = {
  initialState: () => ({
    exists: false,
    leadId: '',
    accountId: '',
    fields: null,
    doNotCall: false,
    lists: [],
    receivedAt: '',
    updatedAt: '',
    submissions: 0,
    dialing: INITIAL_DIALING,
    payments: INITIAL_PAYMENTS,
    warnings: [],
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'LeadReceived': {
        const { list, speedToLeadSkipped } = event.data
        return {
          ...state,
          lists: list === undefined || state.lists.includes(list.listName) ? state.lists : [...state.lists, list.listName],
          dialing: speedToLeadSkipped === undefined ? state.dialing : { ...state.dialing, speedToLead: 'skipped', speedToLeadSkip: speedToLeadSkipped },
          exists: true,
          leadId: event.data.leadId,
          accountId: event.data.accountId,
          fields: event.data.fields,
          doNotCall: event.data.fields.doNotCall === true,
          receivedAt: event.data.receivedAt,
          updatedAt: event.data.receivedAt,
          submissions: 1,
          warnings: event.data.warnings ?? [],
        }
      }
      case 'LeadUpdated': {
        const fields = state.fields as LeadFields
        return {
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
        }
      }
      case 'LeadAddedToList':
        return state.lists.includes(event.data.listName) ? state : { ...state, lists: [...state.lists, event.data.listName] }
      case 'LeadDoNotCallCleared':
        return {
          ...state,
          doNotCall: false,
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
      default:
        if (isPaymentEvent(event)) return { ...state, payments: evolvePayments(state.payments, event) }
        return { ...state, dialing: evolveCalls(state.dialing, event as CallEvent) }
    }
  },

  decide(command, state, now) {
    const at = now.toISOString()
    switch (command.type) {
      case 'ReceiveLead': {
        const { fields } = command
        if (!state.exists || !state.fields) {
          // One event says it all when nothing else is decided: the lead, its list and why speed to lead did not call.
          const received: LeadReceived = {
            type: 'LeadReceived',
            data: { leadId: command.newLeadId, accountId: command.accountId, fields, receivedAt: at, ...warningsOf(command), ...(command.list === false ? {} : { list: INBOUND_LEADS }) },
          }
          if (command.list === false || !command.speedToLead) return [received]
          const outcome = speedToLeadOutcome(leadDecider.evolve(state, received), command.speedToLead.settings, command.speedToLead.decisionId, now)
          if ('type' in outcome) return [received, outcome]
          return [{ ...received, data: { ...received.data, speedToLeadSkipped: outcome } }]
        }
        const current = state.fields
        const industryFields = Object.fromEntries(
          Object.entries(fields.industryFields).filter(([k, v]) => current.industryFields[k] !== v),
        )
        const extraFields = fields.extraFields.filter(
          (extra) => !current.extraFields.some((seen) => seen.name === extra.name && sameValue(seen.value, extra.value)),
        )
        const changes = diffFields(current, fields, state.doNotCall, command.derived ?? [])
        const conflict = phoneConflict(state, fields.phone, fields.phoneRaw, 'webhook', at)
        const warnings = [...(command.warnings ?? [])]
        if (conflict !== null) {
          // One person, one number: a valid number on record is never replaced by another with the same last ten digits.
          if (conflict.data.kept) {
            delete changes.phone
            delete changes.phoneExtension
          }
          warnings.push({ code: 'phone_conflict', field: 'phone', message: conflict.data.message })
        }
        // Every submission is recorded, even one that changes nothing: it is a touch the auditor can see.
        const events: LeadEvent[] = [
          {
            type: 'LeadUpdated',
            data: { leadId: state.leadId, changes, industryFields, extraFields, updatedAt: at, ...warningsOf({ warnings }) },
          },
        ]
        if (conflict !== null) events.push(conflict)
        if (command.list !== false && !state.lists.includes(INBOUND_LEADS.listName)) {
          events.push({ type: 'LeadAddedToList', data: { leadId: state.leadId, ...INBOUND_LEADS } })
        }
        if (fields.doNotCall === true && !state.doNotCall) events.push(...stopFollowUp(state, at))
        return events
      }
      case 'ClearDoNotCall':
        if (!state.exists) throw new DomainError('lead_not_found', 'lead not found')
        if (!state.doNotCall) return []
        return [{ type: 'LeadDoNotCallCleared', data: { leadId: state.leadId, clearedAt: at } }]
      case 'MarkDoNotCall':
        if (!state.exists) throw new DomainError('lead_not_found', 'lead not found')
        if (state.doNotCall) return []
        return [{ type: 'LeadMarkedDoNotCall', data: { leadId: state.leadId, markedAt: at } }, ...stopFollowUp(state, at)]
      default:
        return isPaymentCommand(command) ? decidePayments(command, state, now) : decideCalls(command, state, now)
    }
  },
}
