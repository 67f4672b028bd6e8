/**
 * The conversation engine behind the voice assistant (issue #29): for each answered assistant call,
 * the checks at answer time (`prepare`) and again when the relay connects (`open`), then the live
 * conversation. Each prompt is one streamed turn of the provider; the tools it asks for are
 * validated and run by Leadline through the lead's commands (assistant.decider.ts), never trusted.
 * The outcome and the transcript are recorded once, when the call closes.
 *
 * Safe under failure: a model that errs or stalls past `turnTimeoutMs` is abandoned (its stream
 * aborted); the lead hears an apology and an offer of a person or a callback, the scripted rules
 * take the rest of the call, and the outcome says why. Nothing here waits synchronously: a slow model
 * holds only its own call. Each account runs at most its brief's `maxConcurrentCalls` at once.
 */
import type { Logger } from 'pino'
import type { CommandContext, CommandHandler } from '../../eventstore/command-handler.ts'
import type { AccountState } from '../../domain/account/account.decider.ts'
import type { AccountSettings } from '../../domain/account/account-settings.ts'
import { usesAssistant, parseOnAnswer } from '../../domain/dialing/on-answer.ts'
import { mayContact } from '../../domain/dialing/may-call.ts'
import { leadTimeZone } from '../../domain/dialing/lead-time-zone.ts'
import { leadCallTarget } from '../../domain/lead/calls/calls.decider.ts'
import { leadDecider, type LeadState } from '../../domain/lead/lead.decider.ts'
import type { AssistantDisposition, TranscriptTurn } from '../../domain/lead/assistant/assistant.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { classifyConsent } from '../../domain/consent/consent-classifier.ts'
import { sessionRefusal } from '../../domain/lead/assistant/assistant.decider.ts'
import { NODE_ID } from '../effect-process.ts'
import { withoutWithheldValues } from '../../domain/lead/model-view.ts'
import type { AssistantProvider, CallFacts, ChatMessage, ToolCall } from '../../integrations/assistant/assistant-provider.port.ts'
import { createScriptedAssistant } from '../../integrations/assistant/scripted/index.ts'
import type { ProjectionRunner } from '../../read-models/projection-runner.ts'
import type { CallRow, CallsQueries } from '../../../projections/calls/calls.queries.ts'
import type { InboundLeadsQueries } from '../../../projections/inbound-leads/inbound-leads.queries.ts'
import type { Assistant, AssistantRefusal, Conversation, ConversationStart, RelayOutput } from './conversation.ts'
import { greeting, leadFields, systemPrompt, type LeadForAssistant } from './assistant-prompt.ts'
import { isToolName, toolArguments, toolSpecs } from './assistant-tools.ts'
import { assistantBooking, type AssistantBooking } from '../../domain/account/assistant-booking.ts'
import type { Appointments } from '../../commands/appointments.ts'
import { CallBooking } from './call-booking.ts'
import { errorName, Interrupted, TimedOut, withIdleTimeout } from './turn-timeout.ts'

/** A turn whose model says nothing for this long is abandoned (LEADLINE_ASSISTANT_TIMEOUT_MS). */
export const DEFAULT_TURN_TIMEOUT_MS = 8000
/** Tool rounds within one prompt: a model that keeps calling tools is stopped. */
const MAX_ROUNDS = 4
const MAX_PROMPT = 2000
/** A live session in which the lead says nothing for this long ends (LEADLINE_ASSISTANT_SILENCE_MS). */
export const DEFAULT_SILENCE_MS = 30_000

export interface AssistantEngineDeps {
  readonly commands: CommandHandler
  readonly accounts: { get(accountId: string): Promise<AccountState | null> }
  readonly calls: Pick<CallsQueries, 'byDecisionId'>
  readonly runner: Pick<ProjectionRunner, 'catchUp'>
  readonly inboundLeads: Pick<InboundLeadsQueries, 'get'>
  readonly provider: AssistantProvider
  readonly clock: () => Date
  /** How the assistant books appointments in the call (call-booking.ts); without it, it never does. */
  readonly appointments?: Pick<Appointments, 'listOpenSlots' | 'book'>
  readonly turnTimeoutMs?: number
  /** The longest call in ms instead of the brief's minutes (tests shorten it). */
  readonly maxCallMs?: number
  /** How long a live session may stay silent (no word, no key from the lead) before it ends; DEFAULT_SILENCE_MS. */
  readonly silenceMs?: number
  readonly logger?: Logger
}

