/**
 * The pay-link sender: performs each pay-link decision (`PaymentRequested`) once: link → claim →
 * text → record. The provider request carries an idempotency key derived from the decision, so any
 * retry returns the same link; the text is claimed (`PayLinkTextAttempted`) before the carrier is
 * asked, so a person is texted at most once per request, on any node and across crashes ("outcome
 * unknown", never a resend). The process runner feeds it every decision; request_payment joins the
 * one in this process and waits for its outcome; after a restart, `recover` sends the requests
 * decided lately that were never texted.
 */
import { formatAmount, renderPayLinkText } from '../../domain/account/pay-link-text.ts'
import type { AccountState } from '../../domain/account/account.decider.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import type { PaymentRequestRecord } from '../../domain/lead/payments/payments.decider.ts'
import { PAY_LINK_EFFECT } from '../../domain/lead/payments/payments.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { messagingService, type Carrier } from '../../integrations/carrier/carrier.port.ts'
import { METADATA, PaymentsError, type PaymentsProvider } from '../../integrations/payments/payments.port.ts'
import { NODE_ID, OnceEffectProcess, pause, withCarrierRetries, type OnceEffectProcessOptions, type StuckClaim } from '../effect-process.ts'
import type { CreateEffectProcess } from '../effect-processes.ts'
import { RESTORED_FROM_BACKUP } from '../../domain/restore/log-restore.ts'
import type { UnclaimedDecision } from '../../../projections/claims/claims.queries.ts'

/** Our own retries of a rate-limited provider request (the SDK retries the rest); safe: same idempotency key. */
const PROVIDER_RETRIES = [500, 1500]
/** After a restart, requests decided this recently but never texted are sent; older ones are left as they are. */
export const RESUME_WINDOW_MS = 15 * 60 * 1000

export type SendOutcome =
  | { kind: 'texted'; request: PaymentRequestRecord }
  | { kind: 'link_failed'; failure: string; message: string; providerCode: string | null }
  | { kind: 'text_failed'; failure: string; message: string }
  | { kind: 'unknown'; message: string }

export interface PayLinkSenderOptions extends OnceEffectProcessOptions {
  readonly provider: PaymentsProvider
  readonly carrier: Carrier
  readonly publicUrl: string
}

/** The pay-link sender of this node (effect-processes.ts finds it here). */
export const createEffectProcess: CreateEffectProcess = (deps) => new PayLinkSender({ ...deps, provider: deps.paymentsProvider })

export class PayLinkSender extends OnceEffectProcess<PayLinkSenderOptions, SendOutcome> {
  override readonly effect = PAY_LINK_EFFECT
  protected override readonly resumeWindowMs = RESUME_WINDOW_MS

  protected override async perform(stream: string, requestId: string, account: AccountState): Promise<SendOutcome> {
    const { commands, provider, carrier, publicUrl, logger } = this.options
    const actor = { actor: this.actor }
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
        ;({ state } = await commands.handle(stream, leadDecider, { type: 'RecordPayLinkCreated', requestId, ...link }, actor))
      } catch (error) {
        const failure = error instanceof PaymentsError ? error.failure : 'unknown_outcome'
        const message = error instanceof Error ? error.message : String(error)
        const providerCode = error instanceof PaymentsError ? (error.details.providerCode ?? null) : null
        logger?.warn({ err: error, requestId, provider: provider.name }, 'pay-link not created')
        ;({ state } = await commands.handle(stream, leadDecider, { type: 'RecordPayLinkFailed', requestId, failure, message, providerCode }, actor))
      }
      request = state.payments.requests[requestId] as PaymentRequestRecord
    }
    if (request.stage !== 'linked') return this.awaitText(stream, requestId)

    const body = renderPayLinkText(account.settings.payLinkTemplate, {
      business: account.name, description: request.description, amount: formatAmount(request.amountCents, request.currency), link: request.url as string,
    })
    const claim = await commands.handle(stream, leadDecider, { type: 'StartPayLinkText', requestId, node: NODE_ID, body }, actor)
    const claimed = claim.newEvents[0]
    if (!claimed) return this.awaitText(stream, requestId) // claimed elsewhere: its outcome is ours too
    if (claimed.type === 'PayLinkTextFailed') return { kind: 'text_failed', failure: claimed.data.failure, message: claimed.data.message }

    const { from, to } = request
    return withCarrierRetries<SendOutcome>(
      async () => {
        const sent = await carrier.sendText({ from, to, body, reference: requestId, ...messagingService(account.settings) })
        const recorded = await commands.handle(stream, leadDecider, { type: 'RecordPayLinkTexted', requestId, messageId: sent.messageId, carrier: sent.carrier }, actor)
        return { kind: 'texted', request: recorded.state.payments.requests[requestId] as PaymentRequestRecord }
      },
      async ({ failure, message, carrierCode }) => {
        if (failure === 'unknown_outcome') {
          await commands.handle(stream, leadDecider, { type: 'RecordPayLinkTextUnknown', requestId, reason: message }, actor)
          logger?.warn({ requestId }, 'pay-link text outcome unknown: not resent')
          return { kind: 'unknown', message }
        }
        await commands.handle(stream, leadDecider, { type: 'RecordPayLinkTextFailed', requestId, failure, message, carrierCode }, actor)
        return { kind: 'text_failed', failure, message }
      },
    )
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

  /** Another node or an earlier call performs this request: its text's outcome on the log. */
  private awaitText(stream: string, requestId: string): Promise<SendOutcome> {
    return this.awaitOutcome(
      stream,
      (lead) => {
        const request = lead.payments.requests[requestId]
        switch (request?.stage) {
          case 'texted':
            return { kind: 'texted', request }
          case 'link_failed':
            return { kind: 'link_failed', failure: request.failure ?? 'rejected', message: request.failureMessage ?? 'the provider refused the request', providerCode: request.providerCode }
          case 'text_failed':
            return { kind: 'text_failed', failure: request.failure ?? 'rejected', message: request.failureMessage ?? 'the carrier refused the text' }
          case 'text_unknown':
            return { kind: 'unknown', message: request.failureMessage ?? 'no outcome recorded' }
          default:
            return undefined
        }
      },
      { kind: 'unknown', message: 'no outcome recorded yet' },
    )
  }

  protected override expire(decision: UnclaimedDecision): Promise<boolean> {
    return this.recordOnLead(decision.stream, { type: 'ExpirePaymentRequest', requestId: decision.id, reason: RESTORED_FROM_BACKUP })
  }

  protected override markUnknown(claim: StuckClaim): Promise<boolean> {
    return this.recordOnLead(claim.stream, { type: 'RecordPayLinkTextUnknown', requestId: claim.id, reason: 'no outcome was recorded for the text (the process stopped while sending)' })
  }
}
