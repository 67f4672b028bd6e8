/**
 * Calls to one lead: the part of the lead aggregate that decides to ring, records what the carrier
 * did, and schedules follow-ups. Deciding is separate from doing: a decision (`CallDecided`) is an
 * event appended with an expected revision, then the dialer claims it (`CallAttemptStarted`) before
 * asking the carrier, so a person is rung at most once per decision, on any number of nodes.
 */
import type { AccountSettings } from '../../account/account-settings.ts'
import { mayCall, type CallCheck, type CallTargetFacts } from '../../dialing/may-call.ts'
import { followUpDueAt, parseFollowUpPolicy, withinDailyLimit } from '../../dialing/follow-up-policy.ts'
import { DomainError } from '../../shared/decider.ts'
import { phoneConflict, type IntakeState } from '../intake/intake.decider.ts'
import type { LeadPhoneConflict, LeadReceived } from '../intake/intake.events.ts'
import { dialConnected, type CallStatusUpdate } from './call-status.ts'
import * as agentFirst from './agent-first.ts'
import { leadAttemptTimes } from './lead-attempts.ts'
import type { CallDecided, CallEvent, CallPurpose, FollowUpStopped, MenuChoice, SpeedToLeadSkip } from './calls.events.ts'

export type CallStage = 'decided' | 'started' | 'placed' | 'failed' | 'unknown' | 'expired'

export interface CallRecord {
  readonly decisionId: string
  readonly purpose: CallPurpose
  readonly attempt: number
  readonly from: string
  readonly to: string
  readonly decidedAt: string
  readonly idempotencyKey: string | null
  readonly stage: CallStage
  readonly startedAt: string | null
  readonly callId: string | null
  readonly carrier: string | null
  /** The furthest carrier status seen (statuses only move forward). */
  readonly status: string | null
  readonly answered: boolean
  readonly ended: boolean
  readonly failure: string | null
  /** Recording URLs and transcripts already stored, so a repeated callback does not store them twice. */
  readonly recordings: readonly string[]
  readonly transcripts: readonly string[]
  /** The carrier was asked to tell a person from a machine: only its answer (or a key) makes the call answered. */
  readonly machineDetection: boolean
  /** Who picked up, as answering-machine detection said (or `human` once a key was pressed). */
  readonly answeredBy: string | null
  /** A machine or a fax answered: not the lead. */
  readonly machine: boolean
  readonly voicemail: 'started' | 'left' | 'failed' | 'skipped' | null
  /** The lead's choice in the menu, once per call. */
  readonly menuChoice: MenuChoice | null
  /** After `connect`: whether the owner and the lead talked; null until the owner's leg ends. */
  readonly ownerConnected: boolean | null
  /** A follow-up was scheduled after this call (so its ending does not schedule another). */
  readonly followedUp: boolean
  /** When the lead asked on this call to be called back (pressed 2). */
  readonly callbackAt: string | null
  /** When the carrier or the lead last said how this call went (an answer, a machine, a key, its end); null while it is in flight. */
  readonly outcomeAt: string | null
  /** Agent-first: the owner's legs and where the call stands (agent-first.ts); null for a call that rings the lead first. */
  readonly agent: agentFirst.AgentFirstCall | null
}

export interface DialingState {
  readonly calls: Readonly<Record<string, CallRecord>>
  /** Decision ids in the order they were decided. */
  readonly order: readonly string[]
  readonly speedToLead: 'pending' | 'decided' | 'skipped'
  /** Why speed to lead did not call (its reason code), when it did not. */
  readonly speedToLeadSkip: SpeedToLeadSkip | null
  /** `textStep`: the step scheduled was a text step (its number), as FollowUpScheduled said; `connectMissed`: a call back after a connect that reached nobody. */
  readonly pendingFollowUp: { readonly attempt: number; readonly dueAt: string; readonly textStep?: number; readonly connectMissed?: true } | null
  readonly followUpStopped: string | null
  /** Last time something went out to the lead (a call placed). */
  readonly lastContactAt: string | null
  readonly answeredAt: string | null
  /** When the lead asked to be called back (pressed 2), until that call is decided. */
  readonly callbackAt: string | null
  /** When each voicemail to this lead was started: at most `voicemailPerDay` in any 24 hours. */
  readonly voicemailTimes: readonly string[]
  /** When the account paused the lead's follow-up cadence (pause_follow_up); null while it runs. */
  readonly followUpPaused: string | null
  /** Follow-up text steps decided so far (the texts slice holds the texts); with the follow-up calls, how far the policy has gone. */
  readonly followUpTexts: number
}

export const INITIAL_DIALING: DialingState = {
  calls: {},
  order: [],
  speedToLead: 'pending',
  speedToLeadSkip: null,
  pendingFollowUp: null,
  followUpStopped: null,
  lastContactAt: null,
  answeredAt: null,
  callbackAt: null,
  voicemailTimes: [],
  followUpPaused: null,
  followUpTexts: 0,
}

/** What the calls slice reads of the lead: who the person is, whether they may be called, and their calls. */
export type LeadWithCalls = IntakeState & { readonly dialing: DialingState }

