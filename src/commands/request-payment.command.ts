/**
 * request_payment: texts a lead a card pay-link that settles into the account's connected account.
 * Deciding is separate from doing: `PaymentRequested` is appended to the lead's stream with an
 * expected revision before anything is sent, with a provider idempotency key derived from that
 * decision, so any retry returns the same link; the pay-link sender then performs it (link → claim
 * → text → record), and the answer is what it did.
 */
import { personBarred } from '../domain/dialing/may-call.ts'
import type { AccountState } from '../domain/account/account.decider.ts'
import { formatAmount, renderPayLinkText } from '../domain/account/pay-link-text.ts'
import { leadDecider, type LeadState } from '../domain/lead/lead.decider.ts'
import { leadStream } from '../domain/lead/lead.events.ts'
import { requestByIdempotencyKey, type PaymentRequestRecord } from '../domain/lead/payments/payments.decider.ts'
import { phoneIdentity } from '../domain/lead/intake/phone.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { newId } from '../domain/shared/ids.ts'
import { sha256Hex } from '../domain/shared/sha256.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import type { Carrier, CarrierName } from '../integrations/carrier/carrier.port.ts'
import type { PaymentsProvider, PaymentsProviderName } from '../integrations/payments/payments.port.ts'
import { PayLinkSender } from '../processes/pay-link-sender/pay-link-sender.process.ts'
import type { EffectProcesses } from '../processes/effect-processes.ts'
import type { InboundLeadsQueries } from '../../projections/inbound-leads/inbound-leads.queries.ts'

/** Where a dry run's message shows the link. */
export const LINK_PLACEHOLDER = '<link>'

/** Largest amount one pay-link may ask for, in the currency's smallest unit: 2,500,000 (USD 25,000.00). */
export const MAX_AMOUNT_CENTS = 2_500_000
export const MAX_DESCRIPTION = 250

export interface RequestPaymentInput {
  /** The customer: exactly one of the phone (any formatting) and the lead id. */
  readonly phone?: string | undefined
  readonly leadId?: string | undefined
  /** In the currency's smallest unit; 1 to MAX_AMOUNT_CENTS. */
  readonly amountCents: number
  readonly description: string
  /** The caller's key: ties the request (and its provider idempotency key) to it. */
  readonly idempotencyKey: string
  readonly dryRun: boolean
}

export interface RequestPaymentResult {
  /** `pay_…`; null for a dry run. */
  readonly requestId: string | null
  /** `texted` once the carrier accepted the text; `would_text` for a dry run. */
  readonly status: 'texted' | 'would_text'
  /** The pay-link; null for a dry run. */
  readonly url: string | null
  readonly amountCents: number
  readonly currency: string
  /** The amount as the customer reads it ("$125.00"). */
  readonly amount: string
  readonly description: string
  /** ISO UTC: the link takes no payment after this; null for a dry run. */
  readonly expiresAt: string | null
  /** The customer's number (E.164). */
  readonly textedTo: string
  /** The account's number the text goes out from (E.164). */
  readonly from: string
  /** The text as sent (for a dry run, with `<link>` where the link will be). */
  readonly message: string
  readonly messageId: string | null
  readonly leadId: string
  readonly connectedAccount: string | null
  readonly carrier: CarrierName
  readonly provider: PaymentsProviderName
  readonly dryRun: boolean
}

/**
 * The provider's Idempotency-Key for a decision: derived from the account, the caller's
 * idempotency key and the request id, so every retry of one decision (SDK, ours, another node,
 * recovery after a restart) sends the same key, and two decisions never share one.
 */
export function providerIdempotencyKey(accountId: string, idempotencyKey: string, requestId: string): string {
  return `leadline-pay-${sha256Hex(JSON.stringify(['pay-link/v1', accountId, idempotencyKey, requestId]))}`
}

/** What request_payment needs: the Leadline composition root provides it. */
export interface RequestPaymentDeps {
  readonly commands: CommandHandler
  readonly inboundLeads: InboundLeadsQueries
  /** This node's effect processes: the pay-link sender sends the link. */
  readonly effects: Pick<EffectProcesses, 'get'>
  readonly paymentsProvider: Pick<PaymentsProvider, 'name'>
  readonly carrier: Pick<Carrier, 'name'>
  readonly clock: () => Date
}

/**
 * Texts the customer a card pay-link that settles into the account's connected account (or, for a
 * dry run, reports what would be sent). Refusals throw DomainError with codes
 * payments_not_configured, no_connected_account, customer_not_found, do_not_call, stripe_error,
 * carrier_error.
 */
