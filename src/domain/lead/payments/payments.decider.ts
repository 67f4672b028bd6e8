/**
 * Pay-links to one lead: the part of the lead aggregate that decides to ask a person for a card
 * payment, records the link the provider made, claims the text before the carrier is asked (so a
 * person is texted at most once per request, on any number of nodes and across crashes), and
 * records how the payment settled. Deciding is separate from doing: `PaymentRequested` is the
 * decision, appended with an expected revision; the pay-link sender performs it.
 */
import { DomainError } from '../../shared/decider.ts'
import { personBarred, type CallTargetFacts } from '../../dialing/may-call.ts'
import type { IntakeState } from '../intake/intake.decider.ts'
import type { PaymentEvent, PaymentsProviderName } from './payments.events.ts'

/** How far the link and its text got. */
export type PayLinkStage = 'requested' | 'linked' | 'link_failed' | 'texting' | 'texted' | 'text_failed' | 'text_unknown' | 'expired'
/** What the provider says about the money. */
export type PaymentStatus = 'open' | 'settled' | 'failed' | 'expired'

export interface PaymentRequestRecord {
  readonly requestId: string
  readonly amountCents: number
  readonly currency: string
  readonly description: string
  readonly connectedAccount: string | null
  readonly provider: PaymentsProviderName
  readonly idempotencyKey: string
  readonly providerIdempotencyKey: string
  readonly from: string
  readonly to: string
  readonly requestedAt: string
  readonly stage: PayLinkStage
  readonly sessionId: string | null
  readonly url: string | null
  readonly expiresAt: string | null
  /** Why the link or the text failed (`rejected`, `do_not_contact`, `unknown_outcome`, …), what was said, and the provider's code. */
  readonly failure: string | null
  readonly failureMessage: string | null
  readonly providerCode: string | null
  readonly messageId: string | null
  readonly carrier: string | null
  readonly textedAt: string | null
  readonly status: PaymentStatus
  readonly settledAt: string | null
  readonly paymentIntentId: string | null
}

export interface PaymentsState {
  readonly requests: Readonly<Record<string, PaymentRequestRecord>>
  /** Request ids in the order they were decided. */
  readonly order: readonly string[]
}

export const INITIAL_PAYMENTS: PaymentsState = { requests: {}, order: [] }

/** What the payments slice reads of the lead: who the person is, whether they may be contacted, and their pay-links. */
export type LeadWithPayments = IntakeState & { readonly payments: PaymentsState }

export type PaymentCommand =
  | {
      type: 'RequestPayment'
      requestId: string
      amountCents: number
      currency: string
      description: string
      connectedAccount: string | null
      provider: PaymentsProviderName
      idempotencyKey: string
      providerIdempotencyKey: string
      from: string
    }
  | { type: 'RecordPayLinkCreated'; requestId: string; sessionId: string; url: string; expiresAt: string; provider: PaymentsProviderName }
  | { type: 'RecordPayLinkFailed'; requestId: string; failure: string; message: string; providerCode: string | null }
  | { type: 'StartPayLinkText'; requestId: string; node: string; body: string }
  | { type: 'RecordPayLinkTexted'; requestId: string; messageId: string; carrier: string }
  | { type: 'RecordPayLinkTextFailed'; requestId: string; failure: string; message: string; carrierCode: number | null }
  | { type: 'RecordPayLinkTextUnknown'; requestId: string; reason: string }
  /** A request decided (or claimed) before the backup a restore brought back, not known as texted: never texted. */
  | { type: 'ExpirePaymentRequest'; requestId: string; reason: string }
  | {
      type: 'RecordSettlement'
      outcome: 'settled' | 'failed' | 'expired'
      requestId: string
      sessionId: string
      amountCents: number | null
      currency: string | null
      paymentIntentId: string | null
      provider: PaymentsProviderName
      providerEventId: string
      at: string
    }

// Every type of the union, once: the compiler refuses a missing or a stray one.
const PAYMENT_COMMAND_TYPES: { readonly [T in PaymentCommand['type']]: true } = {
  RequestPayment: true, RecordPayLinkCreated: true, RecordPayLinkFailed: true, StartPayLinkText: true, RecordPayLinkTexted: true,
  RecordPayLinkTextFailed: true, RecordPayLinkTextUnknown: true, ExpirePaymentRequest: true, RecordSettlement: true,
}

export function isPaymentCommand(command: { readonly type: string }): command is PaymentCommand {
  return Object.hasOwn(PAYMENT_COMMAND_TYPES, command.type)
}

function update(state: PaymentsState, requestId: string, change: Partial<PaymentRequestRecord>): PaymentsState {
  const request = state.requests[requestId]
  if (!request) return state
  return { ...state, requests: { ...state.requests, [requestId]: { ...request, ...change } } }
}

