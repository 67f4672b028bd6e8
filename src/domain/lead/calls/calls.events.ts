/** The calls slice's events on the lead's stream: decisions to ring, what the carrier did, follow-ups. */
import type { DomainEvent } from '../../shared/decider.ts'
import { printable, type EventSummaries } from '../../shared/printable.ts'
import { effectOf, type Effect } from '../../shared/effect.ts'

export type CallPurpose = 'speed_to_lead' | 'follow_up' | 'place_call'

/** What the lead chose in the menu of a human answer. */
export type MenuChoice = 'connect' | 'callback' | 'opt_out' | 'none'

/** Why speed to lead did not call: the troubleshooting answer of spec §4.1.7. */
export interface SpeedToLeadSkip {
  readonly reason: string
  readonly message: string
  readonly nextAllowedAt: string | null
  /** The calling rule that refused (`FL 501.616`, docs/dialing.md); absent in older events and when none did. */
  readonly rule?: string
}
/**
 * Speed to lead did not call, recorded apart from the lead (older logs; a new lead now carries it
 * as LeadReceived's `speedToLeadSkipped`).
 */
export type SpeedToLeadSkipped = DomainEvent<'SpeedToLeadSkipped', { leadId: string; skippedAt: string } & SpeedToLeadSkip>
/** The decision to ring this person once. Exactly one exists per decision id, on any number of nodes. */
export type CallDecided = DomainEvent<
  'CallDecided',
  {
    leadId: string
    decisionId: string
    purpose: CallPurpose
    attempt: number
    from: string
    to: string
    decidedAt: string
    idempotencyKey: string | null
    /**
     * Click-to-call from the console: the owner's numbers this call rings first, in turn (agent-first for
     * this call, whatever the account answers with); the lead is dialed once one of them pressed 1.
     */
    ownerNumbers?: string[]
  }
>
/** Recorded before the carrier is asked, so a crash leaves "outcome unknown", never a second ring. */
export type CallAttemptStarted = DomainEvent<'CallAttemptStarted', { decisionId: string; node: string; startedAt: string }>
/**
 * `machineDetection`: the carrier was asked to tell a person from a machine (absent on older events: no).
 * `ownerLeg`: agent-first, this call rings the owner's number `to` (0: the first of the account's
 * owner numbers), not the lead: its statuses and machine verdicts are the owner's.
 */
export type CallPlaced = DomainEvent<
  'CallPlaced',
  { decisionId: string; callId: string; carrier: string; placedAt: string; machineDetection?: boolean; ownerLeg?: number; to?: string }
>
export type CallFailed = DomainEvent<
  'CallFailed',
  { decisionId: string; failure: string; message: string; carrierCode: number | null; failedAt: string }
>
export type CallOutcomeUnknown = DomainEvent<'CallOutcomeUnknown', { decisionId: string; reason: string; at: string }>
/**
 * The decision is never carried out: the log was restored from a backup taken before it was known to
 * have gone out (`reason`: `restored_from_backup`), so it may have rung already. Follow-up goes on
 * from its next step.
 */
export type CallExpired = DomainEvent<'CallExpired', { decisionId: string; reason: string; at: string }>
export type CallAnswered = DomainEvent<'CallAnswered', { decisionId: string; callId: string; answeredBy: string | null; at: string }>
export type CallNotAnswered = DomainEvent<'CallNotAnswered', { decisionId: string; callId: string; status: string; at: string }>
export type CallCompleted = DomainEvent<'CallCompleted', { decisionId: string; callId: string; durationSeconds: number | null; at: string }>
/** Stored for the account's own records; never returned by any tool (spec §1.7, recordings-policy.ts). */
export type CallRecordingAvailable = DomainEvent<'CallRecordingAvailable', { decisionId: string; callId: string; recordingUrl: string; at: string }>
/** Stored for the account's own records; never returned by any tool (spec §1.7, recordings-policy.ts). */
export type CallTranscriptAvailable = DomainEvent<'CallTranscriptAvailable', { decisionId: string; callId: string; transcript: string; at: string }>
/**
 * Answering-machine detection heard a machine (or a fax), not the lead: not an answer, so follow-up
 * goes on. `answeredBy`: machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax.
 */