export async function requestPayment(deps: RequestPaymentDeps, account: AccountState, input: RequestPaymentInput, context: CommandContext): Promise<RequestPaymentResult> {
  const { commands, paymentsProvider: provider, carrier, clock } = deps
  const settings = account.settings
  if (settings.callerId === null) {
    throw new DomainError(
      'payments_not_configured',
      `pay-links are texted from the account's own number, and this account has none: leadline account set ${account.accountId} --caller-id +1…`,
      { missing: 'caller_id' },
    )
  }
  const connectedAccount = provider.name === 'stripe' ? settings.stripeAccount : null
  if (provider.name === 'stripe' && connectedAccount === null) {
    throw new DomainError(
      'no_connected_account',
      `this account has no connected Stripe account for payments to settle into: leadline account set ${account.accountId} --stripe-account acct_…`,
    )
  }
  const stream = customerStream(deps, account, input)
  const { state } = await commands.load(stream, leadDecider)
  const lead = requireCustomer(state)
  if (lead.doNotCall) throw new DomainError('do_not_call', 'the lead is do-not-call: Leadline does not text them')
  const textedTo = (lead.fields as NonNullable<LeadState['fields']>).phone
  // Dry runs too: a number that opted out by number is never texted (the decision checks it again on the log).
  const barred = personBarred('text', { phone: textedTo, doNotCall: false, suppressed: Object.hasOwn(lead.suppressed, textedTo) })
  if (barred !== null) throw new DomainError(barred.reason, barred.message)
  // Dry runs too: a lead form's test submission is never texted.
  if (lead.test) throw new DomainError('test_lead', "a test lead (a lead form's test submission): Leadline does not text it")

  const base = {
    amountCents: input.amountCents,
    currency: settings.currency,
    amount: formatAmount(input.amountCents, settings.currency),
    description: input.description,
    textedTo,
    from: settings.callerId,
    leadId: lead.leadId,
    connectedAccount,
    carrier: carrier.name,
    provider: provider.name,
  }
  if (input.dryRun) {
    return {
      ...base, requestId: null, status: 'would_text', url: null, expiresAt: null, messageId: null, dryRun: true,
      message: messageFor(account, base, LINK_PLACEHOLDER),
    }
  }

  const requestId = newId('pay')
  const decided = await commands.handle(
    stream,
    leadDecider,
    {
      type: 'RequestPayment',
      requestId,
      amountCents: input.amountCents,
      currency: settings.currency,
      description: input.description,
      connectedAccount,
      provider: provider.name,
      idempotencyKey: input.idempotencyKey,
      providerIdempotencyKey: providerIdempotencyKey(account.accountId, input.idempotencyKey, requestId),
      from: settings.callerId,
    },
    context,
  )
  const request = requestByIdempotencyKey(decided.state, input.idempotencyKey, clock()) as PaymentRequestRecord
  const outcome = await deps.effects.get(PayLinkSender).send(stream, request.requestId, account)
  switch (outcome.kind) {
    case 'texted': {
      const r = outcome.request
      return {
        ...base,
        amountCents: r.amountCents,
        currency: r.currency,
        amount: formatAmount(r.amountCents, r.currency),
        description: r.description,
        textedTo: r.to,
        from: r.from,
        connectedAccount: r.connectedAccount,
        provider: r.provider,
        carrier: (r.carrier ?? carrier.name) as RequestPaymentResult['carrier'],
        requestId: r.requestId,
        status: 'texted',
        url: r.url,
        expiresAt: r.expiresAt,
        messageId: r.messageId,
        message: messageFor(account, { ...base, amount: formatAmount(r.amountCents, r.currency), description: r.description }, r.url ?? ''),
        dryRun: false,
      }
    }
    case 'link_failed':
      throw new DomainError('stripe_error', `the ${provider.name} payments provider made no pay-link: ${outcome.message}`, {
        requestId: request.requestId,
        failure: outcome.failure,
        ...(outcome.providerCode !== null ? { providerCode: outcome.providerCode } : {}),
      })
    case 'text_failed':
      if (outcome.failure === 'do_not_contact') throw new DomainError('do_not_call', outcome.message, { requestId: request.requestId })
      if (outcome.failure === 'suppressed' || outcome.failure === 'test_lead') throw new DomainError(outcome.failure, outcome.message, { requestId: request.requestId })
      throw new DomainError('carrier_error', `the carrier did not send the pay-link: ${outcome.message}`, { requestId: request.requestId, failure: outcome.failure })
    case 'unknown':
      throw new DomainError(
        'carrier_error',
        'the carrier did not confirm the text; it may have been sent, and it is never sent again for this request',
        { requestId: request.requestId, failure: 'unknown_outcome' },
      )
  }
}

/** The lead's stream for the customer argument: a lead of this account, or customer_not_found. */
function customerStream(deps: RequestPaymentDeps, account: AccountState, input: RequestPaymentInput): string {
  if (input.phone !== undefined) {
    const last10 = phoneIdentity(input.phone)
    if (last10 === undefined) throw new DomainError('customer_not_found', 'no lead with that phone number in this account')
    return leadStream(account.accountId, last10)
  }
  const lead = input.leadId === undefined ? null : deps.inboundLeads.get(account.accountId, { leadId: input.leadId })
  if (!lead) throw new DomainError('customer_not_found', 'no lead with that id in this account')
  return leadStream(account.accountId, phoneIdentity(lead.phone) as string)
}

function requireCustomer(state: LeadState): LeadState {
  if (!state.exists || !state.fields) throw new DomainError('customer_not_found', 'no lead with that phone number or id in this account')
  return state
}

function messageFor(account: AccountState, values: { amount: string; description: string }, link: string): string {
  return renderPayLinkText(account.settings.payLinkTemplate, { business: account.name, description: values.description, amount: values.amount, link })
}
