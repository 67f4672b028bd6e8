/**
 * What a payments provider reports about a pay-link (Stripe's webhook, the simulated pay page):
 * recorded on the lead once; duplicates, retries and events for links Leadline did not make change nothing.
 */
import { leadDecider } from '../domain/lead/lead.decider.ts'
import { parseLeadStream } from '../domain/lead/lead.events.ts'
import type { CommandHandler } from '../eventstore/command-handler.ts'
import type { SettlementNotice } from '../integrations/payments/payments.port.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { PaymentsQueries } from '../../projections/payments/payments.queries.ts'
import type { Accounts } from './accounts.ts'

export type SettleResult =
  | { readonly kind: 'recorded'; readonly stream: string; readonly requestId: string }
  | { readonly kind: 'duplicate'; readonly stream: string; readonly requestId: string }
  | { readonly kind: 'ignored'; readonly reason: string }

export interface RecordSettlementDeps {
  readonly commands: CommandHandler
  readonly accounts: Pick<Accounts, 'get'>
  readonly payLinks: PaymentsQueries
  readonly runner: ProjectionRunner
}

/** Records how a pay-link settled on its lead, or says why the notice changes nothing. */
export async function recordSettlement(deps: RecordSettlementDeps, notice: SettlementNotice): Promise<SettleResult> {
  const { commands, accounts, payLinks, runner } = deps
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