export type CallReachedMachine = DomainEvent<'CallReachedMachine', { decisionId: string; callId: string; answeredBy: string; at: string }>
/** Claimed before the carrier is asked to play the message into the live call: never a second one. */
export type VoicemailStarted = DomainEvent<'VoicemailStarted', { decisionId: string; callId: string; node: string; message: 'text' | 'recording'; at: string }>
export type VoicemailLeft = DomainEvent<'VoicemailLeft', { decisionId: string; callId: string; at: string }>
export type VoicemailFailed = DomainEvent<'VoicemailFailed', { decisionId: string; callId: string; failure: string; message: string; at: string }>
/** A machine answered and no message was left (`voicemail_off`, `voicemail_limit`, `fax`, `no_message_end`): the call is hung up. */
export type VoicemailSkipped = DomainEvent<'VoicemailSkipped', { decisionId: string; callId: string; reason: string; message: string; at: string }>
/** The lead's key in the menu: `connect` (1), `callback` (2), `opt_out` (9), `none` (any other). */
export type MenuKeyPressed = DomainEvent<'MenuKeyPressed', { decisionId: string; callId: string; digit: string; choice: MenuChoice; at: string }>
/** The lead asked to be called back; follow-up calls at `callbackAt` (inside calling hours). */
export type CallbackRequested = DomainEvent<'CallbackRequested', { decisionId: string; callbackAt: string; at: string }>
/**
 * The account (a tool, on the account's behalf) scheduled a call back at `callbackAt`, inside calling
 * hours as the one contact policy read it: follow-up calls then, as after a lead's own request (a
 * FollowUpScheduled in the same append). Not a CallbackRequested: the lead did not ask in a call, so
 * no owner alert and no call of its own.
 */
export type CallbackScheduled = DomainEvent<'CallbackScheduled', { leadId: string; callbackAt: string; replacedDueAt: string | null; at: string }>
/** The lead's follow-up cadence is paused: a pending follow-up stays recorded and is not claimed until FollowUpResumed. */
export type FollowUpPaused = DomainEvent<'FollowUpPaused', { leadId: string; at: string }>
export type FollowUpResumed = DomainEvent<'FollowUpResumed', { leadId: string; at: string }>
/** How the owner's leg of a connect ended: `connected` when the owner picked up and the two talked. */
export type OwnerConnectEnded = DomainEvent<'OwnerConnectEnded', { decisionId: string; connected: boolean; status: string; at: string }>
/** Agent-first: the next owner number is rung for the same decision, claimed before the carrier is asked. */
export type OwnerLegStarted = DomainEvent<'OwnerLegStarted', { decisionId: string; leg: number; to: string; node: string; at: string }>
/**
 * Agent-first: the owner's leg ended without a yes, so the lead is not dialed from it. `reason`:
 * owner_voicemail, no_answer, busy, no_key, declined, lead_not_allowed (`refusal`: may-call's code),
 * call_failed. `nextLeg`: the owner number rung next, or null when the call is over (follow-up decides).
 */
export type AgentUnavailable = DomainEvent<
  'AgentUnavailable',
  { decisionId: string; callId: string | null; leg: number; reason: string; message: string; refusal?: string; nextLeg: number | null; at: string }
>
/**
 * Agent-first with `then=assistant`: no owner number accepted and the lead may be called now, so the
 * lead is called directly for the same decision and the assistant takes the call if a person answers.
 * Claimed in the append that records the last AgentUnavailable, before the carrier is asked: once.
 */
export type AssistantFallbackStarted = DomainEvent<'AssistantFallbackStarted', { decisionId: string; to: string; node: string; at: string }>
/** Agent-first: a person on the owner's leg pressed 1 and the lead may be called now: the lead is dialed into that call, once. */
export type LeadDialStarted = DomainEvent<'LeadDialStarted', { decisionId: string; callId: string; leg: number; to: string; at: string }>
/**
 * `attempt`: the call attempt it would be. `textStep`: the policy's step (from 1) is a text step, as
 * the policy read when scheduled (absent for a call, and in older events); `afterDecisionId` is then
 * the call or the text it follows.
 */
