/**
 * Agent-first calling's live-call commands (issue #26): the key pressed on an owner leg, how the dial
 * of the lead ended, and what follows an append that ended an owner leg: the owner's voicemail is
 * hung up, and the next owner number, claimed in that append (`OwnerLegStarted`), is rung and its
 * call id recorded. A repeated key finds the dial of the lead claimed already and dials nothing.
 */
import { leadDecider, type LeadState } from '../domain/lead/lead.decider.ts'
import type { LeadEvent } from '../domain/lead/lead.events.ts'
import type { AssistantFallbackStarted, OwnerLegStarted } from '../domain/lead/calls/calls.events.ts'
import type { AccountState } from '../domain/account/account.decider.ts'
import type { AgentKeyAnswer } from '../integrations/carrier/carrier.port.ts'
import { withCarrierRetries } from '../processes/effect-process.ts'
import { callByDecision, carrierActor, type LiveCallDeps } from './live-call.ts'

/** Records the key (once per leg) and says what the owner hears next; null when the decision is not Leadline's. */
export async function pressAgentKey(deps: LiveCallDeps, decisionId: string, callId: string, digit: string): Promise<AgentKeyAnswer | null> {
  const found = await callByDecision(deps, decisionId)
  if (!found) return null
  const { call, account } = found
  const { state, newEvents } = await deps.commands.handle(
    call.stream,
    leadDecider,
    { type: 'PressAgentKey', settings: account.settings, decisionId, callId, digit, node: deps.node },
    carrierActor(deps),
  )
  await actOnAgentFirst(deps, call.stream, account, state, newEvents)
  const leadName = state.fields?.fullName ?? state.fields?.firstName ?? null
  for (const event of newEvents) {
    if (event.type === 'LeadDialStarted') return { choice: 'dial', leadNumber: event.data.to, callerId: call.from, leadName }
    if (event.type === 'AgentUnavailable') {
      if (event.data.reason === 'lead_not_allowed') return { choice: 'refused', refusal: event.data.refusal ?? 'refused', leadName }
      return { choice: event.data.reason === 'declined' ? 'declined' : 'no_key' }
    }
  }
  return { choice: 'none' }
}

/** Records how the dial of the lead ended; false when the decision is not Leadline's. */
export async function recordLeadDial(deps: LiveCallDeps, decisionId: string, status: string): Promise<boolean> {
  const found = await callByDecision(deps, decisionId)
  if (!found) return false
  const { call, account } = found
  await deps.commands.handle(call.stream, leadDecider, { type: 'RecordLeadDial', settings: account.settings, decisionId, status }, carrierActor(deps))
  return true
}

/** After an append on an agent-first call: hangs up the owner's voicemail, rings the next owner leg it claimed. */
export async function actOnAgentFirst(deps: LiveCallDeps, stream: string, account: AccountState, state: LeadState, events: readonly LeadEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type === 'AgentUnavailable' && event.data.reason === 'owner_voicemail' && event.data.callId !== null) {
      // Best effort: a hang-up asked twice is harmless, and a voicemail left running ends by itself.
      await deps.carrier().updateCall(event.data.callId, { kind: 'hang_up' }).catch(() => undefined)
    }
    if (event.type === 'OwnerLegStarted') await ringOwner(deps, stream, account, state, event)
    if (event.type === 'AssistantFallbackStarted') await callLeadForAssistant(deps, stream, account, state, event)
  }
}

/**
 * `then=assistant`: calls the lead directly for the claimed fallback (machine detection as the account
 * asks, so a machine gets the voicemail) and records its call id; the answer hook then serves the
 * assistant. A request that may have reached the carrier is recorded as outcome unknown, never sent again.
 */
async function callLeadForAssistant(deps: LiveCallDeps, stream: string, account: AccountState, state: LeadState, claim: AssistantFallbackStarted): Promise<void> {
  const { decisionId, to } = claim.data
  const call = state.dialing.calls[decisionId]
  if (!call) return
  const carrier = deps.carrier()
  const actor = carrierActor(deps)
  const machineDetection = account.settings.amd
  const { machineDetectionUrl, ...urls } = carrier.callbackUrls(deps.publicUrl, decisionId)
  const request = {
    from: call.from,
    to,
    ...urls,
    reference: decisionId,
    detectAnsweringMachine: machineDetection,
    ...(machineDetection && machineDetectionUrl !== undefined ? { machineDetectionUrl } : {}),
  }
  await withCarrierRetries(
    async () => {
      const placed = await carrier.placeCall(request)
      await deps.commands.handle(stream, leadDecider, { type: 'RecordCallPlaced', decisionId, callId: placed.callId, carrier: placed.carrier, machineDetection }, actor)
    },
    async ({ failure, message, carrierCode }) => {
      if (failure === 'unknown_outcome') {
        await deps.commands.handle(stream, leadDecider, { type: 'RecordOutcomeUnknown', decisionId, reason: message }, actor)
        return
      }
      await deps.commands.handle(stream, leadDecider, { type: 'RecordCallFailed', decisionId, failure, message, carrierCode }, actor)
    },
  )
}

/**
 * Rings a claimed owner leg and records its call id (or why it failed: the leg after it is then
 * tried). A request that may have reached the carrier is recorded as outcome unknown, never sent again.
 */
async function ringOwner(deps: LiveCallDeps, stream: string, account: AccountState, state: LeadState, claim: OwnerLegStarted): Promise<void> {
  const { decisionId, leg, to } = claim.data
  const call = state.dialing.calls[decisionId]
  if (!call) return
  const carrier = deps.carrier()
  const actor = carrierActor(deps)
  const request = {
    from: call.from,
    to,
    ...carrier.callbackUrls(deps.publicUrl, decisionId),
    reference: decisionId,
    detectAnsweringMachine: account.settings.amd,
  }
  await withCarrierRetries(
    async () => {
      const placed = await carrier.placeCall(request)
      await deps.commands.handle(stream, leadDecider, { type: 'RecordCallPlaced', decisionId, callId: placed.callId, carrier: placed.carrier, ownerLeg: leg, to }, actor)
    },
    async ({ failure, message }) => {
      if (failure === 'unknown_outcome') {
        await deps.commands.handle(stream, leadDecider, { type: 'RecordOutcomeUnknown', decisionId, reason: message }, actor)
        return
      }
      const result = await deps.commands.handle(
        stream,
        leadDecider,
        { type: 'RecordOwnerLegFailed', settings: account.settings, decisionId, leg, failure, message, node: deps.node },
        actor,
      )
      await actOnAgentFirst(deps, stream, account, result.state, result.newEvents)
    },
  )
}