export type CallCommand =
  /** `to`: the number place_call was asked to ring (E.164); the lead's own when absent. */
  | { type: 'DecidePlaceCall'; settings: AccountSettings; decisionId: string; idempotencyKey: string; to?: string; toRaw?: string }
  /** `decisionId`: the call's; `textId` (else `decisionId`) the text's when the step is a text step; `business`: the account's name, for its `{business}`. */
  | { type: 'ClaimFollowUp'; settings: AccountSettings; attempt: number; decisionId: string; textId?: string; business?: string }
  /** With `settings`, the call is checked again as it goes out (do-not-call, caller id, calling hours). */
  | { type: 'StartCallAttempt'; decisionId: string; node: string; settings?: AccountSettings }
  /** `ownerLeg`: agent-first, the call rings owner number `to` (that leg of the decision), not the lead. `machineDetection`: the carrier was asked to tell a person from a machine (the account's `amd`). */
  | { type: 'RecordCallPlaced'; decisionId: string; callId: string; carrier: string; ownerLeg?: number; to?: string; machineDetection?: boolean }
  | { type: 'RecordCallFailed'; decisionId: string; failure: string; message: string; carrierCode: number | null }
  | { type: 'RecordOutcomeUnknown'; decisionId: string; reason: string }
  /** A call decided (or claimed) before the backup a restore brought back, not known as placed: never dialed; with `settings`, follow-up takes its next step. */
  | { type: 'ExpireCall'; decisionId: string; reason: string; settings?: AccountSettings }
  /** `node` claims a voicemail when the status carries a machine verdict. */
  | { type: 'RecordCallStatus'; settings: AccountSettings; update: CallStatusUpdate; node?: string }
  /** Answering-machine detection's verdict on a call (Twilio's AnsweredBy); `node` claims a voicemail it decides to leave. */
  | { type: 'RecordAnsweredBy'; settings: AccountSettings; callId: string; answeredBy: string; node: string }
  /** How playing the voicemail into the live call went: null when it played, else why not. */
  | { type: 'RecordVoicemailOutcome'; decisionId: string; failure: { failure: string; message: string } | null }
  /** A key the lead pressed in the menu; `ownerNumber`: who `1` connects, null when the account has none. */
  | { type: 'PressMenuKey'; settings: AccountSettings; decisionId: string; digit: string; ownerNumber: string | null }
  /**
   * How the owner's leg of a connect ended (the carrier's dial status): after menu key 1, or after the
   * assistant's transfer (`transferred`, set by the lead decider from the assistant's record). With
   * `settings`, a connect that reached nobody schedules the call back.
   */
  | { type: 'RecordOwnerConnect'; decisionId: string; status: string; durationSeconds: number | null; settings?: AccountSettings; transferred?: boolean }
  /** Agent-first: the key pressed on owner leg `callId` ('' when none); `node` claims the next owner leg. */
  | { type: 'PressAgentKey'; settings: AccountSettings; decisionId: string; callId: string; digit: string; node: string }
  /** Agent-first: how the dial of the lead from the owner's leg ended (Twilio's DialCallStatus). */
  | { type: 'RecordLeadDial'; settings: AccountSettings; decisionId: string; status: string }
  /** Agent-first: the carrier refused the call to owner leg `leg` (it cannot have rung). */
  | { type: 'RecordOwnerLegFailed'; settings: AccountSettings; decisionId: string; leg: number; failure: string; message: string; node: string }
  /** The account schedules a call back at `callbackAt` (ISO): inside calling hours, not past, at most MAX_CALLBACK_AHEAD_MS ahead. */
  | { type: 'ScheduleCallback'; settings: AccountSettings; callbackAt: string }
  | { type: 'PauseFollowUp' }
  /** Lifts a pause; a pending follow-up that fell due meanwhile is moved to the next allowed moment. */
  | { type: 'ResumeFollowUp'; settings: AccountSettings }

// Every type of the union, once: the compiler refuses a missing or a stray one.
const CALL_COMMAND_TYPES: { readonly [T in CallCommand['type']]: true } = {
  DecidePlaceCall: true, ClaimFollowUp: true, StartCallAttempt: true, RecordCallPlaced: true, RecordCallFailed: true,
  RecordOutcomeUnknown: true, ExpireCall: true, RecordCallStatus: true, RecordAnsweredBy: true, RecordVoicemailOutcome: true, PressMenuKey: true, RecordOwnerConnect: true,
  PressAgentKey: true, RecordLeadDial: true, RecordOwnerLegFailed: true, ScheduleCallback: true, PauseFollowUp: true, ResumeFollowUp: true,
}

export function isCallCommand(command: { readonly type: string }): command is CallCommand {
  return Object.hasOwn(CALL_COMMAND_TYPES, command.type)
}

/** Carrier statuses in the order a call moves through them; the four endings share the last rank. */
const STATUS_RANK: Readonly<Record<string, number>> = {
  queued: 0,
  initiated: 1,
  ringing: 2,
  'in-progress': 3,
  completed: 4,
  busy: 4,
  'no-answer': 4,
  failed: 4,
  canceled: 4,
}
const NOT_ANSWERED = new Set(['busy', 'no-answer', 'failed', 'canceled'])
/** Machine detection's verdicts that mean a machine answered, and those where a message can follow (the greeting ended). */
const MACHINE_END = new Set(['machine_end_beep', 'machine_end_silence', 'machine_end_other'])
const MACHINES = new Set([...MACHINE_END, 'machine_start', 'fax'])
/** A lead who presses 2 is called back about this long after, inside calling hours. */
export const CALLBACK_AFTER_MS = 60 * 60 * 1000
/** How far ahead the account may schedule a callback: further out, the calling rules and the lead's interest are guesses. */
export const MAX_CALLBACK_AHEAD_MS = 30 * 24 * 60 * 60 * 1000

function update(state: DialingState, decisionId: string, change: Partial<CallRecord>): DialingState {
  const call = state.calls[decisionId]
  if (!call) return state
  return { ...state, calls: { ...state.calls, [decisionId]: { ...call, ...change } } }
}