interface Checked {
  readonly call: CallRow
  readonly account: AccountState
  readonly lead: LeadState
  readonly facts: CallFacts
  readonly leadForModel: LeadForAssistant
  /** Whether the call may book appointments, and which type (assistant-booking.ts). */
  readonly booking: AssistantBooking
}

const ACTOR: CommandContext = { actor: { kind: 'process', id: 'assistant' } }

export class AssistantEngine implements Assistant {
  /** Assistant calls open now, per account: the concurrency limit counts them. */
  private readonly open_ = new Map<string, Set<string>>()

  constructor(private readonly deps: AssistantEngineDeps) {}

  /** Assistant calls open now for an account (the console and tests read it). */
  openCalls(accountId: string): number {
    return this.open_.get(accountId)?.size ?? 0
  }

  async prepare(start: ConversationStart): Promise<{ greeting: string; voice: string | null; language: string } | { refuse: AssistantRefusal }> {
    const checked = await this.check(start, false)
    if ('refuse' in checked) return checked
    const brief = checked.account.settings.assistantBrief
    return { greeting: greeting(checked.facts, this.deps.provider.scripted), voice: brief.voice, language: brief.language }
  }

  /**
   * Null, with nothing recorded and no slot held, unless `start` is the live call Leadline placed for
   * the decision and it has had no session: a replayed handshake of an ended call, or a second one of
   * a live call (on any node), opens nothing. The session is claimed on the lead's stream before it opens.
   */
  async open(start: ConversationStart): Promise<{ conversation: Conversation } | { refuse: AssistantRefusal } | null> {
    const stream = (this.deps.calls.byDecisionId(start.decisionId) ?? (await this.deps.runner.catchUp(), this.deps.calls.byDecisionId(start.decisionId)))?.stream
    if (stream === undefined || this.open_.get(start.accountId)?.has(start.callSid)) return null
    const notLive = sessionRefusal((await this.deps.commands.load(stream, leadDecider)).state, start.decisionId, start.callSid)
    if (notLive !== null) return this.turnedAway(start, notLive)
    const checked = await this.check(start, true)
    if ('refuse' in checked) return checked
    try {
      const claimed = await this.deps.commands.handle(stream, leadDecider, { type: 'OpenAssistantSession', decisionId: start.decisionId, callId: start.callSid, node: NODE_ID }, ACTOR)
      if (claimed.newEvents.length === 0) return null
    } catch (error) {
      if (error instanceof DomainError) return this.turnedAway(start, error)
      throw error
    }
    let calls = this.open_.get(start.accountId)
    if (!calls) this.open_.set(start.accountId, (calls = new Set()))
    calls.add(start.callSid)
    const release = () => {
      calls.delete(start.callSid)
      if (calls.size === 0) this.open_.delete(start.accountId)
    }
    return { conversation: new LiveConversation(this.deps, start, checked, release) }
  }

  private turnedAway(start: ConversationStart, why: DomainError): null {
    this.deps.logger?.warn({ decisionId: start.decisionId, reason: why.code }, 'assistant: a relay session was refused (a replayed or second handshake?)')
    return null
  }

