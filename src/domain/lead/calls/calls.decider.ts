/**
 * Calls to one lead: the part of the lead aggregate that decides to ring, records what the carrier
 * did, and schedules follow-ups. Deciding is separate from doing: a decision (`CallDecided`) is an
 * event appended with an expected revision, then the dialer claims it (`CallAttemptStarted`) before
 * asking the carrier, so a person is rung at most once per decision, on any number of nodes.
 */
import type { AccountSettings } from '../../account/account-settings.ts'
import { mayCall } from '../../dialing/may-call.ts'
import { DomainError } from '../../shared/decider.ts'
import { phoneConflict } from '../intake/intake.decider.ts'
import type { LeadPhoneConflict, LeadReceived } from '../intake/intake.events.ts'
import { dialConnected, type CallStatusUpdate } from './call-status.ts'
import * as agentFirst from './agent-first.ts'
import { agentContext } from './agent-context.ts'
import { callByCarrierId, callRefused, decidedCallTarget, leadCallTarget, requireCall, requireLead, ruleOf } from './call-target.ts'
import { connectMissedFollowUp, pressMenuKey, scheduleCallback } from './callbacks.ts'
import type { CallDecided, CallEvent, CallPurpose, SpeedToLeadSkip } from './calls.events.ts'
import type { CallRecord, DialingState, LeadWithCalls } from './dialing-state.ts'
import { followUpHeld, nextFollowUp, resumeFollowUp } from './follow-up.ts'
import { MACHINES, recordAnsweredBy } from './voicemail.ts'

// The slice's rooms (the state, the call's target, follow-up, callbacks, voicemail), composed here for the lead decider.
export { INITIAL_DIALING, type CallRecord, type CallStage, type DialingState, type LeadWithCalls } from './dialing-state.ts'
export { callRefused, leadCallTarget, type WithTexts } from './call-target.ts'
export { followUpHeld, followUpTextDecided, nextFollowUp, pendingFollowUpText, stopFollowUpForDoNotCall, stopFollowUpForReply } from './follow-up.ts'
export { CALLBACK_AFTER_MS, MAX_CALLBACK_AHEAD_MS, callbackTime } from './callbacks.ts'

export type CallCommand =
  /** `to`: the number place_call was asked to ring (E.164); the lead's own when absent. */
  /** `ownerNumbers`: click-to-call, the owner's numbers rung first, the lead only once one of them pressed 1. */
  | { type: 'DecidePlaceCall'; settings: AccountSettings; decisionId: string; idempotencyKey: string; to?: string; toRaw?: string; ownerNumbers?: readonly string[] }
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
        agent: null, ownerNumbers: d.ownerNumbers ?? null,
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
      const decision = decided(state, command.settings, command.decisionId, 'place_call', at, command.idempotencyKey, command.to)
      const call: CallDecided = command.ownerNumbers === undefined ? decision : { ...decision, data: { ...decision.data, ownerNumbers: [...command.ownerNumbers] } }
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