/** Calls evolve on their own events, and on a new lead that carries speed to lead's answer. */
export function evolveCalls(state: DialingState, event: CallEvent | LeadReceived): DialingState {
  switch (event.type) {
    case 'LeadReceived': {
      const skip = event.data.speedToLeadSkipped
      return skip === undefined ? state : { ...state, speedToLead: 'skipped', speedToLeadSkip: skip }
    }
    case 'SpeedToLeadSkipped':
      return {
        ...state,
        speedToLead: 'skipped',
        speedToLeadSkip: { reason: event.data.reason, message: event.data.message, nextAllowedAt: event.data.nextAllowedAt, ...(event.data.rule === undefined ? {} : { rule: event.data.rule }) },
      }
    case 'CallDecided': {
      const d = event.data
      const call: CallRecord = {
        decisionId: d.decisionId, purpose: d.purpose, attempt: d.attempt, from: d.from, to: d.to, decidedAt: d.decidedAt,
        idempotencyKey: d.idempotencyKey, stage: 'decided', startedAt: null, callId: null, carrier: null, status: null,
        answered: false, ended: false, failure: null, recordings: [], transcripts: [],
        machineDetection: false, answeredBy: null, machine: false, voicemail: null, menuChoice: null, ownerConnected: null, followedUp: false,
        callbackAt: null, outcomeAt: null,
        agent: null,
      }
      return {
        ...state,
        calls: { ...state.calls, [d.decisionId]: call },
        order: [...state.order, d.decisionId],
        speedToLead: d.purpose === 'speed_to_lead' ? 'decided' : state.speedToLead,
        pendingFollowUp: d.purpose === 'follow_up' ? null : state.pendingFollowUp,
        callbackAt: d.purpose === 'follow_up' ? null : state.callbackAt,
      }
    }
    case 'CallAttemptStarted':
      return update(state, event.data.decisionId, { stage: 'started', startedAt: event.data.startedAt })
    case 'CallPlaced':
      return {
        ...update(state, event.data.decisionId, {
          stage: 'placed', callId: event.data.callId, carrier: event.data.carrier, status: 'queued', machineDetection: event.data.machineDetection === true,
          ...agentChange(state, event),
        }),
        // Ringing the owner first is no contact with the lead yet.
        lastContactAt: event.data.ownerLeg === undefined ? event.data.placedAt : state.lastContactAt,
      }
    case 'OwnerLegStarted':
    case 'AssistantFallbackStarted':
      return update(state, event.data.decisionId, agentChange(state, event))
    case 'AgentUnavailable':
      // After the last owner, no one took the call: that is its outcome (`agent_unavailable`).
      return update(state, event.data.decisionId, { ...agentChange(state, event), ...(event.data.nextLeg === null ? { outcomeAt: event.data.at } : {}) })
    case 'LeadDialStarted':
      return { ...update(state, event.data.decisionId, agentChange(state, event)), lastContactAt: event.data.at }
    case 'CallFailed':
      return update(state, event.data.decisionId, { stage: 'failed', failure: event.data.failure, ended: true, outcomeAt: event.data.failedAt })
    case 'CallOutcomeUnknown':
      return update(state, event.data.decisionId, { stage: 'unknown', ended: true, outcomeAt: event.data.at })
    case 'CallExpired':
      return update(state, event.data.decisionId, { stage: 'expired', failure: 'expired', ended: true, outcomeAt: event.data.at })
    case 'CallAnswered':
      return { ...update(state, event.data.decisionId, { answered: true, status: 'in-progress', answeredBy: event.data.answeredBy, outcomeAt: event.data.at }), answeredAt: event.data.at }
    case 'CallReachedMachine':
      return update(state, event.data.decisionId, { machine: true, answeredBy: event.data.answeredBy, outcomeAt: event.data.at })
    case 'VoicemailStarted':
      return { ...update(state, event.data.decisionId, { voicemail: 'started' }), voicemailTimes: [...state.voicemailTimes, event.data.at] }
    case 'VoicemailLeft':
      return update(state, event.data.decisionId, { voicemail: 'left', outcomeAt: event.data.at })
    case 'VoicemailFailed':
      return update(state, event.data.decisionId, { voicemail: 'failed', outcomeAt: event.data.at })
    case 'VoicemailSkipped':
      return update(state, event.data.decisionId, { voicemail: 'skipped', outcomeAt: event.data.at })
    case 'MenuKeyPressed':
      return update(state, event.data.decisionId, { menuChoice: event.data.choice, outcomeAt: event.data.at })
    case 'CallbackRequested':
      return { ...update(state, event.data.decisionId, { callbackAt: event.data.callbackAt, outcomeAt: event.data.at }), callbackAt: event.data.callbackAt }
    case 'CallbackScheduled':
      return { ...state, callbackAt: event.data.callbackAt }
    case 'FollowUpPaused':
      return { ...state, followUpPaused: event.data.at }
    case 'FollowUpResumed':
      return { ...state, followUpPaused: null }
    case 'OwnerConnectEnded':
      return update(state, event.data.decisionId, { ownerConnected: event.data.connected, outcomeAt: event.data.at })
    case 'CallNotAnswered':
      return update(state, event.data.decisionId, { status: event.data.status, ended: true, outcomeAt: event.data.at })
    case 'CallCompleted':
      return update(state, event.data.decisionId, { status: 'completed', ended: true, outcomeAt: event.data.at })
    case 'CallRecordingAvailable': {
      const seen = state.calls[event.data.decisionId]?.recordings ?? []
      return update(state, event.data.decisionId, { recordings: [...seen, event.data.recordingUrl] })
    }
    case 'CallTranscriptAvailable': {
      const seen = state.calls[event.data.decisionId]?.transcripts ?? []
      return update(state, event.data.decisionId, { transcripts: [...seen, event.data.transcript] })
    }
    case 'FollowUpScheduled':
      return {
        ...update(state, event.data.afterDecisionId, { followedUp: true }),
        pendingFollowUp: {
          attempt: event.data.attempt, dueAt: event.data.dueAt,
          ...(event.data.textStep === undefined ? {} : { textStep: event.data.textStep }),
          ...(event.data.connectMissed === true ? { connectMissed: true as const } : {}),
        },
        followUpStopped: null,
      }
    case 'FollowUpRescheduled': {
      // Moved, not changed: a text step stays one, a call back after a missed connect stays one.
      const textStep = state.pendingFollowUp?.textStep
      const missed = state.pendingFollowUp?.connectMissed === true ? { connectMissed: true as const } : {}
      return { ...state, pendingFollowUp: { attempt: event.data.attempt, dueAt: event.data.dueAt, ...(textStep === undefined ? {} : { textStep }), ...missed }, followUpStopped: null }
    }
    case 'FollowUpStopped':
      return { ...state, pendingFollowUp: null, followUpStopped: event.data.reason }
    default: {
      const _: never = event
      return state
    }
  }
}

