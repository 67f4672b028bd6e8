/**
 * Machine detection's verdict on a call (Twilio's async AMD callback, or the simulated carrier). A
 * person: the call is answered. A machine: follow-up goes on, and the voicemail the lead decider
 * claimed in the same append is played into the live call (or the call is hung up when no message is
 * to be left); its outcome is recorded. A repeated verdict claims nothing, so it leaves no second
 * voicemail; a crash between the claim and the carrier leaves the claim without an outcome, never
 * a second message, and the follow-up already scheduled.
 */
import { leadDecider, type LeadState } from '../domain/lead/lead.decider.ts'
import type { LeadEvent } from '../domain/lead/lead.events.ts'
import type { AccountState } from '../domain/account/account.decider.ts'
import { renderVoicemail } from '../domain/dialing/voicemail.ts'
import { CarrierError, isRetryableCarrierFailure, type LiveCallInstructions } from '../integrations/carrier/carrier.port.ts'
import { callByCarrierId, carrierActor, type LiveCallDeps } from './live-call.ts'
import { actOnAgentFirst } from './agent-first.command.ts'

/** Records the verdict; false when the call is not Leadline's. */
export async function recordAnsweredBy(deps: LiveCallDeps, callId: string, answeredBy: string): Promise<boolean> {
  const found = await callByCarrierId(deps, callId)
  if (!found) return false
  const { call, account } = found
  const result = await deps.commands.handle(
    call.stream,
    leadDecider,
    { type: 'RecordAnsweredBy', settings: account.settings, callId, answeredBy, node: deps.node },
    carrierActor(deps),
  )
  await actOnMachine(deps, call.stream, account, result.state, result.newEvents)
  return true
}

/**
 * After an append that may have claimed a voicemail (or decided there is none): plays it into the
 * live call and records how that went, or hangs the call up; an agent-first owner leg's end is acted
 * on too (agent-first.command.ts). Nothing to do for any other append.
 */
export async function actOnMachine(deps: LiveCallDeps, stream: string, account: AccountState, state: LeadState, events: readonly LeadEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type === 'VoicemailSkipped') {
      // Best effort: a hang-up asked twice is harmless, and a call left running ends by itself.
      await updateCall(deps, event.data.callId, { kind: 'hang_up' }).catch(() => undefined)
    }
    if (event.type === 'VoicemailStarted') {
      const instructions = voicemail(account, state)
      let failure: { failure: string; message: string } | null = null
      try {
        await updateCall(deps, event.data.callId, instructions)
      } catch (error) {
        failure = {
          failure: error instanceof CarrierError ? error.failure : 'unknown_outcome',
          message: error instanceof Error ? error.message : String(error),
        }
      }
      await deps.commands.handle(stream, leadDecider, { type: 'RecordVoicemailOutcome', decisionId: event.data.decisionId, failure }, carrierActor(deps))
    }
  }
  await actOnAgentFirst(deps, stream, account, state, events)
}

/** The account's recording, or its spoken message for this lead. */
function voicemail(account: AccountState, state: LeadState): LiveCallInstructions {
  const { settings } = account
  if (settings.voicemailUrl !== null) return { kind: 'play', url: settings.voicemailUrl }
  const fields = state.fields
  const firstName = fields?.firstName ?? fields?.fullName?.split(/\s+/)[0] ?? null
  return { kind: 'say', text: renderVoicemail(settings.voicemail, { firstName, business: account.name, callbackNumber: settings.callerId ?? '' }) }
}

/** One more try for a request that cannot have reached the carrier (429, connection refused). */
async function updateCall(deps: LiveCallDeps, callId: string, instructions: LiveCallInstructions): Promise<void> {
  try {
    await deps.carrier().updateCall(callId, instructions)
  } catch (error) {
    if (!isRetryableCarrierFailure(error)) throw error
    await new Promise((resolve) => setTimeout(resolve, 250))
    await deps.carrier().updateCall(callId, instructions)
  }
}
