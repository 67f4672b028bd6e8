/**
 * The lead aggregate: one person per account and phone (last ten digits), composed of its slices.
 * Intake receives the person (intake/), calls rings them (calls/), payments asks them for money
 * (payments/), texts texts them (texts/), inbound answers them when they call (inbound/), appointments records the times they booked (appointments/); each owns its events, commands, evolve and decide. Every event and command belongs
 * to exactly one slice, which the compiler checks (`never` below). What crosses slices is decided
 * here: speed to lead with a new lead, a lead's follow-up stopped as it becomes do-not-call or
 * replies by text, a follow-up text step decided as a text, follow-up around appointments (held while
 * one stands, resumed after a no-show or a cancellation), and a person who calls in: a caller not on
 * record becomes a lead, a call someone took stops follow-up (they were reached), a missed one brings
 * the next follow-up forward to now.
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import type { EventSummaries } from '../shared/printable.ts'
import type { Effect } from '../shared/effect.ts'
import { INITIAL_INTAKE, decideIntake, evolveIntake, isIntakeCommand, type IntakeCommand, type IntakeState } from './intake/intake.decider.ts'
import { INTAKE_SUMMARIES, isIntakeEvent, type IntakeEvent } from './intake/intake.events.ts'
import {
  INITIAL_DIALING, decideCalls, evolveCalls, followUpTextDecided, isCallCommand, speedToLeadOutcome, stopFollowUpForDoNotCall, stopFollowUpForReply, type CallCommand,
  type DialingState,
} from './calls/calls.decider.ts'
import { claimFollowUpText } from './follow-up-text.ts'
import { CALL_EFFECTS, CALL_SUMMARIES, isCallEvent, type CallEvent } from './calls/calls.events.ts'
import { INITIAL_PAYMENTS, decidePayments, evolvePayments, isPaymentCommand, type PaymentCommand, type PaymentsState } from './payments/payments.decider.ts'
import { PAYMENT_EFFECTS, PAYMENT_SUMMARIES, isPaymentEvent, type PaymentEvent } from './payments/payments.events.ts'
import { INITIAL_TEXTS, decideTexts, evolveTexts, isTextCommand, type TextCommand, type TextsState } from './texts/texts.decider.ts'
import { TEXT_EFFECTS, TEXT_SUMMARIES, isTextEvent, type TextEvent } from './texts/texts.events.ts'
import { INITIAL_ASSISTANT, decideAssistant, evolveAssistant, isAssistantCommand, type AssistantCommand, type AssistantState } from './assistant/assistant.decider.ts'
import { ASSISTANT_SUMMARIES, isAssistantEvent, type AssistantEvent } from './assistant/assistant.events.ts'
import { INITIAL_INBOUND, decideInbound, evolveInbound, inboundCallOfDecision, isInboundCommand, type InboundCommand, type InboundState } from './inbound/inbound.decider.ts'
import { INBOUND_SUMMARIES, isInboundEvent, type InboundEvent } from './inbound/inbound.events.ts'
import { followUpForInbound, newInboundLead } from './inbound-follow-up.ts'
import { INITIAL_APPOINTMENTS, decideAppointments, evolveAppointments, isAppointmentCommand, type AppointmentCommand, type AppointmentsState } from './appointments/appointments.decider.ts'
import { APPOINTMENT_SUMMARIES, isAppointmentEvent, type AppointmentEvent } from './appointments/appointments.events.ts'
import { followUpForAppointment, heldForAppointment } from './appointment-follow-up.ts'

// A slice joins the aggregate here, and only here: its events, summaries and effects, its commands, its
// state, and a line each in evolve and decide (the compiler's \`never\` checks fail until it has them all).

/** Every event of a lead's stream (lead.events.ts names the stream). */
export type LeadEvent = IntakeEvent | CallEvent | PaymentEvent | TextEvent | AssistantEvent | InboundEvent | AppointmentEvent

/** Every lead event type's one-line summary, from its slice: also the list of the lead's own event types. */
export const LEAD_SUMMARIES: EventSummaries<LeadEvent> = { ...INTAKE_SUMMARIES, ...CALL_SUMMARIES, ...PAYMENT_SUMMARIES, ...TEXT_SUMMARIES, ...ASSISTANT_SUMMARIES, ...INBOUND_SUMMARIES, ...APPOINTMENT_SUMMARIES }

/** Every effect a process performs on a lead, as its slice declares it: the claims read model follows them all. */
export const LEAD_EFFECTS: readonly Effect[] = [...CALL_EFFECTS, ...PAYMENT_EFFECTS, ...TEXT_EFFECTS]

export type LeadCommand = IntakeCommand | CallCommand | PaymentCommand | TextCommand | AssistantCommand | InboundCommand | AppointmentCommand

