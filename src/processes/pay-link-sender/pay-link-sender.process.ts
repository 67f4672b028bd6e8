/**
 * Payments: decides pay-link requests, performs them (link → claim → text → record), and settles
 * them from what the provider reports. Deciding is separate from doing: `PaymentRequested` is
 * appended to the lead's stream with an expected revision before anything is sent; the provider
 * request carries an idempotency key derived from that decision, so any retry returns the same
 * link; the text is claimed (`PayLinkTextAttempted`) before the carrier is asked, so a person is
 * texted at most once per request, on any node and across crashes ("outcome unknown", never a resend).
 */
import os from 'node:os'
import type { Logger } from 'pino'
import type { AccountState } from '../../domain/account/account.decider.ts'
import { formatAmount, renderPayLinkText } from '../../domain/account/pay-link-text.ts'
import { leadDecider, type LeadState } from '../../domain/lead/lead.decider.ts'
import { leadStream, parseLeadStream } from '../../domain/lead/lead.events.ts'
import { requestByIdempotencyKey, type PaymentRequestRecord } from '../../domain/lead/lead-payments.ts'
import { phoneIdentity } from '../../domain/lead/intake/phone.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { newId } from '../../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../../eventstore/command-handler.ts'
import { CarrierError, isRetryableCarrierFailure, type Carrier } from '../../integrations/carrier/carrier.port.ts'
import { METADATA, PaymentsError, type PaymentsProvider, type SettlementNotice } from '../../integrations/payments/payments.port.ts'
import type { ProjectionRunner } from '../../read-models/projection-runner.ts'
import type { InboundLeadsQueries } from '../../../projections/inbound-leads/inbound-leads.queries.ts'
import type { PaymentsQueries } from '../../../projections/payments/payments.queries.ts'
import type { AccountsService } from '../../commands/accounts.ts'
import type { PaymentsApi, RequestPaymentInput, RequestPaymentResult } from '../../commands/request-payment.command.ts'
import { sha256Hex } from '../../domain/shared/sha256.ts'

/** Who this process is, in `PayLinkTextAttempted` (host and pid: enough to tell nodes apart). */
const NODE_ID = `${os.hostname()}:${process.pid}`
const SENDER: CommandContext['actor'] = { kind: 'process', id: 'pay-link-sender' }
/** Retries of a carrier request that cannot have sent the text (429, connection refused). */
const CARRIER_RETRIES = [250, 1000]
/** Our own retries of a rate-limited provider request (the SDK retries the rest); safe: same idempotency key. */
const PROVIDER_RETRIES = [500, 1500]
/** After a restart, requests decided this recently but never texted are sent; older ones are left as they are. */
export const RESUME_WINDOW_MS = 15 * 60 * 1000
/** Where a dry run's message shows the link. */
export const LINK_PLACEHOLDER = '<link>'

/**
 * The provider's Idempotency-Key for a decision: derived from the account, the caller's
 * idempotency key and the request id, so every retry of one decision (SDK, ours, another node,
 * recovery after a restart) sends the same key, and two decisions never share one.
 */
export function providerIdempotencyKey(accountId: string, idempotencyKey: string, requestId: string): string {
  return `leadline-pay-${sha256Hex(JSON.stringify(['pay-link/v1', accountId, idempotencyKey, requestId]))}`
}

type SendOutcome =
  | { kind: 'texted'; request: PaymentRequestRecord }
  | { kind: 'link_failed'; failure: string; message: string; providerCode: string | null }
  | { kind: 'text_failed'; failure: string; message: string }
  | { kind: 'unknown'; message: string }

export type SettleResult =
  | { readonly kind: 'recorded'; readonly stream: string; readonly requestId: string }
  | { readonly kind: 'duplicate'; readonly stream: string; readonly requestId: string }
  | { readonly kind: 'ignored'; readonly reason: string }

export interface PaymentsOptions {
  readonly commands: CommandHandler
  readonly accounts: AccountsService
  readonly inboundLeads: InboundLeadsQueries
  readonly payLinks: PaymentsQueries
  readonly runner: ProjectionRunner
  readonly provider: PaymentsProvider
  readonly carrier: Carrier
  readonly publicUrl: string
  readonly clock: () => Date
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>
}