export function evolvePayments(state: PaymentsState, event: PaymentEvent): PaymentsState {
  switch (event.type) {
    case 'PaymentRequested': {
      const d = event.data
      const request: PaymentRequestRecord = {
        requestId: d.requestId, amountCents: d.amountCents, currency: d.currency, description: d.description,
        connectedAccount: d.connectedAccount, provider: d.provider, idempotencyKey: d.idempotencyKey,
        providerIdempotencyKey: d.providerIdempotencyKey, from: d.from, to: d.to, requestedAt: d.requestedAt,
        stage: 'requested', sessionId: null, url: null, expiresAt: null, failure: null, failureMessage: null, providerCode: null, messageId: null, carrier: null,
        textedAt: null, status: 'open', settledAt: null, paymentIntentId: null,
      }
      return { requests: { ...state.requests, [d.requestId]: request }, order: [...state.order, d.requestId] }
    }
    case 'PayLinkCreated':
      return update(state, event.data.requestId, { stage: 'linked', sessionId: event.data.sessionId, url: event.data.url, expiresAt: event.data.expiresAt })
    case 'PayLinkFailed':
      return update(state, event.data.requestId, { stage: 'link_failed', failure: event.data.failure, failureMessage: event.data.message, providerCode: event.data.providerCode })
    case 'PayLinkTextAttempted':
      return update(state, event.data.requestId, { stage: 'texting' })
    case 'PayLinkTexted':
      return update(state, event.data.requestId, { stage: 'texted', messageId: event.data.messageId, carrier: event.data.carrier, textedAt: event.data.at })
    case 'PayLinkTextFailed':
      return update(state, event.data.requestId, { stage: 'text_failed', failure: event.data.failure, failureMessage: event.data.message })
    case 'PayLinkTextOutcomeUnknown':
      return update(state, event.data.requestId, { stage: 'text_unknown', failure: 'unknown_outcome', failureMessage: event.data.reason })
    case 'PaymentRequestExpired':
      return update(state, event.data.requestId, { stage: 'expired', failure: 'expired', failureMessage: event.data.reason })
    case 'PaymentSettled':
      return update(state, event.data.requestId, {
        status: 'settled', settledAt: event.data.at, paymentIntentId: event.data.paymentIntentId, sessionId: event.data.sessionId,
      })
    case 'PaymentFailed':
      return update(state, event.data.requestId, { status: 'failed' })
    case 'PaymentLinkExpired':
      return update(state, event.data.requestId, { status: 'expired' })
    default: {
      const _: never = event
      return state
    }
  }
}

function requireRequest(state: LeadWithPayments, requestId: string): PaymentRequestRecord {
  const request = state.payments.requests[requestId]
  if (!request) throw new DomainError('payment_request_not_found', `no payment request ${requestId} on this lead`)
  return request
}

/** How long a caller's idempotency key names one request: as long as the tool endpoint honours the key. */
export const REQUEST_KEY_RETENTION_MS = 24 * 60 * 60 * 1000

/** The request a caller's idempotency key made on this lead within the retention before `now`, if any. */
export function requestByIdempotencyKey(state: LeadWithPayments, idempotencyKey: string, now: Date): PaymentRequestRecord | undefined {
  const since = now.getTime() - REQUEST_KEY_RETENTION_MS
  return state.payments.order
    .map((id) => state.payments.requests[id] as PaymentRequestRecord)
    .findLast((r) => r.idempotencyKey === idempotencyKey && Date.parse(r.requestedAt) > since)
}

/** The request a provider session belongs to, if any. */
export function requestBySession(state: LeadWithPayments, sessionId: string): PaymentRequestRecord | undefined {
  return state.payments.order.map((id) => state.payments.requests[id] as PaymentRequestRecord).find((r) => r.sessionId === sessionId)
}

/** What the one policy weighs about the person a pay-link is texted to. */
function payLinkTarget(state: LeadWithPayments, to: string): CallTargetFacts {
  return { phone: to, doNotCall: state.doNotCall, suppressed: Object.hasOwn(state.suppressed, to), ...(state.test ? { testLead: true } : {}) }
}

