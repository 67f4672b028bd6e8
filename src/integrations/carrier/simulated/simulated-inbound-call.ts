/**
 * The simulated carrier ringing in (issue #43): a person calls an account's number, and the call is
 * played, step by step, through the same inbound reports Twilio's voice webhook and its callbacks
 * reach (`InboundCallReports`: receive, whisper, whisperKey, dialEnded, menuKey, voicemail, ended),
 * so it records the same events a real call would. Nothing reaches a phone: the call id says `sim`.
 */
import type { InboundAnswer, InboundCallReports } from '../inbound-call.port.ts'
import type { SimulatedInboundCall, SimulatedInboundScenario } from '../carrier.port.ts'

/** How long a simulated inbound call lasts once someone takes it, and a simulated voicemail. */
export const SIMULATED_INBOUND_TALK_SECONDS = 42
export const SIMULATED_VOICEMAIL_SECONDS = 17
/** Steps at most before the simulated caller hangs up (a ring of 5 legs, the menu, the voicemail). */
const MAX_STEPS = 12

/** Plays one inbound call through `inbound`, as `scenario` says; `converse` talks with the assistant when it answers. */
export async function playInboundCall(
  inbound: InboundCallReports,
  call: { readonly callId: string; readonly from: string; readonly to: string },
  scenario: SimulatedInboundScenario,
  converse: (callId: string, decisionId: string) => Promise<string[]>,
): Promise<SimulatedInboundCall> {
  const { callId } = call
  const steps: string[] = []
  let outcome: SimulatedInboundCall['outcome'] = 'missed'
  let talked = 0
  let answer: InboundAnswer | null = await inbound.receive(call)
  for (let step = 0; answer !== null && step < MAX_STEPS; step++) {
    switch (answer.kind) {
      case 'hang_up':
        steps.push(answer.say === null ? 'the call ends' : `the caller hears "${answer.say}" and the call ends`)
        if (answer.say !== null && step === 0) outcome = 'refused'
        answer = null
        break
      case 'ring': {
        if (answer.greeting !== null) steps.push(`the caller hears "${answer.greeting}", then ringing`)
        const first = answer.legs[0]?.leg ?? 0
        const legs = scenario === 'owner-answers' ? answer.legs.slice(0, 1) : answer.legs
        for (const leg of legs) {
          if (scenario !== 'owner-answers' && scenario !== 'owner-declines') {
            steps.push(`owner ${leg.leg + 1} (${leg.number}) does not answer`)
            continue
          }
          const whisper = await inbound.whisper(callId, leg.leg)
          steps.push(`owner ${leg.leg + 1} (${leg.number}) hears "${whisper ?? ''}"`)
          const pressed = await inbound.whisperKey(callId, leg.leg, scenario === 'owner-answers' ? '1' : '2')
          steps.push(scenario === 'owner-answers' ? `owner ${leg.leg + 1} presses 1: ${pressed === 'connect' ? 'connected' : `not connected (${pressed ?? 'not a call'})`}` : `owner ${leg.leg + 1} presses 2: declined`)
          if (pressed === 'connect') outcome = 'connected'
        }
        if (outcome === 'connected') {
          talked = SIMULATED_INBOUND_TALK_SECONDS
          answer = null
          break
        }
        answer = await inbound.dialEnded(callId, first)
        break
      }
      case 'assistant': {
        steps.push(`the assistant answers: "${answer.greeting.greeting}"`)
        steps.push(...(await converse(callId, answer.decisionId)))
        outcome = 'assistant'
        talked = SIMULATED_INBOUND_TALK_SECONDS
        answer = null
        break
      }
      case 'menu':
        steps.push(`the caller hears "${answer.say}"`)
        if (scenario === 'callback') {
          steps.push('the caller presses 1 for a call back')
          answer = await inbound.menuKey(callId, '1')
        } else if (scenario === 'voicemail' && answer.voicemailSeconds !== null) {
          steps.push(`the caller presses nothing and leaves a ${SIMULATED_VOICEMAIL_SECONDS} s voicemail (kept with the carrier)`)
          outcome = 'voicemail'
          answer = await inbound.voicemail(callId, SIMULATED_VOICEMAIL_SECONDS)
        } else {
          steps.push(answer.voicemailSeconds === null ? 'voicemail is off: the caller hangs up' : 'the caller hangs up without a key or a message')
          answer = null
        }
        break
      case 'record':
        steps.push(`the caller hears "${answer.say}" and leaves a ${SIMULATED_VOICEMAIL_SECONDS} s voicemail (kept with the carrier)`)
        outcome = 'voicemail'
        answer = await inbound.voicemail(callId, SIMULATED_VOICEMAIL_SECONDS)
        break
    }
  }
  if (scenario === 'assistant' && outcome !== 'assistant' && outcome !== 'refused') steps.push('the assistant did not answer: it is off for this account (leadline account set ID --on-answer assistant)')
  if (outcome !== 'refused') await inbound.ended(callId, 'completed', talked + (outcome === 'voicemail' ? SIMULATED_VOICEMAIL_SECONDS : 0) + 10)
  return { callId, from: call.from, to: call.to, scenario, outcome, steps }
}
