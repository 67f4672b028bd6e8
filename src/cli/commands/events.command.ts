/**
 * `leadline events subscribe|list|unsubscribe|rotate-secret|deliveries|retry`: an account's signed
 * outbound events (docs/events.md). The signing secret is printed once, by `subscribe` and
 * `rotate-secret`; nothing else ever shows it.
 */
import type { DeliveryStatus } from '../../read-models/outbound-deliveries.ts'
import { json, operator, parse, required, table, UsageError, withLeadline, type Io } from '../cli-io.ts'

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'cancelled']

function typesOf(value: string | undefined): string[] | null {
  return value === undefined ? null : value.split(',').map((t) => t.trim()).filter((t) => t !== '')
}

export async function eventsCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'subscribe': {
      const { values } = parse(rest, { account: { type: 'string' }, url: { type: 'string' }, types: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const url = required(values.url, '--url')
      await withLeadline(io, async (leadline) => {
        await leadline.accounts.require(accountId)
        const { subscription, secret } = await leadline.eventSubscriptions.subscribe(accountId, url, typesOf(values.types), operator())
        if (values.json) return io.out(json({ accountId, ...subscription, secret }))
        io.out(
          [
            `subscription ${subscription.subscriptionId}: ${subscription.url} hears ${subscription.types === null ? 'every event type' : subscription.types.join(', ')}`,
            `signing secret (shown once, store it now): ${secret}`,
            'verify each request with it: docs/events.md#verify-the-signature',
          ].join('\n'),
        )
      })
      return
    }
    case 'list': {
      const { values } = parse(rest, { account: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      await withLeadline(io, async (leadline) => {
        const subscriptions = await leadline.eventSubscriptions.list(accountId)
        if (values.json) return io.out(json({ accountId, subscriptions }))
        if (subscriptions.length === 0) return io.out(`no events subscriptions for account ${accountId}`)
        io.out(table(['subscription', 'url', 'types', 'secret', 'since'], subscriptions.map((s) => [s.subscriptionId, s.url, s.types?.join(',') ?? 'all', s.secretHint, s.subscribedAt])))
      })
      return
    }
    case 'unsubscribe':
    case 'rotate-secret': {
      const { values } = parse(rest, { account: { type: 'string' }, subscription: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const subscriptionId = required(values.subscription, '--subscription')
      await withLeadline(io, async (leadline) => {
        await leadline.accounts.require(accountId)
        if (sub === 'unsubscribe') {
          await leadline.eventSubscriptions.unsubscribe(accountId, subscriptionId, operator())
          return io.out(values.json ? json({ accountId, subscriptionId, removed: true }) : `subscription ${subscriptionId} removed; its pending deliveries are cancelled`)
        }
        const { subscription, secret } = await leadline.eventSubscriptions.rotateSecret(accountId, subscriptionId, operator())
        if (values.json) return io.out(json({ accountId, ...subscription, secret }))
        io.out([`signing secret of ${subscriptionId} rotated: every delivery from now on, retries too, is signed with the new one`, `new signing secret (shown once, store it now): ${secret}`].join('\n'))
      })
      return
    }
    case 'deliveries': {
      const { values } = parse(rest, { account: { type: 'string' }, subscription: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const status = values.status as DeliveryStatus | undefined
      if (status !== undefined && !STATUSES.includes(status)) throw new UsageError(`--status takes ${STATUSES.join(', ')}`)
      const limit = values.limit === undefined ? 20 : Number(values.limit)
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError('--limit takes a whole number from 1 to 500')
      await withLeadline(io, async (leadline) => {
        await leadline.accounts.require(accountId)
        const deliveries = leadline.eventSubscriptions.deliveries(accountId, { ...(values.subscription ? { subscriptionId: values.subscription } : {}), ...(status ? { status } : {}), limit })
        if (values.json) return io.out(json({ accountId, deliveries }))
        if (deliveries.length === 0) return io.out(`no deliveries for account ${accountId}`)
        io.out(
          table(
            ['delivery', 'type', 'subscription', 'status', 'attempts', 'last attempt', 'answer', 'next attempt'],
            deliveries.map((d) => [d.deliveryId, d.type, d.subscriptionId, d.status, d.attempts, d.lastAttemptAt ?? '', d.lastError ?? (d.lastStatus === null ? '' : String(d.lastStatus)), d.nextAttemptAt ?? '']),
          ),
        )
      })
      return
    }
    case 'retry': {
      const { values } = parse(rest, { account: { type: 'string' }, delivery: { type: 'string' }, subscription: { type: 'string' }, failed: { type: 'boolean' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const chosen = [values.delivery, values.subscription, values.failed ? 'all' : undefined].filter((v) => v !== undefined)
      if (chosen.length !== 1) throw new UsageError('say which failed deliveries to send again: --delivery ID, --subscription ID, or --failed (all of the account\'s)')
      const deliveryId = values.delivery === undefined ? undefined : Number(values.delivery)
      if (deliveryId !== undefined && !Number.isInteger(deliveryId)) throw new UsageError('--delivery takes a delivery number, as `leadline events deliveries` lists them')
      await withLeadline(io, async (leadline) => {
        await leadline.accounts.require(accountId)
        const count = leadline.eventSubscriptions.retry(accountId, { ...(deliveryId !== undefined ? { deliveryId } : {}), ...(values.subscription ? { subscriptionId: values.subscription } : {}) })
        io.out(values.json ? json({ accountId, retried: count }) : `${count} failed ${count === 1 ? 'delivery' : 'deliveries'} will be sent again now (same webhook-id), retried for another 24 hours`)
      })
      return
    }
    default:
      throw new UsageError(`unknown command "events ${sub ?? ''}": use subscribe, list, unsubscribe, rotate-secret, deliveries or retry`)
  }
}