  /** The refusals of prepare and open: the call, the lead, do-not-call, the hours now, the account's limit. */
  private async check(start: ConversationStart, opening: boolean): Promise<Checked | { refuse: AssistantRefusal }> {
    const { deps } = this
    const call = deps.calls.byDecisionId(start.decisionId) ?? (await deps.runner.catchUp(), deps.calls.byDecisionId(start.decisionId))
    const account = call && call.accountId === start.accountId ? await deps.accounts.get(call.accountId) : null
    if (!call || !account) return refusal('call_not_found', 'Sorry, we cannot continue this call. Goodbye.')
    const business = account.name
    if (!usesAssistant(parseOnAnswer(account.settings.onAnswer))) return refusal('assistant_off', `Thank you for your time. Someone from ${business} will be in touch. Goodbye.`)
    const { state: lead } = await deps.commands.load(call.stream, leadDecider)
    if (!lead.exists) return refusal('lead_not_found', 'Sorry, we cannot continue this call. Goodbye.')
    const now = deps.clock()
    const end = async (reason: string, goodbye: string, why: string) => {
      // The lead is on the line, so the call is recorded as one without a conversation (once).
      await this.record(call, account.settings, 'no_conversation', why, []).catch((error: unknown) => deps.logger?.warn({ err: error, decisionId: call.decisionId }, 'assistant: the refused call was not recorded'))
      return refusal(reason, goodbye)
    }
    // A person who called in is answered whatever the hours or the do-not-call list say: they called (inbound.decider.ts).
    const calledIn = call.direction === 'inbound'
    if (lead.doNotCall && !calledIn) return end('do_not_call', 'Sorry for the call. You will not be called again. Goodbye.', 'the lead is do-not-call')
    // The hours as they stand now (the daily limit counted this call when it was decided).
    const { attemptTimes: _calls, textTimes: _texts, ...target } = leadCallTarget(lead, 'follow_up', call.to)
    const check = calledIn ? null : mayContact('call', account.settings, target, now)
    if (check !== null && !check.allowed) return end(check.reason ?? 'not_allowed', `Sorry to call at this time. Someone from ${business} will be in touch. Goodbye.`, `not allowed now: ${check.message}`)
    const brief = account.settings.assistantBrief
    const running = this.open_.get(start.accountId)
    const others = running ? running.size - (running.has(start.callSid) ? 1 : 0) : 0
    if (others >= brief.maxConcurrentCalls) {
      return end('assistant_busy', `Thank you for your interest. Someone from ${business} will call you back shortly. Goodbye.`, `the account's assistant calls were at their limit (${brief.maxConcurrentCalls})${opening ? ' when the call connected' : ''}`)
    }
    const row = deps.inboundLeads.get(call.accountId, { leadId: call.leadId })
    const name = row?.fullName ?? row?.firstName ?? lead.fields?.fullName ?? lead.fields?.firstName ?? null
    const zone = leadTimeZone({ ...(lead.fields?.state ? { state: lead.fields.state } : {}), phone: calledIn ? call.from : call.to })?.zone ?? account.settings.timeZone
    const facts: CallFacts = {
      businessName: business, assistantName: brief.assistantName, questions: brief.questions, canTransfer: brief.transferNumber !== null,
      leadName: name === null ? null : name.replace(/[^\p{L}\p{N}' .-]/gu, ' ').replace(/\s+/g, ' ').trim().slice(0, 60) || null, timeZone: zone, now,
      ...(calledIn ? { calledIn } : {}),
    }
    // The model sees only what the allow-list lets through (model-view.ts): never a withheld-looking value.
    const source = row?.source ? withoutWithheldValues(row.source) : null
    const leadForModel = { name: facts.leadName, source, fields: row ? leadFields(row.industryFields, row.extraFields, row.state, brief.leadFields) : [] }
    const booking: AssistantBooking = deps.appointments ? assistantBooking(account) : { on: false, why: 'booking is not wired', problem: false }
    // A setting the owner got wrong turns booking off: said in the log at each call, and where the brief is shown.
    if (opening && !booking.on && booking.problem) deps.logger?.warn({ accountId: call.accountId, decisionId: call.decisionId, why: booking.why }, 'assistant: booking appointments is off')
    return { call, account, lead, facts, leadForModel, booking }
  }

  private async record(call: CallRow, settings: AccountSettings, disposition: AssistantDisposition, why: string | null, transcript: readonly TranscriptTurn[]): Promise<void> {
    await this.deps.commands.handle(call.stream, leadDecider, {
      type: 'EndAssistantCall', decisionId: call.decisionId, callId: call.callId ?? '', disposition, why, provider: this.deps.provider.name, transcript, settings,
    }, ACTOR)
  }
}

function refusal(reason: string, goodbye: string): { refuse: AssistantRefusal } {
  return { refuse: { reason, goodbye } }
}

interface Ending {
  readonly disposition: AssistantDisposition
  readonly why: string | null
  readonly handoff: { readonly to: string; readonly whisper: string } | null
  readonly goodbye: string
}

class LiveConversation implements Conversation {
  private readonly messages: ChatMessage[] = []
  private readonly transcript: TranscriptTurn[] = []
  private readonly system: string
  private provider: AssistantProvider
  private ending: Ending | null = null
  /** The model failed earlier in the call: kept as the outcome's why. */
  private failure: string | null = null
  private current: AbortController | null = null
  private closed = false
  private readonly startedAt: number
  private readonly timeoutMs: number
  private answered = 0
  /** Set by interrupt() while a turn streams: what the lead heard of it. */
  private spokenBeforeInterrupt: string | null = null
  /** The booking tools of this call; null when booking is off (the model is not given them). */
  private readonly booking: CallBooking | null

  constructor(
    private readonly deps: AssistantEngineDeps,
    private readonly start: ConversationStart,
    private readonly checked: Checked,
    private readonly release: () => void,
  ) {
    this.provider = deps.provider
    this.timeoutMs = deps.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS
    this.startedAt = deps.clock().getTime()
    const { booking } = checked
    this.booking = booking.on && deps.appointments
      ? new CallBooking({ appointments: deps.appointments, clock: deps.clock, ...(deps.logger ? { logger: deps.logger } : {}) }, {
        accountId: start.accountId, phoneLast10: checked.call.stream.slice(-10), decisionId: start.decisionId, type: booking.type, zone: checked.facts.timeZone,
      }, ACTOR.actor)
      : null
    this.system = systemPrompt(checked.account.settings, checked.facts, checked.leadForModel, booking.on ? booking.type : null)
    const hello = greeting(checked.facts, deps.provider.scripted)
    this.messages.push({ role: 'assistant', text: hello, toolCalls: [], mark: 'ready' })
    this.transcript.push({ speaker: 'assistant', text: hello, at: deps.clock().toISOString() })
  }

  private get settings(): AccountSettings {
    return this.checked.account.settings
  }

  async *prompt(text: string): AsyncIterable<RelayOutput> {
    if (this.closed || this.ending !== null) return
    const said = text.replace(/\s+/g, ' ').trim().slice(0, MAX_PROMPT)
    // A new utterance while an answer still streams: the lead spoke over it.
    this.current?.abort(new Interrupted())
    this.heard(said)
    // Heard without the model, by the classifier that reads texts: the same words, the same verdict.
    if (classifyConsent(said).verdict === 'opt_out') {
      yield* this.finish({ disposition: 'opted_out', why: 'the lead asked not to be called again', handoff: null, goodbye: 'Understood. You will not be called again. Goodbye.' })
      return
    }
    if (this.deps.clock().getTime() - this.startedAt >= this.limitMs) {
      yield* this.finish(this.outOfTime())
      return
    }
    // What the lead says reaches the model without card, account or social security numbers they may read out.
    this.messages.push({ role: 'user', text: withoutWithheldValues(said) })
    yield* this.turns()
  }

  async *dtmf(digit: string): AsyncIterable<RelayOutput> {
    if (this.closed || this.ending !== null) return
    if (digit === '9') {
      this.heard('(pressed 9)')
      yield* this.finish({ disposition: 'opted_out', why: 'the lead pressed 9', handoff: null, goodbye: 'You will not be called again. Goodbye.' })
    } else if (digit === '0' && this.settings.assistantBrief.transferNumber !== null) {
      this.heard('(pressed 0)')
      yield* this.finish(this.transfer('the lead pressed 0 for a person'))
    }
  }

  get limitMs(): number {
    return this.deps.maxCallMs ?? this.settings.assistantBrief.maxCallMinutes * 60_000
  }

  get silenceMs(): number {
    return this.deps.silenceMs ?? DEFAULT_SILENCE_MS
  }

  async *silent(): AsyncIterable<RelayOutput> {
    if (this.closed || this.ending !== null) return
    this.current?.abort(new Interrupted())
    const qualified = this.answered >= this.checked.facts.questions.length && this.answered > 0
    yield* this.finish({
      disposition: qualified ? 'qualified' : 'no_conversation', why: `the line was silent for ${Math.round(this.silenceMs / 1000)} s`, handoff: null,
      goodbye: `We cannot hear you, so we will end this call. Someone from ${this.checked.facts.businessName} will be in touch. Goodbye.`,
    })
  }

  async *timeUp(): AsyncIterable<RelayOutput> {
    if (this.closed || this.ending !== null) return
    // A turn still streaming (or waiting on its model) is cut short: the call ends now.
    this.current?.abort(new Interrupted())
    yield* this.finish(this.outOfTime())
  }

  /** The longest call was reached: qualified when every question was answered, else no conversation. */
  private outOfTime(): Ending {
    const limitMinutes = this.settings.assistantBrief.maxCallMinutes
    const qualified = this.answered >= this.checked.facts.questions.length && this.answered > 0
    return {
      disposition: qualified ? 'qualified' : 'no_conversation', why: `the longest call (${limitMinutes} min) was reached`, handoff: null,
      goodbye: `We are out of time for this call. Someone from ${this.checked.facts.businessName} will be in touch. Goodbye.`,
    }
  }

  interrupt(utteranceUntilInterrupt: string): void {
    // What the lead heard is what was spoken up to the interruption: the model and the transcript keep that.
    const spoken = utteranceUntilInterrupt.slice(0, MAX_PROMPT)
    if (this.current !== null) {
      this.spokenBeforeInterrupt = spoken
      this.current.abort(new Interrupted())
      return
    }
    const last = this.messages.at(-1)
    if (last?.role === 'assistant') this.messages[this.messages.length - 1] = { ...last, text: spoken }
    const said = this.transcript.at(-1)
    if (said?.speaker === 'assistant') this.transcript[this.transcript.length - 1] = { ...said, text: spoken }
  }

  async close(reason: 'ended' | 'socket_dropped' | 'error', detail?: string): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.current?.abort(new Interrupted())
    this.release()
    const dropped = reason === 'ended' ? null : reason === 'socket_dropped' ? 'the call dropped' : `the relay reported an error${detail ? `: ${detail.slice(0, 200)}` : ''}`
    const disposition = this.ending?.disposition ?? 'no_conversation'
    const why = [this.ending?.why ?? null, this.failure, this.ending === null ? (dropped ?? 'the call ended before an outcome') : null].filter((w) => w !== null).join('; ') || null
    try {
      await this.deps.commands.handle(this.checked.call.stream, leadDecider, {
        type: 'EndAssistantCall', decisionId: this.start.decisionId, callId: this.checked.call.callId ?? this.start.callSid, disposition, why,
        provider: this.provider === this.deps.provider ? this.deps.provider.name : `${this.deps.provider.name}, then scripted`, transcript: this.transcript, settings: this.settings,
        appointmentId: this.booking?.appointmentId ?? null,
      }, ACTOR)
    } catch (error) {
      this.deps.logger?.error({ err: error, decisionId: this.start.decisionId }, 'assistant: the call outcome was not recorded')
      throw error
    }
  }

  private heard(text: string): void {
    this.transcript.push({ speaker: 'lead', text, at: this.deps.clock().toISOString() })
  }

  private said(text: string): void {
    if (text !== '') this.transcript.push({ speaker: 'assistant', text, at: this.deps.clock().toISOString() })
  }

  private transfer(why: string): Ending {
    const { facts } = this.checked
    const to = this.settings.assistantBrief.transferNumber as string
    const answers = this.answered === 0 ? '' : ` They answered ${this.answered} of ${facts.questions.length} questions.`
    const source = this.checked.leadForModel.source
    const whisper = `Transfer from the assistant: ${facts.leadName ?? 'a new lead'}${source ? `, from ${source}` : ''}.${answers}`
    return { disposition: 'transferred', why, handoff: { to, whisper }, goodbye: 'Connecting you now.' }
  }

  /** Says the goodbye (unless something was said this turn), then ends the call. */
  private async *finish(ending: Ending, spoke = false): AsyncIterable<RelayOutput> {
    this.ending = ending
    if (!spoke) {
      this.said(ending.goodbye)
      yield { type: 'text', token: ending.goodbye, last: true }
    } else {
      yield { type: 'text', token: '', last: true }
    }
    yield { type: 'end', handoff: ending.handoff }
  }

  /** One prompt's turns: stream the model's words, run its tools, and ask again after tools, up to MAX_ROUNDS. */
  private async *turns(): AsyncIterable<RelayOutput> {
    let spoke = false
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const controller = new AbortController()
      this.current = controller
      let text = ''
      let mark: string | undefined
      const toolCalls: ToolCall[] = []
      try {
        for await (const chunk of withIdleTimeout(this.provider.turn({
          system: this.system, messages: this.messages, tools: toolSpecs(this.booking !== null), facts: { ...this.checked.facts, now: this.deps.clock() }, signal: controller.signal,
        }), controller, this.timeoutMs)) {
          if (chunk.type === 'text' && chunk.text !== '') {
            text += chunk.text
            spoke = true
            yield { type: 'text', token: chunk.text, last: false }
          } else if (chunk.type === 'tool_call') toolCalls.push(chunk.call)
          else if (chunk.type === 'mark') mark = chunk.mark
        }
      } catch (error) {
        if (controller.signal.reason instanceof Interrupted || this.closed) {
          // The lead spoke over us (or hung up): the old answer stops here, kept as far as it was heard.
          const heard = this.spokenBeforeInterrupt ?? text
          this.spokenBeforeInterrupt = null
          this.messages.push({ role: 'assistant', text: heard, toolCalls: [] })
          this.said(heard)
          return
        }
        yield* this.failed(error, controller.signal.reason instanceof TimedOut, text)
        return
      } finally {
        this.current = null
      }
      this.messages.push({ role: 'assistant', text, toolCalls, ...(mark !== undefined ? { mark } : {}) })
      this.said(text)
      if (toolCalls.length === 0) {
        if (spoke) yield { type: 'text', token: '', last: true }
        return
      }
      for (const call of toolCalls) {
        const result = await this.runTool(call)
        this.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, result })
        if (this.ending !== null) {
          yield* this.finish(this.ending, spoke)
          return
        }
      }
    }
    // A model that only calls tools: say something rather than fall silent.
    const ask = 'Sorry, could you say that again?'
    this.said(ask)
    yield { type: 'text', token: ask, last: true }
  }

  /** The model failed: apologise, offer a person or a callback, and let the scripted rules take it from there. */
  private async *failed(error: unknown, timedOut: boolean, partial: string): AsyncIterable<RelayOutput> {
    const why = timedOut ? `the model did not answer within ${Math.round(this.timeoutMs / 1000)} s` : `the model failed (${errorName(error)})`
    this.deps.logger?.warn({ err: timedOut ? undefined : error, decisionId: this.start.decisionId, provider: this.provider.name }, `assistant: ${why}`)
    this.failure ??= why
    this.said(partial)
    const canTransfer = this.settings.assistantBrief.transferNumber !== null
    const offer = canTransfer
      ? 'Sorry, I am having trouble on my end. Would you like to speak with someone now?'
      : `Sorry, I am having trouble on my end. When is a good time for someone from ${this.checked.facts.businessName} to call you back?`
    this.messages.push({ role: 'assistant', text: offer, toolCalls: [], mark: canTransfer ? 'transfer' : 'callback' })
    this.provider = createScriptedAssistant()
    this.said(offer)
    if (partial !== '') yield { type: 'text', token: ' ', last: false }
    yield { type: 'text', token: offer, last: true }
  }

  /** A tool the model asked for, validated and run by Leadline: its result line for the model. */
  private async runTool(call: ToolCall): Promise<string> {
    if (!isToolName(call.name, this.booking !== null)) return `refused: there is no tool ${call.name.slice(0, 40)}`
    const parsed = toolArguments(call.name, call.arguments)
    if (!parsed.ok) return `refused: ${parsed.why}`
    const args = parsed.args
    const brief = this.settings.assistantBrief
    try {
      switch (call.name) {
        case 'record_answer': {
          await this.command({ type: 'RecordAssistantAnswer', decisionId: this.start.decisionId, questions: brief.questions, question: args.question as string, answer: args.answer as string })
          this.answered = (await this.deps.commands.load(this.checked.call.stream, leadDecider)).state.assistant.calls[this.start.decisionId]?.answers.length ?? this.answered
          return 'ok: recorded'
        }
        case 'book_callback': {
          const { state } = await this.command({ type: 'BookAssistantCallback', decisionId: this.start.decisionId, settings: this.settings, at: args.at as string })
          const at = state.dialing.calls[this.start.decisionId]?.callbackAt ?? (args.at as string)
          return `ok: callback booked at ${at}`
        }
        case 'find_appointment_slots':
          return await this.booking!.find(args as { day?: string; after?: string })
        case 'book_appointment':
          return await this.booking!.book(args as { start: string })
        case 'transfer_to_person':
          if (brief.transferNumber === null) return 'refused: no one can take a transfer; offer a callback instead'
          this.ending = this.transfer('the assistant handed the call to a person')
          return 'ok: transferring'
        case 'mark_do_not_call':
          this.ending = { disposition: 'opted_out', why: 'the lead asked not to be called again', handoff: null, goodbye: 'Understood. You will not be called again. Goodbye.' }
          return 'ok: the lead will not be called again'
        case 'end_call': {
          const disposition = args.disposition as AssistantDisposition
          const booked = (await this.deps.commands.load(this.checked.call.stream, leadDecider)).state.dialing.calls[this.start.decisionId]?.callbackAt ?? null
          if (disposition === 'callback_booked' && booked === null) return 'refused: no callback is booked; call book_callback first'
          if (disposition === 'appointment_booked' && this.booking?.appointmentId == null) return 'refused: no appointment is booked; call book_appointment first'
          this.ending = { disposition, why: null, handoff: null, goodbye: 'Thank you for your time. Goodbye.' }
          return 'ok: ending the call'
        }
      }
    } catch (error) {
      if (error instanceof DomainError) return `refused: ${error.message}`
      throw error
    }
  }

  private command(command: Parameters<typeof leadDecider.decide>[0]) {
    return this.deps.commands.handle(this.checked.call.stream, leadDecider, command, ACTOR)
  }
}
