/**
 * The inbound slice: a person calling the account's number. Each call is keyed by the carrier's call
 * id, recorded once when it comes in, claimed once when someone takes it (the first owner to press 1,
 * or the assistant), and missed once when nobody can: a repeated or late callback finds its step taken
 * and changes nothing. A new caller becoming a lead, and what a call does to follow-up, are decided in
 * lead.decider.ts (they cross slices).
 */
import type { AccountSettings } from '../../account/account-settings.ts'
import { DomainError } from '../../shared/decider.ts'
import type { IntakeState } from '../intake/intake.decider.ts'
import type { LeadFields } from '../intake/normalize-lead-input.ts'
import type { InboundEvent, InboundRoute } from './inbound.events.ts'

/** Why nobody took a call (InboundCallMissed's `reason`). */
export type InboundMissReason = 'outside_business_hours' | 'no_owner_answered' | 'no_owner_numbers' | 'caller_hung_up'

export interface InboundCall {
  readonly callId: string
  readonly from: string
  readonly to: string
  readonly receivedAt: string
  readonly route: InboundRoute
  readonly withinBusinessHours: boolean
  readonly newLead: boolean
  readonly connected: { readonly by: 'owner' | 'assistant'; readonly leg: number | null; readonly ownerNumber: string | null; readonly at: string } | null
  readonly missed: { readonly reason: string; readonly at: string } | null
  readonly callbackRequestedAt: string | null
  readonly voicemail: { readonly durationSeconds: number | null; readonly at: string } | null
  /** The carrier said the call ended (its final status and length). */
  readonly ended: { readonly status: string; readonly durationSeconds: number | null; readonly at: string } | null
}

export interface InboundState {
  readonly calls: Readonly<Record<string, InboundCall>>
  /** Call ids in the order they came in. */
  readonly order: readonly string[]
}

export const INITIAL_INBOUND: InboundState = { calls: {}, order: [] }

/** The assistant's session for an inbound call is keyed by this decision id (no call was decided: the person called). */
export function inboundDecisionId(callId: string): string {
  return `inb_${callId}`
}

/** The inbound call an assistant decision id names, when it names one. */
export function inboundCallOfDecision(state: InboundState, decisionId: string): InboundCall | null {
  if (!decisionId.startsWith('inb_')) return null
  return state.calls[decisionId.slice('inb_'.length)] ?? null
}

export type InboundCommand =
  /**
   * A call came in (the voice webhook). A person not on record becomes a lead with `fields` (source
   * `inbound call`) in the same append (lead.decider.ts). Once per call id.
   */
  | {
      type: 'ReceiveInboundCall'
      accountId: string
      newLeadId: string
      fields: LeadFields
      callId: string
      from: string
      to: string
      withinBusinessHours: boolean
      route: InboundRoute
    }
  /** Someone takes the call: the first claim wins; any later one (a second owner's press) finds it taken and records nothing. */
  | { type: 'ConnectInboundCall'; callId: string; by: 'owner' | 'assistant'; leg: number | null; ownerNumber: string | null }
  /** Nobody can take the call; `settings` and the follow-up it moves are read in lead.decider.ts. */
  | { type: 'MissInboundCall'; callId: string; reason: InboundMissReason; settings: AccountSettings }
  /** The caller pressed the key that asks for a call back (after the call was missed). */
  | { type: 'RequestInboundCallback'; callId: string }
  /** The caller left a voicemail (the carrier keeps the recording; only its length is recorded). */
  | { type: 'RecordInboundVoicemail'; callId: string; durationSeconds: number | null }
  /** The carrier's final status for the call. A call nobody took and not yet missed is missed here (`caller_hung_up`). */
  | { type: 'EndInboundCall'; callId: string; status: string; durationSeconds: number | null; settings: AccountSettings }

const COMMANDS: Readonly<Record<InboundCommand['type'], true>> = {
  ReceiveInboundCall: true, ConnectInboundCall: true, MissInboundCall: true, RequestInboundCallback: true, RecordInboundVoicemail: true, EndInboundCall: true,
}

export function isInboundCommand(command: { readonly type: string }): command is InboundCommand {
  return Object.hasOwn(COMMANDS, command.type)
}

function update(state: InboundState, callId: string, change: Partial<InboundCall>): InboundState {
  const call = state.calls[callId]
  if (!call) return state
  return { ...state, calls: { ...state.calls, [callId]: { ...call, ...change } } }
}

