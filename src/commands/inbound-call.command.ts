/**
 * A person calling one of the accounts' numbers (the carrier's voice webhook and the callbacks of the
 * call's steps). The `To` number finds the one account that claimed it (as for an inbound text); the
 * `From` number finds the lead by its last ten digits, or makes one (source `inbound call`). Within
 * business hours the owner numbers are rung with a whisper, and the first to press 1 takes the call,
 * claimed on the log; when nobody can, the assistant answers (on-answer `assistant`), else the caller
 * may ask for a call back or leave a voicemail. Every step is a command on the caller's lead, keyed by
 * the carrier's call id: a repeated callback records nothing.
 */
import { businessHoursOf, INBOUND_VOICEMAIL_MAX_SECONDS, type AccountSettings } from '../domain/account/account-settings.ts'
import type { AccountState } from '../domain/account/account.decider.ts'
import { parseCallingHours } from '../domain/account/calling-hours.ts'
import { withinWindows } from '../domain/dialing/calling-window.ts'
import { parseOnAnswer } from '../domain/dialing/on-answer.ts'
import { inboundDecisionId, type InboundCommand, type InboundMissReason } from '../domain/lead/inbound/inbound.decider.ts'
import type { InboundRoute } from '../domain/lead/inbound/inbound.events.ts'
import { normalizeLeadInput } from '../domain/lead/intake/normalize-lead-input.ts'
import { leadDecider, type LeadState } from '../domain/lead/lead.decider.ts'
import { leadStream } from '../domain/lead/lead.events.ts'
import { newLeadId } from '../domain/shared/ids.ts'
import type { CommandContext } from '../eventstore/command-handler.ts'
import type { InboundAnswer, InboundCallReports, InboundCallRequest, RingLeg, WhisperKeyAnswer } from '../integrations/carrier/inbound-call.port.ts'
import type { Assistant } from '../processes/assistant/conversation.ts'
import type { LiveCallDeps } from './live-call.ts'
import type { NumberClaims } from './number-claims.ts'

export interface InboundCallDeps extends Pick<LiveCallDeps, 'commands' | 'accounts' | 'calls' | 'runner' | 'clock' | 'carrier'> {
  readonly numbers: Pick<NumberClaims, 'ownerOf'>
  readonly assistant: () => Pick<Assistant, 'prepare'>
}

const NOT_IN_SERVICE = 'Sorry, this number cannot take your call. Goodbye.'
const WITHHELD = 'Sorry, we cannot take calls from a withheld number. Please call again with your number shown. Goodbye.'
const CALLBACK_THANKS = 'Thank you. We will call you back as soon as we can. Goodbye.'
const VOICEMAIL_THANKS = 'Thank you for your message. We will get back to you soon. Goodbye.'
const LEAVE_MESSAGE = 'Please leave your message after the tone.'
const TAKEN_BY_ANOTHER: WhisperKeyAnswer = 'taken'

interface InboundLead {
  readonly stream: string
  readonly account: AccountState
  readonly state: LeadState
  readonly callId: string
}

/** The call a callback is about: its lead and account, from the call log (caught up when the log is ahead of it). */
async function inboundCall(deps: InboundCallDeps, callId: string): Promise<InboundLead | null> {
  const row = deps.calls.byCallId(callId) ?? (await deps.runner.catchUp(), deps.calls.byCallId(callId))
  if (!row || row.direction !== 'inbound') return null
  const account = await deps.accounts.get(row.accountId)
  if (!account) return null
  const { state } = await deps.commands.load(row.stream, leadDecider)
  return state.inbound.calls[callId] ? { stream: row.stream, account, state, callId } : null
}

function actor(deps: InboundCallDeps): CommandContext {
  return { actor: { kind: 'carrier', id: deps.carrier().name } }
}

async function handle(deps: InboundCallDeps, stream: string, command: InboundCommand): Promise<{ readonly recorded: boolean; readonly state: LeadState }> {
  const result = await deps.commands.handle(stream, leadDecider, command, actor(deps))
  return { recorded: result.newEvents.length > 0, state: result.state }
}