function agentChange(state: DialingState, event: CallEvent & { data: { decisionId: string } }): Partial<CallRecord> {
  const call = state.calls[event.data.decisionId]
  return (call && agentFirst.agentFirstChange(call, event)) ?? {}
}

/** What the agent-first rules (agent-first.ts) need to know around a call, at `now`. */
function agentContext(state: LeadWithCalls, call: CallRecord, settings: AccountSettings, node: string, now: Date): agentFirst.AgentFirstContext {
  return {
    call, settings, node, now,
    pendingFollowUp: state.dialing.pendingFollowUp !== null,
    // The owner legs did not count toward the lead's cap: it is checked as the lead is about to ring.
    mayCallLead: () => mayCall(settings, leadCallTarget(state, call.purpose, call.to, call.decisionId), now),
    followUp: () => (state.dialing.answeredAt === null && !call.followedUp ? nextFollowUp(state, settings, call.decisionId, now) : []),
  }
}

function requireLead(state: LeadWithCalls): void {
  if (!state.exists || !state.fields) throw new DomainError('lead_not_found', 'lead not found')
}

function requireCall(state: LeadWithCalls, decisionId: string): CallRecord {
  const call = state.dialing.calls[decisionId]
  if (!call) throw new DomainError('call_not_found', `no call decision ${decisionId} on this lead`)
  return call
}

function targetFacts(state: LeadWithCalls, phone: string | undefined, purpose: CallPurpose): CallTargetFacts {
  const fields = state.fields
  const to = phone ?? fields?.phone ?? ''
  return {
    phone: to, ...(fields?.state ? { state: fields.state } : {}), doNotCall: state.doNotCall, suppressed: Object.hasOwn(state.suppressed, to),
    placeCall: purpose === 'place_call', ...(state.test ? { testLead: true } : {}),
  }
}

/** The texts decided to the lead (the texts slice's state, read by shape): a state's cap counts them with the calls. */
export type WithTexts = { readonly texts?: { readonly order: readonly string[]; readonly texts: Readonly<Record<string, { readonly decidedAt: string }>> } }

/**
 * What mayCall weighs for a new call to this lead, of this purpose, to `to` (the lead's own number
 * when absent): every call that rang the lead counts toward the daily limit (lead-attempts.ts), and
 * every text too toward a state's cap. `except`: a call being checked again, left out of its own count.
 */
export function leadCallTarget(state: LeadWithCalls & WithTexts, purpose: CallPurpose, to?: string, except?: string): CallTargetFacts {
  const texts = state.texts
  const textTimes = texts === undefined ? [] : texts.order.map((id) => texts.texts[id]?.decidedAt ?? '')
  return { ...targetFacts(state, to, purpose), attemptTimes: leadAttemptTimes(state.dialing, except), textTimes }
}

/** The same question again as a decided call goes out: its own number, the limit already counted. */
function decidedCallTarget(state: LeadWithCalls, call: CallRecord): CallTargetFacts {
  return targetFacts(state, call.to, call.purpose)
}

/** A lead that becomes do-not-call stops its pending follow-up at once. */
export function stopFollowUpForDoNotCall(state: DialingState, at: string): FollowUpStopped[] {
  if (!state.pendingFollowUp) return []
  return [{ type: 'FollowUpStopped', data: { reason: 'do_not_call', message: 'the lead became do-not-call', at } }]
}

const REPLIED = { reason: 'replied', message: 'the lead replied by text' } as const

/** A lead who texts back stops its pending follow-up at once, as an answer does. */
export function stopFollowUpForReply(state: DialingState, at: string): FollowUpStopped[] {
  if (!state.pendingFollowUp) return []
  return [{ type: 'FollowUpStopped', data: { ...REPLIED, at } }]
}

function decided(state: LeadWithCalls, settings: AccountSettings, decisionId: string, purpose: CallPurpose, at: string, idempotencyKey: string | null, to?: string): CallDecided {
  return {
    type: 'CallDecided',
    data: {
      leadId: state.leadId,
      decisionId,
      purpose,
      attempt: state.dialing.order.length + 1,
      from: settings.callerId as string,
      to: to ?? (state.fields as { phone: string }).phone,
      decidedAt: at,
      idempotencyKey,
    },
  }
}

/** The calls that rang the lead (every purpose; agent-first only once the lead was dialed): what the daily limit counts. */
function attemptTimes(state: LeadWithCalls): string[] {
  return leadAttemptTimes(state.dialing)
}

/** How many of the policy's steps were taken (follow-up calls, a callback among them, and text steps): the index of the next. */
function followUpStepsTaken(dialing: DialingState): number {
  return dialing.order.filter((id) => dialing.calls[id]?.purpose === 'follow_up').length + dialing.followUpTexts
}

/**
 * The text step the pending follow-up is, when it is one: the policy's next step (numbered from 1),
 * read when it falls due. A callback the lead asked for is always a call.
 */
export function pendingFollowUpText(dialing: DialingState, settings: AccountSettings): { readonly step: number; readonly template: string } | null {
  if (dialing.pendingFollowUp === null || dialing.callbackAt !== null || dialing.pendingFollowUp.connectMissed === true) return null
  const index = followUpStepsTaken(dialing)
  const template = parseFollowUpPolicy(settings.followUp).steps[index]?.text
  return template === undefined ? null : { step: index + 1, template }
}

