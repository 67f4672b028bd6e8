/**
 * What the assistant says first and what the model is told: the business, the brief, and this lead's
 * name, source and fields. Nothing else: no other lead, no key, no payment (the model never sees them).
 */
import type { AccountSettings } from '../../domain/account/account-settings.ts'
import type { CallFacts } from '../../integrations/assistant/assistant-provider.port.ts'
import { READY_QUESTION } from '../../integrations/assistant/scripted/index.ts'
import { modelFields } from '../../domain/lead/model-view.ts'
import type { AppointmentType } from '../../domain/appointments/appointment-type.ts'

/** Fields that are never the model's, whatever the brief declares: the call's own records. */
const PRIVATE_FIELD = /recording|transcript/i

export interface LeadForAssistant {
  readonly name: string | null
  readonly source: string | null
  readonly fields: ReadonlyArray<readonly [string, string]>
}

/**
 * The lead's fields the model may read, through the domain's allow-list (model-view.ts): `state` and
 * the fields the brief declares, each only when neither its name nor its value looks like payment
 * data, an account number, an SSN, a password or a one-time code.
 */
export function leadFields(
  industryFields: Readonly<Record<string, string>>,
  extraFields: ReadonlyArray<{ name: string; value: unknown }>,
  state: string | null,
  declared: readonly string[],
): Array<[string, string]> {
  const fields: Array<[string, string]> = Object.entries(industryFields).map(([name, value]) => [name, value])
  if (state !== null && state !== '') fields.push(['state', state])
  for (const { name, value } of extraFields) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields.push([name, String(value)])
  }
  const plain = fields.filter(([name]) => !PRIVATE_FIELD.test(name)).map(([name, value]) => [name.slice(0, 60), value.slice(0, 200)] as [string, string])
  return modelFields(plain, declared).slice(0, 30)
}

/** The welcome greeting: who calls (an automated assistant, scripted when it is), for which business, and why. */
export function greeting(facts: CallFacts, scripted: boolean): string {
  const hello = facts.leadName === null ? 'Hi' : `Hi ${facts.leadName}`
  const what = scripted ? 'an automated assistant (a simple scripted one, not a person)' : 'an automated assistant, not a person'
  if (facts.calledIn === true) return `${hello}, thanks for calling ${facts.businessName}. This is ${facts.assistantName}, ${what}. Nobody can come to the phone right now, but I can help. ${READY_QUESTION}`
  return `${hello}, this is ${facts.assistantName}, ${what}, calling for ${facts.businessName} about the request you sent us. ${READY_QUESTION}`
}

/** What the model is told about booking when the call may book `type` (call-booking.ts holds it to this). */
function bookingRules(type: AppointmentType): string {
  return [
    `You can book one appointment in this call: a ${type.name} (${type.durationMinutes} minutes). When the lead wants one, call find_appointment_slots (with day or after, as an ISO date or time, if they said when suits them).`,
    'Offer two or three of the times it gives, in words, and let the lead choose. Confirm the one they chose with them, then call book_appointment with its ISO start, then say the booked day and time back to them.',
    'Never invent, guess or round a time: offer only times find_appointment_slots or a refused booking gave. If a booking is refused, offer the next times it gives.',
  ].join(' ')
}

export function systemPrompt(settings: AccountSettings, facts: CallFacts, lead: LeadForAssistant, booking: AppointmentType | null = null): string {
  const brief = settings.assistantBrief
  const questions = brief.questions.length === 0
    ? 'There are no qualifying questions: find out whether they still want help and when to call back.'
    : brief.questions.map((q, i) => `${i + 1}. ${q.question}${q.goodAnswer === '' ? '' : ` (a good answer: ${q.goodAnswer})`}`).join('\n')
  const fields = lead.fields.length === 0 ? 'none' : lead.fields.map(([n, v]) => `${n}: ${v}`).join('; ')
  return [
    `You are ${facts.assistantName}, an automated voice assistant calling on behalf of ${facts.businessName}. You are on a phone call: speak in short, plain sentences, no lists, no markup, no emoji.`,
    facts.calledIn === true
      ? `The lead called the business's number and nobody could take the call, so you answered it: you did not call them. You already thanked them for calling, said you are an automated assistant, and asked if now is a good time.`
      : `You already greeted the lead, said you are an automated assistant, and asked if now is a good time.`,
    `About the business: ${brief.business === '' ? '(no description given)' : brief.business}`,
    `The lead: name ${lead.name ?? 'unknown'}; source ${lead.source ?? 'unknown'}; fields: ${fields}.`,
    `Ask these questions, one at a time, in order, and call record_answer as each is answered:\n${questions}`,
    `It is now ${facts.now.toISOString()} (UTC); the lead's time zone is ${facts.timeZone}. Callbacks must be booked with book_callback; Leadline refuses times outside calling hours and tells you why.`,
    ...(booking === null ? [] : [bookingRules(booking)]),
    brief.transferNumber === null ? 'No one can take a transfer: offer a callback instead.' : 'If the lead wants a person, call transfer_to_person.',
    `If the lead asks not to be called again, call mark_do_not_call at once. Never promise prices, discounts or appointments the brief does not state${booking === null ? '' : ' (other than one booked with book_appointment)'}. Never ask for payment details.`,
    `When the conversation is done, say a short goodbye and call end_call with how it went: qualified (the answers meet the brief), not_interested, callback_booked, ${booking === null ? '' : 'appointment_booked, '}wrong_number, or no_conversation.`,
  ].join('\n\n')
}
