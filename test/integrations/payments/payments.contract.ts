/**
 * The payments contract: one suite, run unchanged against every provider (Stripe through the real
 * SDK against the fake Stripe server, and the simulated provider). A provider test file supplies a
 * harness and calls `paymentsContract(t, harness)`.
 */
import type { Test } from 'tap'
import {
  METADATA,
  PaymentsError,
  isRetryablePaymentsFailure,
  type CreatePayLinkRequest,
  type PaymentsProvider,
  type PaymentsProviderName,
} from '../../../src/integrations/payments/payments.port.ts'

/** What the provider itself received, in the port's words. */
export interface ObservedLink {
  amountCents: number
  currency: string
  description: string
  connectedAccount: string | null
  idempotencyKey: string
  metadata: Record<string, string>
}

export interface PaymentsHarness {
  name: PaymentsProviderName
  /** The connected account requests name (null for the simulated provider). */
  connectedAccount: string | null
  open(t: Test): Promise<{ provider: PaymentsProvider; observed(): ObservedLink[] }>
}

export function payLinkRequest(connectedAccount: string | null, change: Partial<CreatePayLinkRequest> = {}): CreatePayLinkRequest {
  return {
    requestId: 'pay_contract00000001',
    amountCents: 12500,
    currency: 'usd',
    description: 'Roof inspection deposit',
    connectedAccount,
    idempotencyKey: 'leadline-pay-contract-1',
    metadata: { [METADATA.leadStream]: 'lead-acc_1-3125550142', [METADATA.requestId]: 'pay_contract00000001', [METADATA.accountId]: 'acc_1', [METADATA.leadId]: 'ld_1' },
    successUrl: 'http://leadline.test/pay/thanks',
    businessName: 'Acme Roofing',
    ...change,
  }
}

async function failure(promise: Promise<unknown>): Promise<PaymentsError> {
  const outcome = await promise.then(
    () => new Error('expected the request to fail'),
    (e: unknown) => e,
  )
  if (!(outcome instanceof PaymentsError)) throw outcome
  return outcome
}

export function paymentsContract(t: Test, harness: PaymentsHarness): Promise<unknown> {
  return t.test(`${harness.name} payments contract`, async (t) => {
    t.test('makes a link: its session, an http(s) url, an expiry about 24 hours on, and the provider got exactly the request', async (t) => {
      const { provider, observed } = await harness.open(t)
      t.equal(provider.name, harness.name)
      const before = Date.now()
      const link = await provider.createPayLink(payLinkRequest(harness.connectedAccount))
      t.equal(link.provider, harness.name)
      t.match(link.url, /^https?:\/\/\S+$/)
      t.ok(link.url.includes(link.sessionId), 'the url names the session')
      const ttl = Date.parse(link.expiresAt) - before
      t.ok(ttl > 23 * 3600_000 && ttl <= 24 * 3600_000 + 5000, `expires in about 24 hours (${ttl} ms)`)
      const request = payLinkRequest(harness.connectedAccount)
      t.same(observed(), [
        { amountCents: 12500, currency: 'usd', description: request.description, connectedAccount: harness.connectedAccount, idempotencyKey: request.idempotencyKey, metadata: request.metadata },
      ])
    })

    t.test('the same idempotency key returns the same link', async (t) => {
      const { provider } = await harness.open(t)
      const first = await provider.createPayLink(payLinkRequest(harness.connectedAccount))
      const again = await provider.createPayLink(payLinkRequest(harness.connectedAccount))
      t.same(again, first)
      const other = await provider.createPayLink(payLinkRequest(harness.connectedAccount, { idempotencyKey: 'leadline-pay-contract-2' }))
      t.not(other.sessionId, first.sessionId, 'another key is another link')
    })

    t.test('the same key with other parameters is refused, not a second link', async (t) => {
      const { provider } = await harness.open(t)
      await provider.createPayLink(payLinkRequest(harness.connectedAccount))
      const error = await failure(provider.createPayLink(payLinkRequest(harness.connectedAccount, { amountCents: 9900 })))
      t.equal(error.failure, 'rejected')
      t.equal(isRetryablePaymentsFailure(error), false)
    })

    t.test('an amount that is not a positive whole number is rejected', async (t) => {
      const { provider } = await harness.open(t)
      const error = await failure(provider.createPayLink(payLinkRequest(harness.connectedAccount, { amountCents: 0, idempotencyKey: 'zero' })))
      t.match(error, { type: 'payments_error', failure: 'rejected', details: { status: 400 } })
    })

    t.test('after close, nothing is made', async (t) => {
      const { provider } = await harness.open(t)
      await provider.close?.()
      t.match(await failure(provider.createPayLink(payLinkRequest(harness.connectedAccount))), { failure: 'rejected' })
    })
  })
}