/** The legs rung together: every owner number at once, or the one at `leg`. */
function legsFrom(settings: AccountSettings, leg: number): RingLeg[] {
  const all = settings.inboundRing.map((number, index) => ({ leg: index, number }))
  return settings.inboundRingMode === 'simultaneous' ? all : all.slice(leg, leg + 1)
}

function assistantOn(settings: AccountSettings): boolean {
  return parseOnAnswer(settings.onAnswer).kind === 'assistant'
}

/**
 * Nobody can take the call: the assistant answers when the account uses it (and it may now), else the
 * call is missed and the caller hears the menu (a call back, a voicemail when it is on).
 */
async function whenNobodyTakesIt(deps: InboundCallDeps, call: InboundLead, reason: InboundMissReason): Promise<InboundAnswer> {
  const settings = call.account.settings
  if (assistantOn(settings)) {
    const decisionId = inboundDecisionId(call.callId)
    const prepared = await deps.assistant().prepare({ accountId: call.account.accountId, decisionId, callSid: call.callId })
    if (!('refuse' in prepared)) return { kind: 'assistant', decisionId, greeting: prepared }
  }
  await handle(deps, call.stream, { type: 'MissInboundCall', callId: call.callId, reason, settings })
  const voicemail = settings.inboundVoicemail ? ', or stay on the line to leave a message after the tone' : ''
  return {
    kind: 'menu',
    say: `Sorry, nobody at ${call.account.name} can take your call right now. Press 1 and we will call you back${voicemail}.`,
    voicemailSeconds: settings.inboundVoicemail ? INBOUND_VOICEMAIL_MAX_SECONDS : null,
  }
}

/** The voice webhook: recorded once per call id (with a new lead for a new caller), then what the caller hears first. */
export async function receiveInboundCall(deps: InboundCallDeps, request: InboundCallRequest): Promise<InboundAnswer> {
  // The one account that holds the `To` number on the log (number-claims.ts); nobody's: nothing is recorded.
  const owner = await deps.numbers.ownerOf(request.to)
  const account = owner === null ? null : await deps.accounts.get(owner)
  if (!account) return { kind: 'hang_up', say: NOT_IN_SERVICE }
  const settings = account.settings
  const now = deps.clock()
  const normalised = normalizeLeadInput({ phone: request.from }, { defaultCountry: settings.defaultCountry, timeZone: settings.timeZone, industry: settings.industry, now })
  if (!normalised.ok) return { kind: 'hang_up', say: WITHHELD }
  const within = withinWindows(parseCallingHours(businessHoursOf(settings)), settings.timeZone, now)
  const owners = within && settings.inboundRing.length > 0
  const route: InboundRoute = owners ? 'owners' : assistantOn(settings) ? 'assistant' : 'voicemail'
  const stream = leadStream(account.accountId, normalised.lead.phoneLast10)
  const { state } = await handle(deps, stream, {
    type: 'ReceiveInboundCall', accountId: account.accountId, newLeadId: newLeadId(now.getTime()), fields: normalised.lead,
    callId: request.callId, from: normalised.lead.phone, to: request.to, withinBusinessHours: within, route,
  })
  const call: InboundLead = { stream, account, state, callId: request.callId }
  const taken = state.inbound.calls[request.callId]
  // A replayed webhook for a call already taken or missed: nothing new, and nobody rung again.
  if (taken?.connected || taken?.missed) return { kind: 'hang_up', say: null }
  if (owners) {
    const business = account.name.trim() === '' ? 'us' : account.name
    return { kind: 'ring', greeting: `Thanks for calling ${business}. Please hold while we connect you.`, legs: legsFrom(settings, 0) }
  }
  return whenNobodyTakesIt(deps, call, within ? 'no_owner_numbers' : 'outside_business_hours')
}

/** The whisper to owner leg `leg`: who calls and about what (untrusted text, cleaned by the carrier before it is spoken). */
export async function inboundWhisper(deps: InboundCallDeps, callId: string, leg: number): Promise<string | null> {
  const call = await inboundCall(deps, callId)
  if (!call) return null
  const fields = call.state.fields
  const name = fields?.fullName ?? fields?.firstName ?? 'a new caller'
  const source = fields?.source ?? 'no source on record'
  return `Call from ${name} about ${source}, press 1 to take it.`
}