export class PaymentsService implements PaymentsApi {
  /** Requests this process is performing: a second caller joins the first instead of racing it. */
  private readonly inFlight = new Map<string, Promise<SendOutcome>>()

  constructor(private readonly options: PaymentsOptions) {}

  get provider(): PaymentsProvider {
    return this.options.provider
  }

  async requestPayment(account: AccountState, input: RequestPaymentInput, context: CommandContext): Promise<RequestPaymentResult> {
    const { commands, provider, carrier, clock } = this.options
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
    const stream = this.customerStream(account, input)
    const { state } = await commands.load(stream, leadDecider)
    const lead = requireCustomer(state)
    if (lead.doNotCall) throw new DomainError('do_not_contact', 'the lead is do-not-call: Leadline does not text them')

    const base = {
      amountCents: input.amountCents,
      currency: settings.currency,
      amount: formatAmount(input.amountCents, settings.currency),
      description: input.description,
      textedTo: (lead.fields as NonNullable<LeadState['fields']>).phone,
      from: settings.callerId,
      leadId: lead.leadId,
      connectedAccount,
      carrier: carrier.name,
      provider: provider.name,
    }
    if (input.dryRun) {
      return {
        ...base, requestId: null, status: 'would_text', url: null, expiresAt: null, messageId: null, dryRun: true,
        message: this.messageFor(account, base, LINK_PLACEHOLDER),
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
    const outcome = await this.send(stream, request.requestId, account)
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
          message: this.messageFor(account, { ...base, amount: formatAmount(r.amountCents, r.currency), description: r.description }, r.url ?? ''),
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
        if (outcome.failure === 'do_not_contact') throw new DomainError('do_not_contact', outcome.message, { requestId: request.requestId })
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
  private customerStream(account: AccountState, input: RequestPaymentInput): string {
    if (input.phone !== undefined) {
      const last10 = phoneIdentity(input.phone)
      if (last10 === undefined) throw new DomainError('customer_not_found', 'no lead with that phone number in this account')
      return leadStream(account.accountId, last10)
    }
    const lead = input.leadId === undefined ? null : this.options.inboundLeads.get(account.accountId, { leadId: input.leadId })
    if (!lead) throw new DomainError('customer_not_found', 'no lead with that id in this account')
    return leadStream(account.accountId, phoneIdentity(lead.phone) as string)
  }

  private messageFor(account: AccountState, values: { amount: string; description: string }, link: string): string {
    return renderPayLinkText(account.settings.payLinkTemplate, { business: account.name, description: values.description, amount: values.amount, link })
  }

  /** Performs a decision once per process; a caller that finds it running waits for the same outcome. */
  private send(stream: string, requestId: string, account: AccountState): Promise<SendOutcome> {
    let running = this.inFlight.get(requestId)
    if (!running) {
      running = this.perform(stream, requestId, account).finally(() => this.inFlight.delete(requestId))
      this.inFlight.set(requestId, running)
    }
    return running
  }

  private async perform(stream: string, requestId: string, account: AccountState): Promise<SendOutcome> {
    const { commands, provider, carrier, publicUrl } = this.options
    let { state } = await commands.load(stream, leadDecider)
    let request = state.payments.requests[requestId]
    if (!request) throw new DomainError('payment_request_not_found', `no payment request ${requestId} on ${stream}`)

    if (request.stage === 'requested') {
      try {
        const link = await this.withProviderRetries(() =>
          provider.createPayLink({
            requestId,
            amountCents: request!.amountCents,
            currency: request!.currency,
            description: request!.description,
            connectedAccount: request!.connectedAccount,
            idempotencyKey: request!.providerIdempotencyKey,
            metadata: { [METADATA.leadStream]: stream, [METADATA.requestId]: requestId, [METADATA.accountId]: account.accountId, [METADATA.leadId]: state.leadId },
            successUrl: `${publicUrl}/pay/thanks`,
            businessName: account.name,
          }),
        )
        ;({ state } = await commands.handle(stream, leadDecider, { type: 'RecordPayLinkCreated', requestId, ...link }, { actor: SENDER }))
      } catch (error) {
        const failure = error instanceof PaymentsError ? error.failure : 'unknown_outcome'
        const message = error instanceof Error ? error.message : String(error)
        const providerCode = error instanceof PaymentsError ? (error.details.providerCode ?? null) : null
        this.options.logger?.warn({ err: error, requestId, provider: provider.name }, 'pay-link not created')
        ;({ state } = await commands.handle(stream, leadDecider, { type: 'RecordPayLinkFailed', requestId, failure, message, providerCode }, { actor: SENDER }))
      }
      request = state.payments.requests[requestId] as PaymentRequestRecord
    }
    if (request.stage !== 'linked') return this.awaitText(stream, requestId)

    const body = this.messageFor(account, { amount: formatAmount(request.amountCents, request.currency), description: request.description }, request.url as string)
    const claim = await commands.handle(stream, leadDecider, { type: 'StartPayLinkText', requestId, node: NODE_ID, body }, { actor: SENDER })
    const claimed = claim.newEvents[0]
    if (!claimed) return this.awaitText(stream, requestId) // claimed elsewhere: its outcome is ours too
    if (claimed.type === 'PayLinkTextFailed') return { kind: 'text_failed', failure: claimed.data.failure, message: claimed.data.message }

    for (let attempt = 0; ; attempt++) {
      try {
        const sent = await carrier.sendText({ from: request.from, to: request.to, body, reference: requestId })
        const recorded = await commands.handle(stream, leadDecider, { type: 'RecordPayLinkTexted', requestId, messageId: sent.messageId, carrier: sent.carrier }, { actor: SENDER })
        return { kind: 'texted', request: recorded.state.payments.requests[requestId] as PaymentRequestRecord }
      } catch (error) {
        const retryIn = CARRIER_RETRIES[attempt]
        if (isRetryableCarrierFailure(error) && retryIn !== undefined) {
          const after = (error as CarrierError).details.retryAfterSeconds
          await pause(Math.min(after !== undefined ? after * 1000 : retryIn, 5000))
          continue
        }
        const failure = error instanceof CarrierError ? error.failure : 'unknown_outcome'
        const message = error instanceof Error ? error.message : String(error)
        if (failure === 'unknown_outcome') {
          await commands.handle(stream, leadDecider, { type: 'RecordPayLinkTextUnknown', requestId, reason: message }, { actor: SENDER })
          this.options.logger?.warn({ requestId }, 'pay-link text outcome unknown: not resent')
          return { kind: 'unknown', message }
        }
        const carrierCode = error instanceof CarrierError ? (error.details.carrierCode ?? null) : null
        await commands.handle(stream, leadDecider, { type: 'RecordPayLinkTextFailed', requestId, failure, message, carrierCode }, { actor: SENDER })
        return { kind: 'text_failed', failure, message }
      }
    }
  }

  private async withProviderRetries<T>(request: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request()
      } catch (error) {
        const retryIn = PROVIDER_RETRIES[attempt]
        if (!(error instanceof PaymentsError && error.failure === 'rate_limited') || retryIn === undefined) throw error
        await pause(retryIn)
      }
    }
  }

  /** Another node or an earlier call performs this request: wait for its text's outcome on the log. */
  private async awaitText(stream: string, requestId: string, timeoutMs = 25_000): Promise<SendOutcome> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const { state } = await this.options.commands.load(stream, leadDecider)
      const request = state.payments.requests[requestId]
      switch (request?.stage) {
        case 'texted':
          return { kind: 'texted', request }
        case 'link_failed':
          return { kind: 'link_failed', failure: request.failure ?? 'rejected', message: request.failureMessage ?? 'the provider refused the request', providerCode: request.providerCode }
        case 'text_failed':
          return { kind: 'text_failed', failure: request.failure ?? 'rejected', message: request.failureMessage ?? 'the carrier refused the text' }
        case 'text_unknown':
          return { kind: 'unknown', message: request.failureMessage ?? 'no outcome recorded' }
      }
      if (performance.now() > deadline) return { kind: 'unknown', message: 'no outcome recorded yet' }
      await pause(100)
    }
  }

  /**
   * What a provider reported about a link (Stripe's webhook, the simulated pay page): recorded on
   * the lead once; duplicates, retries and events for links Leadline did not make change nothing.
   */
  async settle(notice: SettlementNotice): Promise<SettleResult> {
    const { commands, accounts, payLinks, runner } = this.options
    let stream = notice.leadStream
    let requestId = notice.requestId
    if (stream === null || requestId === null) {
      // A link without our metadata: find it by its session in the pay-link log.
      const row = payLinks.bySessionId(notice.sessionId) ?? (await runner.catchUp(), payLinks.bySessionId(notice.sessionId))
      if (!row) return { kind: 'ignored', reason: 'unknown_session' }
      stream = row.stream
      requestId = row.requestId
    }
    const parsed = parseLeadStream(stream)
    const account = parsed ? await accounts.get(parsed.accountId) : null
    if (!account) return { kind: 'ignored', reason: 'unknown_account' }
    const { state } = await commands.load(stream, leadDecider)
    // Own keys only: a request id of `__proto__` or `constructor` names no request.
    const request = Object.hasOwn(state.payments.requests, requestId) ? state.payments.requests[requestId] : undefined
    if (!request) return { kind: 'ignored', reason: 'unknown_request' }
    if (request.provider !== notice.provider) return { kind: 'ignored', reason: 'provider_mismatch' }
    // Money settles into the connected account the request was made on; anything else is not ours.
    if (request.connectedAccount !== notice.connectedAccount) return { kind: 'ignored', reason: 'connected_account_mismatch' }
    if (request.sessionId !== null && request.sessionId !== notice.sessionId) return { kind: 'ignored', reason: 'session_mismatch' }
    const result = await commands.handle(
      stream,
      leadDecider,
      {
        type: 'RecordSettlement',
        outcome: notice.outcome,
        requestId,
        sessionId: notice.sessionId,
        amountCents: notice.amountCents,
        currency: notice.currency,
        paymentIntentId: notice.paymentIntentId,
        provider: notice.provider,
        providerEventId: notice.eventId,
        at: notice.at,
      },
      { actor: { kind: 'payments', id: notice.provider } },
    )
    return { kind: result.newEvents.length > 0 ? 'recorded' : 'duplicate', stream, requestId }
  }

  /** After a restart: send requests decided lately but never texted; mark texts left without an outcome as unknown. */
  async recover(stuckAfterMs: number): Promise<void> {
    const { runner, payLinks, clock, accounts } = this.options
    await runner.catchUp()
    const since = new Date(clock().getTime() - RESUME_WINDOW_MS).toISOString()
    for (const row of payLinks.unsent(since)) {
      const account = await accounts.get(row.accountId)
      if (!account) continue
      this.send(row.stream, row.requestId, account).catch((error: unknown) => {
        this.options.logger?.error({ err: error, requestId: row.requestId }, 'resuming a pay-link failed')
      })
    }
    await this.sweep(stuckAfterMs)
  }

  /** Texts claimed longer ago than any carrier request can take, with no outcome: marked unknown, never resent. */
  async sweep(stuckAfterMs: number): Promise<number> {
    const { runner, payLinks, clock, commands } = this.options
    await runner.catchUp()
    const before = new Date(clock().getTime() - stuckAfterMs).toISOString()
    let marked = 0
    for (const row of payLinks.stuckTexts(before)) {
      if (this.inFlight.has(row.requestId)) continue
      try {
        const result = await commands.handle(
          row.stream,
          leadDecider,
          { type: 'RecordPayLinkTextUnknown', requestId: row.requestId, reason: 'no outcome was recorded for the text (the process stopped while sending)' },
          { actor: SENDER },
        )
        marked += result.newEvents.length > 0 ? 1 : 0
      } catch (error) {
        this.options.logger?.error({ err: error, requestId: row.requestId }, 'could not mark a stuck pay-link text')
      }
    }
    return marked
  }
}

function requireCustomer(state: LeadState): LeadState {
  if (!state.exists || !state.fields) throw new DomainError('customer_not_found', 'no lead with that phone number or id in this account')
  return state
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