export function evolveInbound(state: InboundState, event: InboundEvent): InboundState {
  switch (event.type) {
    case 'InboundCallReceived': {
      const d = event.data
      const call: InboundCall = {
        callId: d.callId, from: d.from, to: d.to, receivedAt: d.at, route: d.route, withinBusinessHours: d.withinBusinessHours, newLead: d.newLead,
        connected: null, missed: null, callbackRequestedAt: null, voicemail: null, ended: null,
      }
      return { calls: { ...state.calls, [d.callId]: call }, order: [...state.order, d.callId] }
    }
    case 'InboundCallConnected':
      return update(state, event.data.callId, { connected: { by: event.data.by, leg: event.data.leg, ownerNumber: event.data.ownerNumber, at: event.data.at } })
    case 'InboundCallMissed':
      return update(state, event.data.callId, { missed: { reason: event.data.reason, at: event.data.at } })
    case 'InboundCallbackRequested':
      return update(state, event.data.callId, { callbackRequestedAt: event.data.at })
    case 'InboundVoicemailLeft':
      return update(state, event.data.callId, { voicemail: { durationSeconds: event.data.durationSeconds, at: event.data.at } })
    case 'InboundCallEnded':
      return update(state, event.data.callId, { ended: { status: event.data.status, durationSeconds: event.data.durationSeconds, at: event.data.at } })
    default: {
      const _: never = event
      return state
    }
  }
}

type LeadWithInbound = IntakeState & { readonly inbound: InboundState }

function requireCall(state: LeadWithInbound, callId: string): InboundCall {
  const call = state.inbound.calls[callId]
  if (!state.exists || !call) throw new DomainError('call_not_found', `no inbound call ${callId} on this lead`)
  return call
}

/** The last inbound contact (get_lead): the latest call in, and how it went. */
export function lastInboundCall(state: InboundState): InboundCall | null {
  const id = state.order[state.order.length - 1]
  return id === undefined ? null : (state.calls[id] ?? null)
}

/** How an inbound call went, in one word: connected, missed, or ringing while nobody has taken it yet. */
export function inboundOutcome(call: InboundCall): 'connected' | 'missed' | 'ringing' | 'ended' {
  if (call.connected !== null) return 'connected'
  if (call.missed !== null) return 'missed'
  return call.ended !== null ? 'ended' : 'ringing'
}

/** `newLead`: the caller became a lead in this same append (lead.decider.ts). */
export function decideInbound(command: InboundCommand, state: LeadWithInbound, now: Date, newLead = false): InboundEvent[] {
  const at = now.toISOString()
  switch (command.type) {
    case 'ReceiveInboundCall': {
      // A repeated voice webhook: the call is on record already.
      if (state.inbound.calls[command.callId]) return []
      if (!state.exists) throw new DomainError('lead_not_found', 'the caller is not a lead')
      return [{
        type: 'InboundCallReceived',
        data: {
          leadId: state.leadId, callId: command.callId, from: command.from, to: command.to, newLead,
          withinBusinessHours: command.withinBusinessHours, route: command.route, at,
        },
      }]
    }
    case 'ConnectInboundCall': {
      const call = requireCall(state, command.callId)
      // Taken already (a second owner's press, a replay), given up on, or over: nobody is connected.
      if (call.connected !== null || call.missed !== null || call.ended !== null) return []
      return [{ type: 'InboundCallConnected', data: { callId: command.callId, by: command.by, leg: command.leg, ownerNumber: command.ownerNumber, at } }]
    }
    case 'MissInboundCall': {
      const call = requireCall(state, command.callId)
      if (call.connected !== null || call.missed !== null) return []
      return [{ type: 'InboundCallMissed', data: { callId: command.callId, reason: command.reason, callbackRequested: false, at } }]
    }
    case 'RequestInboundCallback': {
      const call = requireCall(state, command.callId)
      if (call.missed === null || call.callbackRequestedAt !== null) return []
      return [{ type: 'InboundCallbackRequested', data: { callId: command.callId, at } }]
    }
    case 'RecordInboundVoicemail': {
      const call = requireCall(state, command.callId)
      if (call.missed === null || call.voicemail !== null) return []
      const seconds = command.durationSeconds === null ? null : Math.max(0, Math.round(command.durationSeconds))
      return [{ type: 'InboundVoicemailLeft', data: { callId: command.callId, durationSeconds: seconds, at } }]
    }
    case 'EndInboundCall': {
      const call = requireCall(state, command.callId)
      if (call.ended !== null) return []
      const events: InboundEvent[] = []
      if (call.connected === null && call.missed === null) {
        events.push({ type: 'InboundCallMissed', data: { callId: command.callId, reason: 'caller_hung_up', callbackRequested: false, at } })
      }
      events.push({ type: 'InboundCallEnded', data: { callId: command.callId, status: command.status, durationSeconds: command.durationSeconds, at } })
      return events
    }
  }
}