/** A key on owner leg `leg`'s whisper: the first 1 takes the call (claimed by expected revision); any later one connects no one. */
export async function pressInboundWhisperKey(deps: InboundCallDeps, callId: string, leg: number, digit: string): Promise<WhisperKeyAnswer | null> {
  const call = await inboundCall(deps, callId)
  if (!call) return null
  if (digit !== '1') return 'declined'
  const ownerNumber = call.account.settings.inboundRing[leg] ?? null
  const { recorded, state } = await handle(deps, call.stream, { type: 'ConnectInboundCall', callId, by: 'owner', leg, ownerNumber })
  if (recorded) return 'connect'
  // The same leg's press again (a replayed callback) is still the one connected; any other leg's is too late.
  const connected = state.inbound.calls[callId]?.connected
  return connected?.by === 'owner' && connected.leg === leg ? 'connect' : TAKEN_BY_ANOTHER
}

/** The owner legs ended: the call is over when one took it; else the next number (in order), or what follows when nobody can. */
export async function inboundDialEnded(deps: InboundCallDeps, callId: string, leg: number): Promise<InboundAnswer | null> {
  const call = await inboundCall(deps, callId)
  if (!call) return null
  const record = call.state.inbound.calls[callId]
  if (record?.connected || record?.ended) return { kind: 'hang_up', say: null }
  if (record?.missed) return { kind: 'hang_up', say: null }
  const settings = call.account.settings
  const next = leg + 1
  if (settings.inboundRingMode === 'sequential' && next < settings.inboundRing.length) return { kind: 'ring', greeting: null, legs: legsFrom(settings, next) }
  return whenNobodyTakesIt(deps, call, 'no_owner_answered')
}

/** The caller's key in the menu: 1 asks for a call back; anything else goes on to the voicemail (when it is on). */
export async function pressInboundMenuKey(deps: InboundCallDeps, callId: string, digit: string): Promise<InboundAnswer | null> {
  const call = await inboundCall(deps, callId)
  if (!call) return null
  if (digit === '1') {
    await handle(deps, call.stream, { type: 'RequestInboundCallback', callId })
    return { kind: 'hang_up', say: CALLBACK_THANKS }
  }
  if (!call.account.settings.inboundVoicemail) return { kind: 'hang_up', say: 'Goodbye.' }
  return { kind: 'record', say: LEAVE_MESSAGE, seconds: INBOUND_VOICEMAIL_MAX_SECONDS }
}

/** The voicemail ended: its length only (the recording stays with the carrier, fetched by call id for a signed-in owner). */
export async function recordInboundVoicemail(deps: InboundCallDeps, callId: string, durationSeconds: number | null): Promise<InboundAnswer | null> {
  const call = await inboundCall(deps, callId)
  if (!call) return null
  // An empty recording (the caller hung up at the tone) is no voicemail.
  if (durationSeconds !== null && durationSeconds > 0) await handle(deps, call.stream, { type: 'RecordInboundVoicemail', callId, durationSeconds })
  return { kind: 'hang_up', say: VOICEMAIL_THANKS }
}

/** The call's final status: a call nobody took and not yet missed (the caller hung up while the owners rang) is missed now. */
export async function endInboundCall(deps: InboundCallDeps, callId: string, status: string, durationSeconds: number | null): Promise<boolean> {
  const call = await inboundCall(deps, callId)
  if (!call) return false
  await handle(deps, call.stream, { type: 'EndInboundCall', callId, status, durationSeconds, settings: call.account.settings })
  return true
}

/** The port the carrier reports through (inbound-call.port.ts). */
export function inboundCallReports(deps: InboundCallDeps): InboundCallReports {
  return {
    receive: (call) => receiveInboundCall(deps, call),
    whisper: (callId, leg) => inboundWhisper(deps, callId, leg),
    whisperKey: (callId, leg, digit) => pressInboundWhisperKey(deps, callId, leg, digit),
    dialEnded: (callId, leg) => inboundDialEnded(deps, callId, leg),
    menuKey: (callId, digit) => pressInboundMenuKey(deps, callId, digit),
    voicemail: (callId, seconds) => recordInboundVoicemail(deps, callId, seconds),
    ended: (callId, status, seconds) => endInboundCall(deps, callId, status, seconds),
  }
}