/** A follow-up text step was decided (texts/): that step is taken, as a follow-up call's decision takes its step. */
export function followUpTextDecided(dialing: DialingState): DialingState {
  return { ...dialing, pendingFollowUp: null, followUpTexts: dialing.followUpTexts + 1 }
}

/**
 * After a call that was not answered, or a text step: the next follow-up per the account's policy,
 * or the reason there is none. A call step waits for the daily call limit; a text step does not
 * count toward it (the contact rules check it when it falls due).
 */
export function nextFollowUp(state: LeadWithCalls, settings: AccountSettings, afterDecisionId: string, now: Date): CallEvent[] {
  const at = now.toISOString()
  if (state.doNotCall) return [{ type: 'FollowUpStopped', data: { reason: 'do_not_call', message: 'the lead is do-not-call', at } }]
  // A reply ends the cadence for good, as an answer does: a later unanswered call starts no new one.
  if (state.lastReplyAt !== null) return [{ type: 'FollowUpStopped', data: { ...REPLIED, at } }]
  const policy = parseFollowUpPolicy(settings.followUp)
  const index = followUpStepsTaken(state.dialing)
  const step = policy.steps[index]
  if (!step) {
    const message = policy.steps.length === 0 ? 'follow-up is off for this account' : `all ${policy.steps.length} follow-ups were tried`
    return [{ type: 'FollowUpStopped', data: { reason: policy.steps.length === 0 ? 'policy_off' : 'attempts_exhausted', message, at } }]
  }
  const dueAt = followUpDueAt(step, now, settings.timeZone)
  const due = step.text === undefined ? withinDailyLimit(dueAt, attemptTimes(state), policy.maxPer24h) : dueAt
  const text = step.text === undefined ? {} : { textStep: index + 1 }
  return [{ type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt: due.toISOString(), afterDecisionId, ...text } }]
}

/**
 * Speed to lead's decision for an inbound lead that has just arrived (the state after its
 * LeadReceived): the call, or why there is none. The lead decider makes it part of receiving a new
 * lead, so it is decided once per person, ever, and never for a person first met by place_call.
 */
export function speedToLeadOutcome(state: LeadWithCalls, settings: AccountSettings, decisionId: string, now: Date): CallDecided | SpeedToLeadSkip {
  if (!settings.speedToLead) return { reason: 'speed_to_lead_off', message: 'speed to lead is off for this account', nextAllowedAt: null }
  const check = mayCall(settings, leadCallTarget(state, 'speed_to_lead'), now)
  if (!check.allowed) return { reason: check.reason as string, message: check.message, nextAllowedAt: check.nextAllowedAt, ...ruleOf(check) }
  return decided(state, settings, decisionId, 'speed_to_lead', now.toISOString(), null)
}

