/**
 * A text a person sent to an account's number (the carrier's inbound-message callback): the `To`
 * number finds the one account that claimed it, the `From` number the lead by its last ten digits (a
 * person first met by a text becomes a lead kept for the account, not listed in Inbound Leads and
 * never called by speed to lead). Recorded once per carrier message id. The text acts for `From`
 * exactly: an opt-out keyword suppresses that number, and makes the lead do-not-call (`sms_keyword`)
 * only when it is the lead's own number, in the same append; its one confirmation, and the answer to
 * HELP and INFO, go to `From`. Each reply is claimed
 * on the log before the carrier is asked, so a repeated webhook or a second STOP sends nothing, and
 * a reply whose outcome is unknown is never resent.
 */
import { leadDecider } from '../domain/lead/lead.decider.ts'
import { leadStream, type TextReplyKind } from '../domain/lead/lead.events.ts'
import { normalizeLeadInput } from '../domain/lead/intake/normalize-lead-input.ts'
import { helpText, optOutConfirmationText, textKeyword } from '../domain/lead/intake/text-keywords.ts'
import { newLeadId } from '../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import { CarrierError, messagingService, type Carrier, type InboundText } from '../integrations/carrier/carrier.port.ts'
import type { NumberClaims } from './number-claims.ts'
import type { Accounts } from './accounts.ts'

export interface ReceiveTextDeps {
  readonly commands: CommandHandler
  readonly accounts: Pick<Accounts, 'get'>
  readonly numbers: Pick<NumberClaims, 'ownerOf'>
  readonly clock: () => Date
  readonly carrier: () => Pick<Carrier, 'name' | 'sendText'>
  /** Who claims a reply (host and pid). */
  readonly node: string
}

/** What became of an inbound text: `unknown_number` when no account has that `To` number or `From` is no phone number. */
export type InboundTextOutcome =
  | { readonly recorded: true; readonly repeated: boolean; readonly reply: TextReplyKind | null }
  | { readonly recorded: false; readonly reason: 'unknown_number' | 'not_a_phone_number' }

export async function recordInboundText(deps: ReceiveTextDeps, text: InboundText): Promise<InboundTextOutcome> {
  // The one account that holds the `To` number on the log (number-claims.ts); nobody's: recorded nowhere.
  const owner = await deps.numbers.ownerOf(text.to)
  const account = owner === null ? null : await deps.accounts.get(owner)
  if (!account) return { recorded: false, reason: 'unknown_number' }
  const now = deps.clock()
  const normalised = normalizeLeadInput({ phone: text.from }, {
    defaultCountry: account.settings.defaultCountry,
    timeZone: account.settings.timeZone,
    industry: account.settings.industry,
    now,
  })
  if (!normalised.ok) return { recorded: false, reason: 'not_a_phone_number' }
  const stream = leadStream(account.accountId, normalised.lead.phoneLast10)
  const context: CommandContext = { actor: { kind: 'carrier', id: deps.carrier().name } }
  const received = await deps.commands.handle(
    stream,
    leadDecider,
    {
      type: 'ReceiveText', accountId: account.accountId, newLeadId: newLeadId(now.getTime()), fields: normalised.lead,
      messageId: text.messageId, from: text.from, to: text.to, body: text.body, carrier: deps.carrier().name,
    },
    context,
  )
  const repeated = received.newEvents.length === 0
  const keyword = textKeyword(text.body)
  const kind: TextReplyKind | null = keyword === 'opt_out' ? 'opt_out_confirmation' : keyword === 'help' ? 'help' : null
  if (kind === null) return { recorded: true, repeated, reply: null }

  // The claim decides: a repeated webhook finds this text's reply claimed, a second STOP the opt-out's confirmation.
  const body = kind === 'help' ? helpText(account.name) : optOutConfirmationText(account.name)
  // The sender exactly, never the lead's number: +44 20 7946 0958 is not the lead at +1 207 946 0958.
  const to = normalised.lead.phone
  const claim = await deps.commands.handle(stream, leadDecider, { type: 'ClaimTextReply', replyTo: text.messageId, kind, from: text.to, to, body, node: deps.node }, context)
  if (claim.newEvents.length === 0) return { recorded: true, repeated, reply: null }
  let outcome: { sent: true; messageId: string; carrier: string } | { sent: false; failure: string; message: string }
  try {
    const sent = await deps.carrier().sendText({ from: text.to, to, body, reference: text.messageId, ...messagingService(account.settings) })
    outcome = { sent: true, messageId: sent.messageId, carrier: sent.carrier }
  } catch (error) {
    // At most once: even a failure the carrier cannot have acted on is recorded, not retried.
    outcome = { sent: false, failure: error instanceof CarrierError ? error.failure : 'unknown_outcome', message: error instanceof Error ? error.message : String(error) }
  }
  await deps.commands.handle(stream, leadDecider, { type: 'RecordTextReply', replyTo: text.messageId, outcome }, context)
  return { recorded: true, repeated, reply: kind }
}
