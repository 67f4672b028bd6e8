/**
 * TwiML of agent-first calls (`--on-answer agent-first:+1…`), built with the SDK's `VoiceResponse`:
 * what the owner hears when their leg picks up (who the lead is, then "press 1"), what follows their
 * key (the dial of the lead from the account's number, or why not), and what follows that dial. The
 * lead's name, source and fields come from the public webhook, so they are cleaned and capped.
 */
import twilio from 'twilio'
import { dialConnected, type AgentKeyAnswer, type AnsweredCall } from '../carrier.port.ts'
import { MAX_SPOKEN_BUSINESS, MAX_SPOKEN_NAME, sayAndHangUp, spokenText } from './answer-twiml.ts'

export const MAX_SPOKEN_SOURCE = 60
/** One line of the lead's fields: long enough for a few of them, short enough to hear before pressing 1. */
export const MAX_SPOKEN_LINE = 160
/** How long the owner has to press a key after the whisper, in seconds. */
export const AGENT_KEY_TIMEOUT_SECONDS = 8

/** Why a lead may not be called at the moment 1 was pressed, said to the owner (may-call's codes). */
const REFUSALS: Readonly<Record<string, string>> = {
  outside_calling_hours: 'it is outside your calling hours',
  outside_lead_hours: 'it is outside calling hours where they live',
  no_calling_hours: 'your calling hours allow no calls',
  do_not_call: 'they asked not to be called',
  daily_limit: 'they have had as many calls today as your follow-up policy allows',
  no_caller_id: 'your account has no caller id to call from',
}

/**
 * The owner leg's TwiML: the lead's name, source and one line of fields, then a one-key `<Gather>`
 * posting to `agentKeyUrl`, also when no key was pressed (an empty `Digits`), so silence is recorded too.
 */
export function ownerWhisperTwiml(call: AnsweredCall, agentKeyUrl: string): string {
  const response = new twilio.twiml.VoiceResponse()
  const business = spokenText(call.businessName, MAX_SPOKEN_BUSINESS) ?? 'your business'
  const lead = spokenText(call.leadName, MAX_SPOKEN_NAME) ?? 'no name given'
  const source = spokenText(call.leadSource, MAX_SPOKEN_SOURCE)
  const line = spokenText(call.leadLine, MAX_SPOKEN_LINE)
  const gather = response.gather({ numDigits: 1, action: agentKeyUrl, method: 'POST', timeout: AGENT_KEY_TIMEOUT_SECONDS, actionOnEmptyResult: true })
  gather.say(`New lead for ${business}: ${lead}${source === null ? '' : `, from ${source}`}.${line === null ? '' : ` ${line}.`} Press 1 to call them now.`)
  return response.toString()
}

/** What the owner hears after their key: the dial of the lead (its result posted to `leadDialUrl`), or a sentence and goodbye. */
export function agentKeyTwiml(answer: AgentKeyAnswer, leadDialUrl: string): string {
  const response = new twilio.twiml.VoiceResponse()
  switch (answer.choice) {
    case 'dial': {
      const lead = spokenText(answer.leadName, MAX_SPOKEN_NAME) ?? 'the lead'
      response.say(`Calling ${lead} now.`)
      response.dial({ callerId: answer.callerId, action: leadDialUrl, method: 'POST' }).number(answer.leadNumber)
      return response.toString()
    }
    case 'refused': {
      const lead = spokenText(answer.leadName, MAX_SPOKEN_NAME) ?? 'This lead'
      response.say(`Sorry, ${lead} cannot be called right now: ${REFUSALS[answer.refusal] ?? 'calling them is not allowed at the moment'}. Goodbye.`)
      break
    }
    case 'declined':
      response.say('OK, we will not call them now. Goodbye.')
      break
    case 'no_key':
      response.say('No key was pressed. Goodbye.')
      break
    case 'none':
      response.say('Goodbye.')
      break
  }
  response.hangup()
  return response.toString()
}

/** After the dial of the lead ends (Twilio's DialCallStatus): the owner's leg hangs up, with a word when the lead was not reached. */
export function leadDialTwiml(dialStatus: string): string {
  return sayAndHangUp(dialConnected(dialStatus) ? null : 'The lead did not answer. Goodbye.')
}