export function decideCalls(command: CallCommand, state: LeadWithCalls, now: Date): Array<CallEvent | LeadPhoneConflict> {
  const at = now.toISOString()
  switch (command.type) {
    case 'DecidePlaceCall': {
      requireLead(state)
      const existing = state.dialing.order.map((id) => state.dialing.calls[id] as CallRecord).find((c) => c.idempotencyKey === command.idempotencyKey)
      if (existing) return []
      const check = mayCall(command.settings, leadCallTarget(state, 'place_call', command.to), now)
      if (!check.allowed) throw callRefused(check)
      const call = decided(state, command.settings, command.decisionId, 'place_call', at, command.idempotencyKey, command.to)
      const conflict = command.to === undefined ? null : phoneConflict(state, command.to, command.toRaw ?? command.to, 'place_call', at)
      return conflict === null ? [call] : [conflict, call]
    }
    case 'ClaimFollowUp': {
      requireLead(state)
      const pending = state.dialing.pendingFollowUp
      // Claimed already (here or on another node), stopped, or superseded: nothing to do.
      if (!pending || pending.attempt !== command.attempt || new Date(pending.dueAt) > now) return []
      // A lead who answered is called again only at the time they asked for, or after asking for a person and reaching nobody.
      if (state.dialing.answeredAt !== null && state.dialing.callbackAt === null && pending.connectMissed !== true) {
        return [{ type: 'FollowUpStopped', data: { reason: 'answered', message: 'the lead answered', at } }]
      }
      const check = mayCall(command.settings, leadCallTarget(state, 'follow_up'), now)
      if (!check.allowed) return followUpHeld(check, pending.attempt, at)
      return [decided(state, command.settings, command.decisionId, 'follow_up', at, null)]
    }
    case 'StartCallAttempt': {
      const call = requireCall(state, command.decisionId)
      // Claimed before (by this or another node, or before a crash): never a second attempt.
      if (call.stage !== 'decided') return []
      // A call can wait its turn (pacing, a restart): the lead may have become do-not-call or the hours closed since.
      const check = command.settings ? mayCall(command.settings, decidedCallTarget(state, call), now) : null
      if (check && !check.allowed) {
        return [{ type: 'CallFailed', data: { decisionId: call.decisionId, failure: check.reason as string, message: `not dialed: ${check.message}`, carrierCode: null, failedAt: at } }]
      }
      return [{ type: 'CallAttemptStarted', data: { decisionId: call.decisionId, node: command.node, startedAt: at } }]
    }
    case 'RecordCallPlaced': {
      const call = requireCall(state, command.decisionId)
      if (call.stage !== 'started') return []
      const leg = command.ownerLeg === undefined ? {} : { ownerLeg: command.ownerLeg, ...(command.to !== undefined ? { to: command.to } : {}) }
      const detection = command.machineDetection === true ? { machineDetection: true } : {}
      return [{ type: 'CallPlaced', data: { decisionId: call.decisionId, callId: command.callId, carrier: command.carrier, placedAt: at, ...leg, ...detection } }]
    }
    case 'RecordCallFailed': {
      const call = requireCall(state, command.decisionId)
      if (call.stage !== 'started') return []
      return [{ type: 'CallFailed', data: { decisionId: call.decisionId, failure: command.failure, message: command.message, carrierCode: command.carrierCode, failedAt: at } }]
    }
    case 'RecordOutcomeUnknown': {
      const call = requireCall(state, command.decisionId)
      if (call.stage !== 'started') return []
      return [{ type: 'CallOutcomeUnknown', data: { decisionId: call.decisionId, reason: command.reason, at } }]
    }
    case 'ExpireCall': {
      const call = requireCall(state, command.decisionId)
      if (call.stage !== 'decided' && call.stage !== 'started') return []
      const expired: CallEvent = { type: 'CallExpired', data: { decisionId: call.decisionId, reason: command.reason, at } }
      // The expired call takes its step, as an unanswered one would: follow-up goes on from the next.
      const goesOn = command.settings !== undefined && state.dialing.pendingFollowUp === null && state.dialing.answeredAt === null && state.dialing.followUpStopped === null
      return goesOn ? [expired, ...nextFollowUp(state, command.settings as AccountSettings, call.decisionId, now)] : [expired]
    }
    case 'RecordCallStatus':
      return recordStatus(state, command.settings, command.update, command.node ?? 'unknown', now)
    case 'RecordAnsweredBy':
      return recordAnsweredBy(state, command.settings, command.callId, command.answeredBy, command.node, now)
    case 'RecordVoicemailOutcome': {
      const call = requireCall(state, command.decisionId)
      if (call.voicemail !== 'started' || call.callId === null) return []
      const ref = { decisionId: call.decisionId, callId: call.callId }
      return command.failure === null
        ? [{ type: 'VoicemailLeft', data: { ...ref, at } }]
        : [{ type: 'VoicemailFailed', data: { ...ref, failure: command.failure.failure, message: command.failure.message, at } }]
    }
    case 'PressMenuKey':
      return pressMenuKey(state, command.settings, command.decisionId, command.digit, command.ownerNumber, now)
    case 'RecordOwnerConnect': {
      const call = requireCall(state, command.decisionId)
      if ((call.menuChoice !== 'connect' && command.transferred !== true) || call.ownerConnected !== null) return []
      const connected = dialConnected(command.status) && (command.durationSeconds === null || command.durationSeconds > 0)
      const ended: CallEvent = { type: 'OwnerConnectEnded', data: { decisionId: call.decisionId, connected, status: command.status, at } }
      return connected || command.settings === undefined ? [ended] : [ended, ...connectMissedFollowUp(state, command.settings, call.decisionId, now)]
    }
    case 'PressAgentKey': {
      const call = requireCall(state, command.decisionId)
      return agentFirst.pressAgentKey(agentContext(state, call, command.settings, command.node, now), command.callId, command.digit)
    }
    case 'RecordLeadDial': {
      const call = requireCall(state, command.decisionId)
      return agentFirst.recordLeadDial(agentContext(state, call, command.settings, 'unknown', now), command.status)
    }
    case 'RecordOwnerLegFailed': {
      const call = requireCall(state, command.decisionId)
      return agentFirst.ownerLegFailed(agentContext(state, call, command.settings, command.node, now), command.leg, command.failure, command.message)
    }
    case 'ScheduleCallback':
      return scheduleCallback(state, command.settings, command.callbackAt, now)
    case 'PauseFollowUp':
      requireLead(state)
      return state.dialing.followUpPaused !== null ? [] : [{ type: 'FollowUpPaused', data: { leadId: state.leadId, at } }]
    case 'ResumeFollowUp':
      return resumeFollowUp(state, command.settings, now)
    default: {
      const _: never = command
      throw new DomainError('unknown_command', `the calls slice has no command ${(command as { type: string }).type}`)
    }
  }
}

/** A refusal as place_call reports it: the rule's code, when a call is next allowed, and the daily limit. */
export function callRefused(check: CallCheck): DomainError {
  return new DomainError(check.reason as string, check.message, { next_allowed_at: check.nextAllowedAt, daily_limit: check.dailyLimit, ...(check.rule === undefined ? {} : { rule: check.rule }) })
}

/**
 * A due follow-up the contact check refused: stopped for good when it can never go out (do-not-call,
 * no caller id, no allowed time), else moved to the next allowed time. Calls and text steps alike.
 */
export function followUpHeld(check: Pick<CallCheck, 'reason' | 'message' | 'nextAllowedAt' | 'rule'>, attempt: number, at: string): CallEvent[] {
  const reason = check.reason as string
  if (reason === 'do_not_call' || reason === 'no_caller_id' || check.nextAllowedAt === null) {
    return [{ type: 'FollowUpStopped', data: { reason, message: check.message, at } }]
  }
  return [{ type: 'FollowUpRescheduled', data: { attempt, dueAt: check.nextAllowedAt, reason, message: check.message, ...ruleOf(check) } }]
}

/** The calling rule that refused, as an optional event field (absent in older events and when none did). */
function ruleOf(check: Pick<CallCheck, 'rule'>): { rule?: string } {
  return check.rule === undefined ? {} : { rule: check.rule }
}