export type FollowUpScheduled = DomainEvent<
  'FollowUpScheduled',
  /** `connectMissed`: the lead asked for a person (menu key 1, the assistant's transfer) and reached nobody: called back although they answered. */
  { leadId: string; attempt: number; dueAt: string; afterDecisionId: string; textStep?: number; connectMissed?: true }
>
/** `rule`: the calling rule that moved it (`FL 501.616`); absent in older events and when none did. */
export type FollowUpRescheduled = DomainEvent<'FollowUpRescheduled', { attempt: number; dueAt: string; reason: string; message: string; rule?: string }>
export type FollowUpStopped = DomainEvent<'FollowUpStopped', { reason: string; message: string; at: string }>

export type CallEvent =
  | SpeedToLeadSkipped
  | CallDecided
  | CallAttemptStarted
  | CallPlaced
  | CallFailed
  | CallOutcomeUnknown
  | CallExpired
  | CallAnswered
  | CallNotAnswered
  | CallCompleted
  | CallRecordingAvailable
  | CallTranscriptAvailable
  | CallReachedMachine
  | VoicemailStarted
  | VoicemailLeft
  | VoicemailFailed
  | VoicemailSkipped
  | MenuKeyPressed
  | CallbackRequested
  | CallbackScheduled
  | FollowUpPaused
  | FollowUpResumed
  | OwnerConnectEnded
  | OwnerLegStarted
  | AgentUnavailable
  | AssistantFallbackStarted
  | LeadDialStarted
  | FollowUpScheduled
  | FollowUpRescheduled
  | FollowUpStopped

export function isCallEvent(event: { readonly type: string }): event is CallEvent {
  return Object.hasOwn(CALL_SUMMARIES, event.type)
}

const MENU_CHOICE: Readonly<Record<string, string>> = { connect: 'connect me now', callback: 'call me later', opt_out: 'stop calling me', none: 'no choice' }
const PURPOSE: Readonly<Record<string, string>> = { speed_to_lead: 'speed to lead', follow_up: 'follow-up', place_call: 'place_call tool' }

function ruleText(rule: string | undefined): string {
  return rule === undefined ? '' : `, rule ${printable(rule)}`
}

/** Why speed to lead did not call, in a line (also part of a new lead's LeadReceived line). */
export function speedToLeadSkipLine(skip: SpeedToLeadSkip): string {
  return `speed to lead did not call: ${printable(skip.message)} (${printable(skip.reason)}${ruleText(skip.rule)})${skip.nextAllowedAt ? `; next allowed ${printable(skip.nextAllowedAt)}` : ''}`
}