export interface LeadState extends IntakeState {
  readonly dialing: DialingState
  /** Pay-links asked of this person and how they settled (payments/). */
  readonly payments: PaymentsState
  /** Texts decided to this person and how each went (texts/). */
  readonly texts: TextsState
  /** What the voice assistant recorded in its calls and how each ended (assistant/). */
  readonly assistant: AssistantState
  /** The calls this person made to the account's number and how each went (inbound/). */
  readonly inbound: InboundState
  /** The times this person booked with the business and how each went (appointments/). */
  readonly appointments: AppointmentsState
}

/** Did these intake events make the lead do-not-call (a sender's flag or the account's mark)? */
function becameDoNotCall(state: LeadState, events: readonly IntakeEvent[]): boolean {
  return !state.doNotCall && events.some((e) => e.type === 'LeadMarkedDoNotCall' || (e.type === 'LeadUpdated' && e.data.changes.doNotCall === true))
}

function decideIntakeAndAfter(command: IntakeCommand, state: LeadState, now: Date): LeadEvent[] {
  const events = decideIntake(command, state, now)
  const [first] = events
  if (command.type === 'ReceiveLead' && first?.type === 'LeadReceived') {
    // A new lead: speed to lead is decided in the same append, so it is decided once per person, ever.
    if (command.list === false || !command.speedToLead) return events
    const outcome = speedToLeadOutcome(leadDecider.evolve(state, first), command.speedToLead.settings, command.speedToLead.decisionId, now)
    if ('type' in outcome) return [first, outcome]
    return [{ ...first, data: { ...first.data, speedToLeadSkipped: outcome } }]
  }
  if (becameDoNotCall(state, events)) return [...events, ...stopFollowUpForDoNotCall(state.dialing, now.toISOString())]
  // A reply is a person waiting for a call (get_next_actions lists them first), not for another timer.
  if (events.some((e) => e.type === 'LeadReplied')) return [...events, ...stopFollowUpForReply(state.dialing, now.toISOString())]
  return events
}

/** A lead who presses 9 in a call opts out: do-not-call from then on, in every path, and no pending follow-up. */
function decideCallsAndAfter(command: CallCommand, state: LeadState, now: Date): LeadEvent[] {
  // A paused cadence claims nothing, call or text step: the pending follow-up waits for resume_follow_up.
  if (command.type === 'ClaimFollowUp' && state.dialing.followUpPaused !== null) return []
  // A follow-up whose step is a text is claimed by deciding the text (follow-up-text.ts).
  const text = command.type === 'ClaimFollowUp' ? claimFollowUpText(command, state, now) : null
  if (text !== null) return text
  // The owner's leg after the assistant handed the call over is a connect, as after menu key 1.
  const transferred = command.type === 'RecordOwnerConnect' && state.assistant.calls[command.decisionId]?.disposition === 'transferred'
  const events: LeadEvent[] = decideCalls(transferred ? { ...command, transferred: true } : command, state, now)
  if (!events.some((e) => e.type === 'MenuKeyPressed' && e.data.choice === 'opt_out')) return events
  const after = events.reduce((s, event) => leadDecider.evolve(s, event), state)
  const marked = decideIntake({ type: 'MarkDoNotCall', source: 'in_call_keypress' }, after, now)
  return [...events, ...marked, ...stopFollowUpForDoNotCall(after.dialing, now.toISOString())]
}

/** A call the assistant ended as opted out marks the lead do-not-call in the same append, as key 9 in the menu does. */
function decideAssistantAndAfter(command: AssistantCommand, state: LeadState, now: Date): LeadEvent[] {
  const events: LeadEvent[] = decideAssistant(command, state, now)
  // The assistant's session on an inbound call is that call taken: claimed as an owner's press would be.
  if (command.type === 'OpenAssistantSession' && inboundCallOfDecision(state.inbound, command.decisionId) !== null) {
    const after = events.reduce((s, event) => leadDecider.evolve(s, event), state)
    const callId = inboundCallOfDecision(state.inbound, command.decisionId)?.callId as string
    return [...events, ...decideInboundAndAfter({ type: 'ConnectInboundCall', callId, by: 'assistant', leg: null, ownerNumber: null }, after, now)]
  }
  if (!events.some((e) => e.type === 'AssistantCallEnded' && e.data.disposition === 'opted_out') || state.doNotCall) return events
  const after = events.reduce((s, event) => leadDecider.evolve(s, event), state)
  const marked = decideIntake({ type: 'MarkDoNotCall', source: 'assistant_call' }, after, now)
  return [...events, ...marked, ...stopFollowUpForDoNotCall(after.dialing, now.toISOString())]
}