function recordStatus(state: LeadWithCalls, settings: AccountSettings, status: CallStatusUpdate, node: string, now: Date): CallEvent[] {
  const call = callByCarrierId(state, status.callId)
  // Agent-first: statuses of the owner's legs are the owner's, not the lead's.
  if (agentFirst.isOwnerLeg(call, status.callId)) {
    return agentFirst.ownerLegStatus(agentContext(state, call, settings, node, now), status, status.answeredBy !== undefined && MACHINES.has(status.answeredBy))
  }
  const at = status.timestamp || now.toISOString()
  const ref = { decisionId: call.decisionId, callId: call.callId as string }
  const events: CallEvent[] = []
  // Recordings and transcripts are kept for the account, whatever the order they arrive in, once each.
  if (status.recordingUrl && !call.recordings.includes(status.recordingUrl)) events.push({ type: 'CallRecordingAvailable', data: { ...ref, recordingUrl: status.recordingUrl, at } })
  if (status.transcript && !call.transcripts.includes(status.transcript)) events.push({ type: 'CallTranscriptAvailable', data: { ...ref, transcript: status.transcript, at } })

  // States only move forward: duplicates and late, out-of-order callbacks change nothing.
  const rank = STATUS_RANK[status.status] ?? -1
  const seen = call.status === null ? -1 : (STATUS_RANK[call.status] ?? -1)
  if (call.ended || rank <= seen) return events

  // A verdict of machine detection carried by a status callback is taken as its own callback would be.
  if (status.answeredBy !== undefined && !call.answered && !call.machine && status.status === 'in-progress') {
    return [...events, ...recordAnsweredBy(state, settings, status.callId, status.answeredBy, node, now)]
  }
  // With machine detection on, only its verdict (or a key) says a person answered; a call that ends
  // before any verdict, after a conversation, counts as answered by `unknown`.
  const machineVerdict = status.answeredBy !== undefined && MACHINES.has(status.answeredBy)
  const talked = status.status === 'completed' && (status.durationSeconds ?? 0) > 0
  const answeredNow =
    !call.answered && !call.machine && !machineVerdict && (call.machineDetection ? talked : status.status === 'in-progress' || talked)
  if (answeredNow) {
    events.push({ type: 'CallAnswered', data: { ...ref, answeredBy: status.answeredBy ?? (call.machineDetection ? 'unknown' : null), at } })
    if (state.dialing.pendingFollowUp) events.push({ type: 'FollowUpStopped', data: { reason: 'answered', message: 'the lead answered', at } })
  }
  if (status.status === 'completed' && (call.answered || answeredNow)) {
    events.push({ type: 'CallCompleted', data: { ...ref, durationSeconds: status.durationSeconds ?? null, at } })
  } else if (NOT_ANSWERED.has(status.status) || status.status === 'completed') {
    if (machineVerdict && !call.machine) events.push({ type: 'CallReachedMachine', data: { ...ref, answeredBy: status.answeredBy as string, at } })
    const outcome = call.machine || machineVerdict ? 'machine' : status.status === 'completed' ? 'no-answer' : status.status
    events.push({ type: 'CallNotAnswered', data: { ...ref, status: outcome, at } })
    // A machine's verdict already decided the follow-up.
    if (state.dialing.answeredAt === null && !call.followedUp && !call.machine) events.push(...nextFollowUp(state, settings, call.decisionId, now))
  }
  return events
}

function callByCarrierId(state: LeadWithCalls, callId: string): CallRecord {
  const call = state.dialing.order.map((id) => state.dialing.calls[id] as CallRecord).find((c) => c.callId === callId || agentFirst.isOwnerLeg(c, callId))
  if (!call) throw new DomainError('call_not_found', `no call ${callId} on this lead`)
  return call
}

/**
 * Machine detection's verdict. A person (`human`, `unknown`): the call is answered, as before. A
 * machine: not an answer, so follow-up goes on, scheduled now (the lead is not lost if the call's
 * last callback never comes); a voicemail is claimed in the same append when the greeting ended and
 * the day's limit allows, else the call is to be hung up. Once per call; a verdict after the call
 * ended changes nothing.
 */
function recordAnsweredBy(state: LeadWithCalls, settings: AccountSettings, callId: string, answeredBy: string, node: string, now: Date): CallEvent[] {
  const call = callByCarrierId(state, callId)
  if (agentFirst.isOwnerLeg(call, callId)) return agentFirst.ownerLegVerdict(agentContext(state, call, settings, node, now), callId, MACHINES.has(answeredBy))
  if (call.ended || call.answered || call.machine) return []
  const at = now.toISOString()
  const ref = { decisionId: call.decisionId, callId }
  if (!MACHINES.has(answeredBy)) {
    const verdict = answeredBy === 'human' ? 'human' : 'unknown'
    const stop: CallEvent[] = state.dialing.pendingFollowUp ? [{ type: 'FollowUpStopped', data: { reason: 'answered', message: 'the lead answered', at } }] : []
    return [{ type: 'CallAnswered', data: { ...ref, answeredBy: verdict, at } }, ...stop]
  }
  const events: CallEvent[] = [{ type: 'CallReachedMachine', data: { ...ref, answeredBy, at } }]
  if (state.dialing.answeredAt === null) events.push(...nextFollowUp(state, settings, call.decisionId, now))
  const skip = voicemailSkip(state, settings, answeredBy, now)
  events.push(
    skip === null
      ? { type: 'VoicemailStarted', data: { ...ref, node, message: settings.voicemailUrl !== null ? 'recording' : 'text', at } }
      : { type: 'VoicemailSkipped', data: { ...ref, ...skip, at } },
  )
  return events
}

/** Why no voicemail is left on this machine, or null when one is. */
function voicemailSkip(state: LeadWithCalls, settings: AccountSettings, answeredBy: string, now: Date): { reason: string; message: string } | null {
  if (answeredBy === 'fax') return { reason: 'fax', message: 'a fax machine answered' }
  if (!MACHINE_END.has(answeredBy)) return { reason: 'no_message_end', message: 'the machine was not heard to the end of its greeting' }
  if (state.doNotCall) return { reason: 'do_not_call', message: 'the lead is do-not-call' }
  const limit = settings.voicemailPerDay
  if (limit === 0) return { reason: 'voicemail_off', message: 'voicemail is off for this account' }
  const dayAgo = now.getTime() - 24 * 60 * 60 * 1000
  const recent = state.dialing.voicemailTimes.filter((time) => Date.parse(time) > dayAgo).length
  if (recent >= limit) return { reason: 'voicemail_limit', message: `at most ${limit} ${limit === 1 ? 'voicemail' : 'voicemails'} to one lead in any 24 hours` }
  return null
}