// Every type of the union, once (the compiler refuses a missing or a stray one): also what `is…Event` checks.
export const CALL_SUMMARIES: EventSummaries<CallEvent> = {
  SpeedToLeadSkipped: (d) => speedToLeadSkipLine(d),
  CallDecided: (d) =>
    `call decided: ${d.ownerNumbers !== undefined ? 'click-to-call from the console' : (PURPOSE[d.purpose] ?? printable(d.purpose))}, attempt ${d.attempt}, ${printable(d.from)} → ${printable(d.to)}${d.idempotencyKey !== null ? ' (idempotency key given)' : ''}${d.ownerNumbers !== undefined ? `; the owner (${d.ownerNumbers.map((n) => printable(n)).join(', ')}) is rung first` : ''}`,
  CallAttemptStarted: (d) => `call attempt started on node ${printable(d.node)}`,
  CallPlaced: (d) =>
    `call placed${d.ownerLeg !== undefined ? ` to owner number ${d.ownerLeg + 1}${d.to !== undefined ? ` (${printable(d.to)})` : ''}, before the lead,` : ''} through ${printable(d.carrier)} (call ${printable(d.callId)})`,
  CallFailed: (d) => `call failed: ${printable(d.failure)}: ${printable(d.message)}${d.carrierCode !== null ? ` (carrier code ${d.carrierCode})` : ''}`,
  CallOutcomeUnknown: (d) => `call outcome unknown: ${printable(d.reason)} (never retried)`,
  CallExpired: (d) => `call expired, never dialed: ${printable(d.reason)}`,
  CallAnswered: (d) => `call answered${d.answeredBy ? ` (by ${printable(d.answeredBy)})` : ''}`,
  CallNotAnswered: (d) => `call not answered: ${printable(d.status)}`,
  CallCompleted: (d) => `call completed${d.durationSeconds !== null ? ` after ${d.durationSeconds} s` : ''}`,
  CallRecordingAvailable: () => 'recording stored (not shown)',
  CallTranscriptAvailable: () => 'transcript stored (not shown)',
  CallReachedMachine: (d) => `a machine answered (${printable(d.answeredBy)}): not the lead`,
  VoicemailStarted: (d) => `voicemail started on node ${printable(d.node)} (${d.message === 'recording' ? 'the recording' : 'the spoken message'})`,
  VoicemailLeft: () => 'voicemail left',
  VoicemailFailed: (d) => `voicemail not left: ${printable(d.failure)}: ${printable(d.message)}`,
  VoicemailSkipped: (d) => `no voicemail: ${printable(d.message)} (${printable(d.reason)})`,
  MenuKeyPressed: (d) => `the lead pressed ${printable(d.digit)}: ${MENU_CHOICE[d.choice] ?? printable(d.choice)}`,
  CallbackRequested: (d) => `callback requested for ${printable(d.callbackAt)}`,
  CallbackScheduled: (d) => `callback scheduled for ${printable(d.callbackAt)}${d.replacedDueAt !== null ? ` (in place of the follow-up due ${printable(d.replacedDueAt)})` : ''}`,
  FollowUpPaused: () => 'follow-up paused',
  FollowUpResumed: () => 'follow-up resumed',
  OwnerConnectEnded: (d) => (d.connected ? 'connected to the owner' : `not connected to the owner (${printable(d.status)})`),
  OwnerLegStarted: (d) => `ringing owner number ${d.leg + 1} (${printable(d.to)}) on node ${printable(d.node)}`,
  AgentUnavailable: (d) =>
    `owner number ${d.leg + 1} did not take the lead: ${printable(d.message)} (${printable(d.reason)}${d.refusal !== undefined ? `: ${printable(d.refusal)}` : ''}); ${d.nextLeg !== null ? `ringing owner number ${d.nextLeg + 1}` : 'the lead was not dialed'}`,
  AssistantFallbackStarted: (d) => `no owner number took the lead: calling the lead (${printable(d.to)}) for the assistant, on node ${printable(d.node)}`,
  LeadDialStarted: (d) => `owner number ${d.leg + 1} pressed 1: dialing the lead (${printable(d.to)})`,
  FollowUpScheduled: (d) =>
    d.textStep === undefined
      ? `follow-up scheduled: attempt ${d.attempt} due ${printable(d.dueAt)}${d.connectMissed === true ? ' (the lead asked for a person and reached nobody)' : ''}`
      : `follow-up scheduled: text step ${d.textStep} due ${printable(d.dueAt)}`,
  FollowUpRescheduled: (d) => `follow-up moved: attempt ${d.attempt} due ${printable(d.dueAt)}: ${printable(d.message)} (${printable(d.reason)}${ruleText(d.rule)})`,
  FollowUpStopped: (d) => `follow-ups stopped: ${printable(d.message)} (${printable(d.reason)})`,
}

/**
 * The dialer's effect: a call decision, claimed once before the carrier is asked, ended by what the
 * carrier did, or refused as it went out (CallFailed with no claim: calling hours had closed, do-not-call).
 */
export const CALL_EFFECT = effectOf<CallEvent>()({
  name: 'dialer',
  decision: 'CallDecided',
  decidedAt: 'decidedAt',
  id: 'decisionId',
  claims: { CallAttemptStarted: 'startedAt' },
  outcomes: ['CallPlaced', 'CallFailed', 'CallOutcomeUnknown', 'CallExpired'],
})

/** The slice's effects: the claims read model follows each (lead.decider.ts gathers every slice's). */
export const CALL_EFFECTS: readonly Effect[] = [CALL_EFFECT]