export function decidePayments(command: PaymentCommand, state: LeadWithPayments, now: Date): PaymentEvent[] {
  const at = now.toISOString()
  switch (command.type) {
    case 'RequestPayment': {
      if (!state.exists || !state.fields) throw new DomainError('customer_not_found', 'no lead with that phone number or id in this account')
      // The same key on the same lead is the same request: decided once, whatever the retries.
      if (requestByIdempotencyKey(state, command.idempotencyKey, now)) return []
      if (state.doNotCall) throw new DomainError('do_not_call', 'the lead is do-not-call: Leadline does not text them')
      // The one policy's rules about the person (may-call.ts): the number's own opt-out too.
      const barred = personBarred('text', payLinkTarget(state, state.fields.phone))
      if (barred !== null) throw new DomainError(barred.reason, barred.message)
      return [
        {
          type: 'PaymentRequested',
          data: {
            leadId: state.leadId,
            requestId: command.requestId,
            amountCents: command.amountCents,
            currency: command.currency,
            description: command.description,
            connectedAccount: command.connectedAccount,
            provider: command.provider,
            idempotencyKey: command.idempotencyKey,
            providerIdempotencyKey: command.providerIdempotencyKey,
            from: command.from,
            to: state.fields.phone,
            requestedAt: at,
          },
        },
      ]
    }
    case 'RecordPayLinkCreated': {
      const request = requireRequest(state, command.requestId)
      if (request.stage !== 'requested') return []
      const { requestId, sessionId, url, expiresAt, provider } = command
      return [{ type: 'PayLinkCreated', data: { requestId, sessionId, url, expiresAt, provider, at } }]
    }
    case 'RecordPayLinkFailed': {
      const request = requireRequest(state, command.requestId)
      if (request.stage !== 'requested') return []
      return [{ type: 'PayLinkFailed', data: { requestId: request.requestId, failure: command.failure, message: command.message, providerCode: command.providerCode, at } }]
    }
    case 'StartPayLinkText': {
      const request = requireRequest(state, command.requestId)
      // Claimed before (here, on another node, or before a crash): never a second text.
      if (request.stage !== 'linked') return []
      if (state.doNotCall) {
        return [{ type: 'PayLinkTextFailed', data: { requestId: request.requestId, failure: 'do_not_contact', message: 'the lead became do-not-call before the text went out', carrierCode: null, at } }]
      }
      const barred = personBarred('text', payLinkTarget(state, request.to))
      if (barred !== null) {
        return [{ type: 'PayLinkTextFailed', data: { requestId: request.requestId, failure: barred.reason, message: `not texted: ${barred.message}`, carrierCode: null, at } }]
      }
      return [{ type: 'PayLinkTextAttempted', data: { requestId: request.requestId, node: command.node, from: request.from, to: request.to, body: command.body, at } }]
    }
    case 'RecordPayLinkTexted': {
      const request = requireRequest(state, command.requestId)
      if (request.stage !== 'texting') return []
      return [{ type: 'PayLinkTexted', data: { requestId: request.requestId, messageId: command.messageId, carrier: command.carrier, at } }]
    }
    case 'RecordPayLinkTextFailed': {
      const request = requireRequest(state, command.requestId)
      if (request.stage !== 'texting') return []
      return [{ type: 'PayLinkTextFailed', data: { requestId: request.requestId, failure: command.failure, message: command.message, carrierCode: command.carrierCode, at } }]
    }
    case 'RecordPayLinkTextUnknown': {
      const request = requireRequest(state, command.requestId)
      if (request.stage !== 'texting') return []
      return [{ type: 'PayLinkTextOutcomeUnknown', data: { requestId: request.requestId, reason: command.reason, at } }]
    }
    case 'ExpirePaymentRequest': {
      const request = requireRequest(state, command.requestId)
      if (request.stage !== 'requested' && request.stage !== 'linked' && request.stage !== 'texting') return []
      return [{ type: 'PaymentRequestExpired', data: { requestId: request.requestId, reason: command.reason, at } }]
    }
    case 'RecordSettlement':
      return settle(state, command)
    default: {
      const _: never = command
      throw new DomainError('unknown_command', `the payments slice has no command ${(command as { type: string }).type}`)
    }
  }
}

/** The provider's word on a link: duplicates, retries and late events after a settlement change nothing. */
function settle(state: LeadWithPayments, command: Extract<PaymentCommand, { type: 'RecordSettlement' }>): PaymentEvent[] {
  const request = requireRequest(state, command.requestId)
  if (request.sessionId !== null && request.sessionId !== command.sessionId) {
    throw new DomainError('payment_session_mismatch', `payment request ${request.requestId} has session ${request.sessionId}, not ${command.sessionId}`)
  }
  if (request.status === 'settled') return []
  const ref = { requestId: request.requestId, sessionId: command.sessionId, provider: command.provider, providerEventId: command.providerEventId, at: command.at }
  switch (command.outcome) {
    case 'settled':
      return [
        {
          type: 'PaymentSettled',
          data: {
            ...ref,
            amountCents: command.amountCents ?? request.amountCents,
            currency: command.currency ?? request.currency,
            paymentIntentId: command.paymentIntentId,
          },
        },
      ]
    case 'failed':
      return request.status === 'open' ? [{ type: 'PaymentFailed', data: ref }] : []
    case 'expired':
      return request.status === 'open' ? [{ type: 'PaymentLinkExpired', data: ref }] : []
  }
}
