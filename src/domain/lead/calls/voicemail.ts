/** Machine detection's verdict on a call, and whether a voicemail is left on the machine that answered. */
import type { AccountSettings } from '../../account/account-settings.ts'
import * as agentFirst from './agent-first.ts'
import { agentContext } from './agent-context.ts'
import { callByCarrierId } from './call-target.ts'
import type { CallEvent } from './calls.events.ts'
import type { LeadWithCalls } from './dialing-state.ts'
import { nextFollowUp } from './follow-up.ts'

/** Machine detection's verdicts that mean a machine answered, and those where a message can follow (the greeting ended). */
const MACHINE_END = new Set(['machine_end_beep', 'machine_end_silence', 'machine_end_other'])
export const MACHINES = new Set([...MACHINE_END, 'machine_start', 'fax'])

/**
 * Machine detection's verdict. A person (`human`, `unknown`): the call is answered, as before. A
 * machine: not an answer, so follow-up goes on, scheduled now (the lead is not lost if the call's
 * last callback never comes); a voicemail is claimed in the same append when the greeting ended and
 * the day's limit allows, else the call is to be hung up. Once per call; a verdict after the call
 * ended changes nothing.
 */
export function recordAnsweredBy(state: LeadWithCalls, settings: AccountSettings, callId: string, answeredBy: string, node: string, now: Date): CallEvent[] {
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
