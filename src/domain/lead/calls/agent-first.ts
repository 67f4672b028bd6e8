/**
 * Agent-first calling (`--on-answer agent-first:+1…[,+1…]`): a decision's call rings the owner's
 * numbers one at a time, whispers who the lead is, and dials the lead only once a person there
 * pressed 1 and the lead may still be called at that moment. The lead's phone never rings before a
 * person is on the line. Every owner leg that ends without a yes (voicemail, no answer, busy, no key,
 * another key, the lead not callable now) is recorded as `AgentUnavailable`; the next owner number is
 * rung (`OwnerLegStarted`, claimed before the carrier is asked), or after the last the follow-up
 * policy schedules the next attempt. A machine on the owner's line is not the lead answering.
 *
 * The calls decider (calls.decider.ts) calls these rules with the call and what it knows of the lead;
 * this module does not import it, so the slice has no import cycle.
 */
import type { AccountSettings } from '../../account/account-settings.ts'
import type { CallCheck } from '../../dialing/may-call.ts'
import { agentFirstNumbers, parseOnAnswer } from '../../dialing/on-answer.ts'
import { dialConnected, type CallStatusUpdate } from './call-status.ts'
import type { CallEvent } from './calls.events.ts'

/** Where an agent-first call stands. */
export interface AgentFirstCall {
  /** The owner leg being rung or last rung: the index of the owner number. */
  readonly leg: number
  /** Every owner leg's carrier call id: their late callbacks are the owner's, never the lead's. */
  readonly ownerCallIds: readonly string[]
  /**
   * `placing`: the leg is claimed and the carrier asked; `owner`: the leg is out to the owner (the
   * call's `callId`); `unavailable`: it ended without a yes; `lead`: 1 was pressed and the lead dialed;
   * `assistant`: no owner accepted and the lead is called directly, the assistant answering (`then=assistant`).
   */
  readonly phase: 'placing' | 'owner' | 'unavailable' | 'lead' | 'assistant'
  /** When the lead was dialed (1 pressed, or the assistant fallback): from then the call counts toward the lead's daily cap. */
  readonly leadDialAt?: string
}

/** What these rules read of a call (the calls decider's CallRecord has all of it). */
export interface AgentCallView {
  readonly decisionId: string
  /** The current owner leg's call id once placed. */
  readonly callId: string | null
  /** The lead's number. */
  readonly to: string
  readonly stage: string
  readonly answered: boolean
  readonly ended: boolean
  readonly agent: AgentFirstCall | null
}

/** The call and what the calls decider knows around it, at one moment. */
export interface AgentFirstContext {
  readonly call: AgentCallView
  readonly settings: AccountSettings
  /** Who claims a next owner leg (host and pid). */
  readonly node: string
  readonly now: Date
  readonly pendingFollowUp: boolean
  /** may-call.ts's answer for dialing the lead now, the daily cap counting the other calls that rang the lead (lead-attempts.ts). */
  readonly mayCallLead: () => CallCheck
  /** The next attempt by the follow-up policy (or why there is none), when this call is the lead's last word. */
  readonly followUp: () => CallEvent[]
}

/** The parts of a call record an agent-first event changes. */
export interface AgentFirstChange {
  readonly agent: AgentFirstCall | null
  readonly stage?: 'started' | 'placed'
  readonly startedAt?: string
  readonly ended?: boolean
}