/** A caller not on record becomes a lead in the same append; a call taken or missed moves the lead's follow-up (inbound-follow-up.ts). */
function decideInboundAndAfter(command: InboundCommand, state: LeadState, now: Date): LeadEvent[] {
  if (command.type === 'ReceiveInboundCall' && !state.exists) {
    const received = newInboundLead(command, state, now)
    const after = received.reduce((s, event) => leadDecider.evolve(s, event), state)
    return [...received, ...decideInbound(command, after, now, true)]
  }
  const events = decideInbound(command, state, now)
  return [...events, ...followUpForInbound(command, state, events, now)]
}

/** A booking stops follow-up; a no-show or a cancellation puts the lead back on it; coming stops it (appointment-follow-up.ts). */
function decideAppointmentsAndAfter(command: AppointmentCommand, state: LeadState, now: Date): LeadEvent[] {
  const events = decideAppointments(command, state, now)
  if (events.length === 0) return events
  const after = events.reduce((s: LeadState, event) => leadDecider.evolve(s, event), state)
  const settings = 'settings' in command ? command.settings : undefined
  return [...events, ...followUpForAppointment(state, after, events, settings, now)]
}

/** Every state is a new object (evolve never changes one), so every new lead starts from this one; frozen, so nothing could. */
const INITIAL_LEAD: LeadState = Object.freeze({ ...INITIAL_INTAKE, dialing: INITIAL_DIALING, payments: INITIAL_PAYMENTS, texts: INITIAL_TEXTS, assistant: INITIAL_ASSISTANT, inbound: INITIAL_INBOUND, appointments: INITIAL_APPOINTMENTS })

export const leadDecider: Decider<LeadCommand, LeadEvent, LeadState> = {
  initialState: () => INITIAL_LEAD,

  evolve(state, event) {
    if (isIntakeEvent(event)) {
      const lead = evolveIntake(state, event)
      // A new lead may carry speed to lead's answer.
      return event.type === 'LeadReceived' ? { ...lead, dialing: evolveCalls(lead.dialing, event) } : lead
    }
    if (isCallEvent(event)) return { ...state, dialing: evolveCalls(state.dialing, event) }
    if (isPaymentEvent(event)) return { ...state, payments: evolvePayments(state.payments, event) }
    if (isTextEvent(event)) {
      // A follow-up text takes its step of the follow-up policy, as a follow-up call does.
      const dialing = event.type === 'TextDecided' && event.data.reason === 'follow_up' ? followUpTextDecided(state.dialing) : state.dialing
      return { ...state, dialing, texts: evolveTexts(state.texts, event) }
    }
    if (isAssistantEvent(event)) return { ...state, assistant: evolveAssistant(state.assistant, event) }
    if (isInboundEvent(event)) {
      // A person who called in and was taken is reached, as one who answered a call is.
      const reached = event.type === 'InboundCallConnected' && state.dialing.answeredAt === null
      return { ...state, dialing: reached ? { ...state.dialing, answeredAt: event.data.at } : state.dialing, inbound: evolveInbound(state.inbound, event) }
    }
    if (isAppointmentEvent(event)) {
      // A lead who did not come, or called it off, is not reached: follow-up goes on as for one nobody answered.
      const unreached = event.type === 'AppointmentNoShow' || event.type === 'AppointmentCancelled'
      const came = event.type === 'AppointmentAttended' && state.dialing.answeredAt === null
      const dialing = unreached ? { ...state.dialing, answeredAt: null } : came ? { ...state.dialing, answeredAt: event.data.at } : state.dialing
      return { ...state, dialing, appointments: evolveAppointments(state.appointments, event) }
    }
    const _: never = event
    // An event type this version does not know (a newer writer, another feature): the lead stays as it was.
    return state
  },

  decide(command, state, now) {
    const events = decideSlices(command, state, now)
    // While a booked appointment stands, the policy schedules no follow-up (a callback asked for still goes out);
    // an appointment's own command settles follow-up itself, on the appointments as it leaves them.
    if (state.appointments.order.length === 0 || isAppointmentCommand(command)) return events
    return heldForAppointment(events, state.appointments, now)
  },
}

function decideSlices(command: LeadCommand, state: LeadState, now: Date): LeadEvent[] {
  if (isIntakeCommand(command)) return decideIntakeAndAfter(command, state, now)
  if (isCallCommand(command)) return decideCallsAndAfter(command, state, now)
  if (isPaymentCommand(command)) return decidePayments(command, state, now)
  if (isTextCommand(command)) return decideTexts(command, state, now)
  if (isAssistantCommand(command)) return decideAssistantAndAfter(command, state, now)
  if (isInboundCommand(command)) return decideInboundAndAfter(command, state, now)
  if (isAppointmentCommand(command)) return decideAppointmentsAndAfter(command, state, now)
  const _: never = command
  throw new DomainError('unknown_command', `the lead has no command ${(command as { type: string }).type}`)
}