const MENU_DIGIT = /^[0-9*#]$/

/**
 * A key the lead pressed: a person is on the line, so the call is answered (if machine detection had
 * not said so yet). `1` connects the owner (when there is one), `2` asks for a callback inside calling
 * hours that follow-up then makes, `9` opts out (the lead decider marks the lead do-not-call). Once
 * per call: a repeated key changes nothing.
 */
function pressMenuKey(state: LeadWithCalls, settings: AccountSettings, decisionId: string, digit: string, ownerNumber: string | null, now: Date): CallEvent[] {
  const call = requireCall(state, decisionId)
  if (call.callId === null || call.ended || call.machine || call.menuChoice !== null) return []
  const at = now.toISOString()
  const ref = { decisionId, callId: call.callId }
  const events: CallEvent[] = []
  if (!call.answered) {
    events.push({ type: 'CallAnswered', data: { ...ref, answeredBy: 'human', at } })
    if (state.dialing.pendingFollowUp) events.push({ type: 'FollowUpStopped', data: { reason: 'answered', message: 'the lead answered', at } })
  }
  const key = MENU_DIGIT.test(digit) ? digit : ''
  const choice: MenuChoice = key === '1' && ownerNumber !== null ? 'connect' : key === '2' ? 'callback' : key === '9' ? 'opt_out' : 'none'
  events.push({ type: 'MenuKeyPressed', data: { ...ref, digit: key, choice, at } })
  if (choice === 'callback') {
    const callbackAt = callbackTime(state, settings, now)
    if (callbackAt !== null) {
      events.push({ type: 'CallbackRequested', data: { decisionId, callbackAt, at } })
      events.push({ type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt: callbackAt, afterDecisionId: decisionId } })
    }
  }
  return events
}

/**
 * The lead asked for a person (menu key 1, the assistant's transfer) and reached nobody: follow-up
 * calls them back at callbackTime, in place of any pending step; nothing when they may never be called
 * again, or a callback they asked for is already pending.
 */
function connectMissedFollowUp(state: LeadWithCalls, settings: AccountSettings, decisionId: string, now: Date): CallEvent[] {
  if (state.doNotCall || state.dialing.callbackAt !== null || state.dialing.followUpPaused !== null) return []
  const dueAt = callbackTime(state, settings, now)
  if (dueAt === null) return []
  return [{ type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt, afterDecisionId: decisionId, connectMissed: true } }]
}

/** An hour from now, or the first moment after it a call is allowed (calling hours, the lead's hours, the daily limit); null when never. */
export function callbackTime(state: LeadWithCalls, settings: AccountSettings, now: Date): string | null {
  const candidate = new Date(now.getTime() + CALLBACK_AFTER_MS)
  const check = mayCall(settings, leadCallTarget(state, 'follow_up'), candidate)
  return check.allowed ? candidate.toISOString() : check.nextAllowedAt
}

/**
 * The account's callback: refused in the past, too far ahead, while follow-up is paused, or when the
 * one contact policy would not allow a call to this lead at that moment (with `next_allowed_at`).
 * It takes the place of any pending follow-up; follow-up claims it when due, as a lead's own callback.
 */
function scheduleCallback(state: LeadWithCalls, settings: AccountSettings, callbackAt: string, now: Date): CallEvent[] {
  requireLead(state)
  const when = new Date(callbackAt)
  if (Number.isNaN(when.getTime())) throw new DomainError('invalid_callback_at', 'callback_at must be an ISO-8601 time with an offset')
  if (when.getTime() < now.getTime()) throw new DomainError('callback_in_past', `callback_at ${callbackAt} is in the past`, { now: now.toISOString() })
  if (when.getTime() > now.getTime() + MAX_CALLBACK_AHEAD_MS) {
    throw new DomainError('callback_too_far', `callback_at must be at most ${MAX_CALLBACK_AHEAD_MS / 86_400_000} days ahead`, { latest: new Date(now.getTime() + MAX_CALLBACK_AHEAD_MS).toISOString() })
  }
  if (state.dialing.followUpPaused !== null) throw new DomainError('follow_up_paused', "this lead's follow-up is paused: resume_follow_up first")
  const check = mayCall(settings, leadCallTarget(state, 'follow_up'), when)
  if (!check.allowed) throw callRefused(check)
  const dueAt = when.toISOString()
  const after = state.dialing.order[state.dialing.order.length - 1] ?? ''
  return [
    { type: 'CallbackScheduled', data: { leadId: state.leadId, callbackAt: dueAt, replacedDueAt: state.dialing.pendingFollowUp?.dueAt ?? null, at: now.toISOString() } },
    { type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt, afterDecisionId: after } },
  ]
}

/** Lifts a pause: a pending follow-up already due goes out at the next moment the contact policy allows (now, if it does). */
function resumeFollowUp(state: LeadWithCalls, settings: AccountSettings, now: Date): CallEvent[] {
  requireLead(state)
  if (state.dialing.followUpPaused === null) return []
  const at = now.toISOString()
  const events: CallEvent[] = [{ type: 'FollowUpResumed', data: { leadId: state.leadId, at } }]
  const pending = state.dialing.pendingFollowUp
  if (pending === null || new Date(pending.dueAt) > now) return events
  const check = mayCall(settings, leadCallTarget(state, 'follow_up'), now)
  // Never allowed (do-not-call, no caller id): the claim stops it when due, with the reason.
  const dueAt = check.allowed || check.nextAllowedAt === null ? at : check.nextAllowedAt
  return [...events, { type: 'FollowUpRescheduled', data: { attempt: pending.attempt, dueAt, reason: 'resumed', message: 'follow-up resumed', ...ruleOf(check.allowed ? {} : check) } }]
}
