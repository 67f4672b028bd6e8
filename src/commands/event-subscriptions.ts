/**
 * Outbound events subscriptions (issue #28): subscribe a URL, list, unsubscribe, rotate its signing
 * secret; and the deliveries' log, with retry by hand. The signing secret (`whsec_…`, Standard
 * Webhooks' format: 32 random bytes in base64) is made here, shown once to the caller, and recorded
 * on the account's stream only sealed (the secret box), so the delivery can sign with it later.
 */
import { randomBytes } from 'node:crypto'
import { accountDecider, type EventSubscriptionState } from '../domain/account/account.decider.ts'
import { accountStream } from '../domain/account/account.events.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { newId } from '../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import type { SecretBox } from '../integrations/secrets/secret-box.ts'
import type { EventReceivers } from '../integrations/event-receivers/event-receivers.ts'
import type { Delivery, DeliveryAttempt, DeliveryStatus, OutboundDeliveries } from '../read-models/outbound-deliveries.ts'
import { subscriptionSecretPurpose, type OutboundEvents } from '../processes/outbound-events/outbound-events.process.ts'
import type { Accounts } from './accounts.ts'

export const SIGNING_SECRET_PREFIX = 'whsec_'

/** A subscription as it is shown: never its secret, sealed or not. */
export interface SubscriptionView {
  readonly subscriptionId: string
  readonly url: string
  readonly types: readonly string[] | null
  readonly secretHint: string
  readonly subscribedAt: string
}

/** A delivery as it is shown: its status and attempts, not its payload's contents beyond the type. */
export interface DeliveryView {
  readonly deliveryId: number
  readonly webhookId: string
  readonly subscriptionId: string
  readonly type: string
  readonly eventId: string
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly lastAttemptAt: string | null
  readonly lastStatus: number | null
  readonly lastError: string | null
  readonly nextAttemptAt: string | null
  readonly createdAt: string
}

export function subscriptionView(s: EventSubscriptionState): SubscriptionView {
  return { subscriptionId: s.subscriptionId, url: s.url, types: s.types, secretHint: s.secretHint, subscribedAt: s.subscribedAt }
}

function deliveryView(d: Delivery): DeliveryView {
  return {
    deliveryId: d.id, webhookId: d.webhookId, subscriptionId: d.subscriptionId, type: d.type, eventId: d.eventId, status: d.status, attempts: d.attempts,
    lastAttemptAt: d.lastAttemptAt, lastStatus: d.lastStatus, lastError: d.lastError,
    nextAttemptAt: d.status === 'pending' ? new Date(d.nextAttemptAt).toISOString() : null, createdAt: d.createdAt,
  }
}

function newSigningSecret(): { secret: string; hint: string } {
  const secret = `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`
  return { secret, hint: `${secret.slice(0, SIGNING_SECRET_PREFIX.length + 4)}…` }
}

export class EventSubscriptions {
  constructor(
    private readonly deps: {
      readonly commands: CommandHandler
      readonly accounts: Accounts
      readonly secretBox: SecretBox
      /** Checks a receiver URL: https, on public addresses only (unless the operator allows private ones). */
      readonly receivers: Pick<EventReceivers, 'check'>
      readonly deliveries: OutboundDeliveries
      readonly outboundEvents: OutboundEvents
      readonly clock: () => Date
    },
  ) {}

  /** Subscribes `url`; the answer holds the signing secret, the only time it is ever shown. */
  async subscribe(accountId: string, url: string, types: readonly string[] | null, context: CommandContext): Promise<{ subscription: SubscriptionView; secret: string }> {
    // Every delivery checks the receiver's addresses again; this refuses a URL that could never be delivered to.
    await this.deps.receivers.check(url)
    const subscriptionId = newId('sub')
    const { secret, hint } = newSigningSecret()
    const sealedSecret = this.deps.secretBox.seal(secret, subscriptionSecretPurpose(accountId, subscriptionId))
    const result = await this.deps.commands.handle(accountStream(accountId), accountDecider, { type: 'SubscribeEvents', subscriptionId, url, types, sealedSecret, secretHint: hint }, context)
    return { subscription: subscriptionView(result.state.subscriptions.get(subscriptionId) as EventSubscriptionState), secret }
  }

  /** A new signing secret for the subscription, shown once; every delivery from now on (retries too) is signed with it. */
  async rotateSecret(accountId: string, subscriptionId: string, context: CommandContext): Promise<{ subscription: SubscriptionView; secret: string }> {
    const { secret, hint } = newSigningSecret()
    const sealedSecret = this.deps.secretBox.seal(secret, subscriptionSecretPurpose(accountId, subscriptionId))
    const result = await this.deps.commands.handle(accountStream(accountId), accountDecider, { type: 'RotateEventsSecret', subscriptionId, sealedSecret, secretHint: hint }, context)
    return { subscription: subscriptionView(result.state.subscriptions.get(subscriptionId) as EventSubscriptionState), secret }
  }

  /** Removes the subscription; its pending deliveries are cancelled when they come due. */
  async unsubscribe(accountId: string, subscriptionId: string, context: CommandContext): Promise<void> {
    await this.deps.commands.handle(accountStream(accountId), accountDecider, { type: 'UnsubscribeEvents', subscriptionId }, context)
  }

  async list(accountId: string): Promise<SubscriptionView[]> {
    const account = await this.deps.accounts.get(accountId)
    if (!account) throw new DomainError('account_not_found', 'account not found')
    return [...account.subscriptions.values()].map(subscriptionView)
  }

  /** The account's latest deliveries, newest first, each with its kept attempts. */
  deliveries(accountId: string, filter: { subscriptionId?: string; status?: DeliveryStatus; limit?: number } = {}): Array<DeliveryView & { attemptLog: DeliveryAttempt[] }> {
    return this.deps.deliveries.latest(accountId, filter).map((d) => ({ ...deliveryView(d), attemptLog: this.deps.deliveries.attempts(d.id) }))
  }

  /** Sends failed deliveries again (one, a subscription's, or the account's), with a new 24-hour window; how many. */
  retry(accountId: string, which: { deliveryId?: number; subscriptionId?: string }): number {
    const count = this.deps.deliveries.retry(accountId, which, this.deps.clock().getTime())
    this.deps.outboundEvents.wake()
    return count
  }
}
