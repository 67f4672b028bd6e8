/**
 * send_sms: texts one lead of the account from its own number (or its Messaging Service), at most
 * once per idempotency key. The text is decided on the lead's stream (`TextDecided`, with the final
 * body and the opt-out line) under the same rules as a call, then sent at once by the texter (claim →
 * carrier → record); the answer is what the carrier did. A dry run says whether it would go out now,
 * and if not, why (the rule) and when next, how many segments it is, and how it is sent.
 */
import type { AccountState } from '../domain/account/account.decider.ts'
import { CALL_REFUSALS, type ContactCheck } from '../domain/dialing/may-call.ts'
import { leadDecider } from '../domain/lead/lead.decider.ts'
import { textSender, type TextSender } from '../domain/lead/texts/text-body.ts'
import { checkText, composeText, textByIdempotencyKey, textRefused, type TextRecord } from '../domain/lead/texts/texts.decider.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { newId } from '../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import type { Carrier, CarrierName } from '../integrations/carrier/carrier.port.ts'
import { Texter } from '../processes/texter/texter.process.ts'
import type { EffectProcesses } from '../processes/effect-processes.ts'

export interface SendSmsInput {
  /** What to say; the opt-out line is added when it has no STOP instruction. */
  readonly body: string
  /** Ties the text to the caller's key: the same key never texts twice. */
  readonly idempotencyKey: string
  readonly dryRun: boolean
}

export interface SendSmsResult {
  /** `sent` once the carrier accepted the text; `would_send` / `would_not_send` for a dry run. */
  readonly status: 'sent' | 'would_send' | 'would_not_send'
  /** `txt_…`; null for a dry run. */
  readonly textId: string | null
  readonly messageId: string | null
  readonly leadId: string
  /** The account's caller ID (E.164); with a Messaging Service, the service picks the sender. */
  readonly from: string | null
  readonly to: string
  /** The text as sent (or as it would be): opt-out line included. */
  readonly body: string
  readonly segments: number
  readonly encoding: 'GSM-7' | 'UCS-2'
  readonly characters: number
  readonly sender: TextSender
  readonly carrier: CarrierName
  readonly check: ContactCheck
  readonly dryRun: boolean
}

/** What send_sms needs: the Leadline composition root provides it. */
export interface SendSmsDeps {
  readonly commands: CommandHandler
  /** This node's effect processes: the texter sends the text. */
  readonly effects: Pick<EffectProcesses, 'get'>
  readonly carrier: Pick<Carrier, 'name'>
  readonly clock: () => Date
}

/**
 * Texts the lead of `stream` (or reports what would happen, for a dry run). Refusals throw
 * DomainError: lead_not_found, body_required, text_too_long, a call refusal code (do_not_call,
 * outside_lead_hours, country_not_allowed, …, with next_allowed_at and rule), carrier_error or
 * carrier_outcome_unknown.
 */
export async function sendSms(deps: SendSmsDeps, account: AccountState, stream: string, input: SendSmsInput, context: CommandContext): Promise<SendSmsResult> {
  const { commands, clock, carrier } = deps
  const settings = account.settings
  const loaded = await commands.load(stream, leadDecider)
  const lead = loaded.state
  if (!lead.exists || !lead.fields) throw new DomainError('lead_not_found', 'no lead with that phone number or id in this account')
  const composed = composeText(settings, input.body)
  const check = checkText(settings, lead, clock())
  const base = {
    leadId: lead.leadId, from: settings.callerId, to: lead.fields.phone, body: composed.body, segments: composed.segments, encoding: composed.encoding,
    characters: composed.characters, sender: textSender(settings), carrier: carrier.name, check,
  }
  if (input.dryRun) return { status: check.allowed ? 'would_send' : 'would_not_send', textId: null, messageId: null, ...base, dryRun: true }

  // A key already used answers its own text, even if a new one would be refused now.
  const spent = textByIdempotencyKey(lead, input.idempotencyKey)
  if (!check.allowed && !spent) throw textRefused(check)
  const decided = await commands.handle(
    stream,
    leadDecider,
    { type: 'DecideText', settings, textId: newId('txt'), reason: 'send_sms', body: input.body, idempotencyKey: input.idempotencyKey },
    context,
  )
  const text = textByIdempotencyKey(decided.state, input.idempotencyKey) as TextRecord
  const outcome = await deps.effects.get(Texter).send(stream, text.textId, account)
  const decidedAs = {
    ...base, from: text.from, to: text.to, body: text.body, segments: text.segments, sender: textSender({ messagingService: text.messagingService, callerId: text.from }),
  }
  switch (outcome.kind) {
    case 'sent':
      return { status: 'sent', textId: text.textId, messageId: outcome.text.messageId, ...decidedAs, carrier: (outcome.text.carrier ?? carrier.name) as CarrierName, dryRun: false }
    case 'failed':
      // Refused by the check made as the text went out (the lead became do-not-call, the hours closed).
      if (CALL_REFUSALS.has(outcome.failure)) throw new DomainError(outcome.failure, outcome.message, { textId: text.textId })
      throw new DomainError('carrier_error', `the carrier did not send the text: ${outcome.message}`, { textId: text.textId, failure: outcome.failure })
    case 'unknown':
      throw new DomainError('carrier_outcome_unknown', 'the carrier did not confirm the text; it may have been sent, and it is never sent again for this key', {
        textId: text.textId,
      })
  }
}