const KEY = /^[0-9*#]$/

/** How an agent-first event changes its call; null for an event that is not one of them. */
export function agentFirstChange(call: AgentCallView, event: CallEvent): AgentFirstChange | null {
  const agent = call.agent
  switch (event.type) {
    case 'CallPlaced':
      if (event.data.ownerLeg === undefined) return null
      return { agent: { leg: event.data.ownerLeg, ownerCallIds: [...(agent?.ownerCallIds ?? []), event.data.callId], phase: 'owner' } }
    case 'OwnerLegStarted':
      return agent && { agent: { ...agent, leg: event.data.leg, phase: 'placing' }, stage: 'started', startedAt: event.data.at }
    case 'AgentUnavailable':
      // A failed leg's claim has its outcome; after the last leg the call is over.
      return agent && {
        agent: { ...agent, phase: 'unavailable' },
        ...(call.stage === 'started' ? { stage: 'placed' as const } : {}),
        ...(event.data.nextLeg === null ? { ended: true } : {}),
      }
    case 'LeadDialStarted':
      return agent && { agent: { ...agent, phase: 'lead', leadDialAt: event.data.at } }
    case 'AssistantFallbackStarted':
      // The call goes on as a direct call to the lead, claimed: its statuses are the lead's.
      return agent && { agent: { ...agent, phase: 'assistant', leadDialAt: event.data.at }, stage: 'started', startedAt: event.data.at, ended: false }
    default:
      return null
  }
}

/** True when `callId` is one of the call's owner legs (current or earlier). */
export function isOwnerLeg(call: AgentCallView, callId: string): boolean {
  return call.agent?.ownerCallIds.includes(callId) ?? false
}

function liveOwnerLeg(call: AgentCallView, callId: string): boolean {
  return !call.ended && call.agent?.phase === 'owner' && call.callId === callId
}

/**
 * A carrier status of an owner leg. While the owner is rung: busy, no answer, a failure, a machine's
 * verdict, or a leg that ends before a key reached Leadline are each `AgentUnavailable`. After 1 was
 * pressed: the leg's end completes the call (or, when the lead's dial result never came, counts the
 * lead as not reached). Earlier legs, repeats and late statuses change nothing.
 */
export function ownerLegStatus(ctx: AgentFirstContext, update: CallStatusUpdate, machine: boolean): CallEvent[] {
  const { call } = ctx
  const agent = call.agent
  if (!agent || call.ended || call.callId !== update.callId) return []
  const at = update.timestamp || ctx.now.toISOString()
  const ref = { decisionId: call.decisionId, callId: update.callId }
  const ends = update.status === 'completed' || update.status === 'busy' || update.status === 'no-answer' || update.status === 'failed' || update.status === 'canceled'
  if (agent.phase === 'lead') {
    if (!ends) return []
    if (call.answered) return [{ type: 'CallCompleted', data: { ...ref, durationSeconds: update.durationSeconds ?? null, at } }]
    // Twilio reports the lead's dial before the owner's leg ends; without it, the lead was not reached.
    return [{ type: 'CallNotAnswered', data: { ...ref, status: 'no-answer', at } }, ...ctx.followUp()]
  }
  if (agent.phase !== 'owner') return []
  if (machine && (update.status === 'in-progress' || update.status === 'completed')) return unavailable(ctx, 'owner_voicemail', "the owner's voicemail answered", update.callId)
  switch (update.status) {
    case 'busy':
      return unavailable(ctx, 'busy', "the owner's line was busy", update.callId)
    case 'no-answer':
    case 'canceled':
      return unavailable(ctx, 'no_answer', 'the owner did not answer', update.callId)
    case 'failed':
      return unavailable(ctx, 'call_failed', 'the call to the owner failed', update.callId)
    case 'completed':
      return unavailable(ctx, 'no_key', 'the owner hung up without pressing 1', update.callId)
    default:
      return []
  }
}

/** Machine detection's verdict on the live owner leg: a machine is the owner's voicemail (the leg is then hung up). */
export function ownerLegVerdict(ctx: AgentFirstContext, callId: string, machine: boolean): CallEvent[] {
  if (!machine || !liveOwnerLeg(ctx.call, callId)) return []
  return unavailable(ctx, 'owner_voicemail', "the owner's voicemail answered", callId)
}

/**
 * The key pressed on the live owner leg `callId` (empty: none before the timeout). `1`: the lead is
 * checked again with may-call at this moment; allowed, `LeadDialStarted` claims the one dial of the
 * lead, else the refusal is recorded and follow-up decides. Another key declines. Once per leg: a
 * repeat, a stale leg or a call that moved on changes nothing.
 */
export function pressAgentKey(ctx: AgentFirstContext, callId: string, digit: string): CallEvent[] {
  const { call } = ctx
  if (!liveOwnerLeg(call, callId)) return []
  const key = KEY.test(digit) ? digit : ''
  if (key === '') return unavailable(ctx, 'no_key', 'no key was pressed', callId)
  if (key !== '1') return unavailable(ctx, 'declined', `the owner pressed ${key}, not 1`, callId)
  const check = ctx.mayCallLead()
  if (!check.allowed) return unavailable(ctx, 'lead_not_allowed', `the lead may not be called now: ${check.message}`, callId, check.reason ?? 'refused')
  const leg = (call.agent as AgentFirstCall).leg
  return [{ type: 'LeadDialStarted', data: { decisionId: call.decisionId, callId, leg, to: call.to, at: ctx.now.toISOString() } }]
}

/**
 * How the dial of the lead from the owner's leg ended (Twilio's DialCallStatus). Answered: the lead
 * and the owner talked. Busy, no answer, failed: the lead was not reached, follow-up goes on. Once.
 */
export function recordLeadDial(ctx: AgentFirstContext, status: string): CallEvent[] {
  const { call } = ctx
  if (call.agent?.phase !== 'lead' || call.ended || call.answered || call.callId === null) return []
  const at = ctx.now.toISOString()
  const ref = { decisionId: call.decisionId, callId: call.callId }
  if (dialConnected(status)) {
    return [
      { type: 'CallAnswered', data: { ...ref, answeredBy: 'human', at } },
      ...(ctx.pendingFollowUp ? [{ type: 'FollowUpStopped' as const, data: { reason: 'answered', message: 'the lead answered', at } }] : []),
      { type: 'OwnerConnectEnded', data: { decisionId: call.decisionId, connected: true, status, at } },
    ]
  }
  const outcome = ['busy', 'no-answer', 'failed', 'canceled'].includes(status) ? status : 'no-answer'
  return [{ type: 'CallNotAnswered', data: { ...ref, status: outcome, at } }, ...ctx.followUp()]
}

/** The carrier refused the next owner leg (it cannot have rung): that owner is unavailable, and the one after is tried. */
export function ownerLegFailed(ctx: AgentFirstContext, leg: number, failure: string, message: string): CallEvent[] {
  const agent = ctx.call.agent
  if (!agent || agent.phase !== 'placing' || agent.leg !== leg || ctx.call.stage !== 'started') return []
  return unavailable(ctx, 'call_failed', `the call to owner number ${leg + 1} failed: ${message} (${failure})`, null)
}

/** Records why the current owner leg gave no yes, then rings the next owner number or leaves it to follow-up. */
function unavailable(ctx: AgentFirstContext, reason: string, message: string, callId: string | null, refusal?: string): CallEvent[] {
  const { call } = ctx
  const agent = call.agent as AgentFirstCall
  const at = ctx.now.toISOString()
  const owners = agentFirstNumbers(ctx.settings.onAnswer) ?? []
  const next = agent.leg + 1
  // No point waking the next owner for a lead that may not be called now.
  const ringNext = reason !== 'lead_not_allowed' && next < owners.length && ctx.mayCallLead().allowed
  // `then=assistant`: after the last owner, the lead is called directly if may-call allows it now.
  const fallback = !ringNext && reason !== 'lead_not_allowed' && next >= owners.length && assistantFallback(ctx.settings) && ctx.mayCallLead().allowed
  const events: CallEvent[] = [
    {
      type: 'AgentUnavailable',
      data: { decisionId: call.decisionId, callId, leg: agent.leg, reason, message, ...(refusal !== undefined ? { refusal } : {}), nextLeg: ringNext ? next : null, at },
    },
  ]
  if (ringNext) events.push({ type: 'OwnerLegStarted', data: { decisionId: call.decisionId, leg: next, to: owners[next] as string, node: ctx.node, at } })
  else if (fallback) events.push({ type: 'AssistantFallbackStarted', data: { decisionId: call.decisionId, to: call.to, node: ctx.node, at } })
  else events.push(...ctx.followUp())
  return events
}

/** True when an agent-first account's calls fall back to the assistant (`;then=assistant`). */
export function assistantFallback(settings: AccountSettings): boolean {
  const onAnswer = parseOnAnswer(settings.onAnswer)
  return onAnswer.kind === 'agent-first' && onAnswer.fallback === 'assistant'
}

/** True when the call is agent-first's direct call to the lead for the assistant. */
export function isAssistantFallback(call: Pick<AgentCallView, 'agent'>): boolean {
  return call.agent?.phase === 'assistant'
}

/**
 * The settings a call is performed under: a click-to-call (`ownerNumbers`) is agent-first to those
 * numbers, whatever the account answers its other calls with; any other call, the account's own.
 */
export function callSettings(settings: AccountSettings, call: { readonly ownerNumbers?: readonly string[] | null }): AccountSettings {
  const owners = call.ownerNumbers
  return owners === undefined || owners === null || owners.length === 0 ? settings : { ...settings, onAnswer: `agent-first:${owners.join(',')}` }
}

/** The owner number the given leg of an agent-first account rings; null when the account answers another way or has no such number. */
export function ownerLegNumber(settings: AccountSettings, leg: number): string | null {
  return agentFirstNumbers(settings.onAnswer)?.[leg] ?? null
}

export interface LeadFieldsForWhisper {
  readonly industryFields: Readonly<Record<string, string>>
  readonly extraFields: ReadonlyArray<{ readonly name: string; readonly value: unknown }>
  readonly city: string | null
  readonly state: string | null
}

/** One line of the lead's fields for the owner's whisper (untrusted: the carrier cleans and caps it before it is spoken). */
export function leadFieldsLine(lead: LeadFieldsForWhisper): string | null {
  const parts = Object.entries(lead.industryFields).map(([name, value]) => `${name.replace(/_/g, ' ')}: ${value}`)
  const place = [lead.city, lead.state].filter((p) => p !== null && p !== '').join(', ')
  if (place !== '') parts.push(`in ${place}`)
  for (const { name, value } of lead.extraFields) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') parts.push(`${name}: ${String(value)}`)
  }
  return parts.length === 0 ? null : parts.join(', ').slice(0, 1000)
}
