/**
 * Delivers the accounts' outbound events (issue #28), signed per the Standard Webhooks spec with the
 * `standardwebhooks` package. Fed by the process runner: each lead event that maps to an outbound
 * event (src/domain/outbound-events/) becomes one pending delivery per subscription that wants its
 * type, written to the views database before the runner's checkpoint may pass the event. A loop then
 * posts what is due: at least once, with a stable `webhook-id` (from the subscription and the
 * event), in log order per lead and subscription, retried with exponential backoff for 24 hours and
 * then marked failed until retried by hand. Requests have a timeout and run a bounded number at once,
 * at most a few per subscription, so a dead or slow receiver holds up only its own deliveries: never
 * intake, dialing, or another account's events. During a flood of leads (intakeLoadProbe), new
 * events wait before their deliveries are written and deliveries go out at a trickle; they catch up
 * once it has passed.
 */
import type { IntakeGauge } from '../intake-gauge.ts'
import type { Logger } from 'pino'
import { Webhook } from 'standardwebhooks'
import type { RecordedEvent } from '../../domain/event.ts'
import { parseLeadStream } from '../../domain/lead/lead.events.ts'
import { OUTBOUND_SOURCE_TYPES, outboundEventOf } from '../../domain/outbound-events/outbound-events.ts'
import { withoutRecordings } from '../../domain/recordings-policy.ts'
import { withoutSealedSecrets } from '../../domain/sealed-secrets.ts'
import { sha256Hex } from '../../domain/shared/sha256.ts'
import type { EventSubscriptionState } from '../../domain/account/account.decider.ts'
import type { Accounts } from '../../commands/accounts.ts'
import type { SecretBox } from '../../integrations/secrets/secret-box.ts'
import { ReceiverRefused, type EventReceivers } from '../../integrations/event-receivers/event-receivers.ts'
import { BUSY_RETRY_MS, writeUnlessBusy, type ViewsDatabase } from '../../read-models/views-database.ts'
import type { Delivery, DeliveryStatus, NewDelivery, OutboundDeliveries } from '../../read-models/outbound-deliveries.ts'
import type { InboundLeadsQueries } from '../../../projections/inbound-leads/inbound-leads.queries.ts'
import type { Reaction, Reactor } from '../process-runner.ts'

/** How deliveries are paced; every figure is a default the tests shorten. */
export interface DeliveryPolicy {
  /** The wait before the second attempt; each later one doubles it, up to `maxDelayMs`. */
  readonly firstDelayMs: number
  readonly maxDelayMs: number
  /** How long a delivery is retried from its event's arrival (or a retry by hand) before it is marked failed. */
  readonly giveUpAfterMs: number
  /** A receiver that has not answered in this long has failed this attempt. */
  readonly timeoutMs: number
  /** Requests in flight at once, in all, and to one subscription. */
  readonly concurrency: number
  readonly perSubscription: number
  /** How often the loop looks for due work when nothing wakes it. */
  readonly pollMs: number
  /** While intake takes a flood, at most this many deliveries start a second. */
  readonly whileBusyPerSecond: number
  /** Whether intake is taking a flood now; a server asks `intakeFlood`. */
  readonly flooded: FloodProbe
  /** How long new deliveries gather before they are written, in one transaction. */
  readonly batchMs: number
  /**
   * During a flood, new events wait this long at most before their deliveries are written: the
   * runner feeding this process pauses (its checkpoint behind them, nothing held in memory) and intake
   * keeps the thread; then one batch goes through and the wait starts again.
   */
  readonly deferUpToMs: number
}

/** Whether the server is taking a flood of leads right now. */
export type FloodProbe = () => boolean

/**
 * Leads a second at which the webhook counts as taking a flood: far above what lead sources send (a
 * bulk import or an attack is a flood), and reached by the first few dozen leads of one, so little
 * outbound work slips into its first moments.
 */
const FLOOD_PER_SECOND = 100

/**
 * A flood is leads arriving at FLOOD_PER_SECOND or faster. Not the loop's load (a backlog going out
 * keeps the loop busy by itself), nor the requests in flight (few are at the moments the loop turns
 * to background work).
 */
export function intakeFlood(intake: IntakeGauge): FloodProbe {
  return () => intake.perSecond >= FLOOD_PER_SECOND
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  firstDelayMs: 5_000,
  maxDelayMs: 60 * 60_000,
  giveUpAfterMs: 24 * 60 * 60_000,
  timeoutMs: 10_000,
  concurrency: 16,
  perSubscription: 4,
  pollMs: 1_000,
  whileBusyPerSecond: 20,
  flooded: () => false,
  batchMs: 25,
  deferUpToMs: 5_000,
}

/** How long the delivery log keeps a delivered (or cancelled) delivery, and a failed one not retried. */
export const KEEP_DELIVERED_MS = 7 * 24 * 60 * 60_000
export const KEEP_FAILED_MS = 30 * 24 * 60 * 60_000
const PRUNE_EVERY_MS = 60 * 60_000
/** Rows that are written at once, whatever the batch timer says. */
const FLUSH_AT_ROWS = 3_000
/** How often reactions waiting for room ask again whether the flood has passed. */
const ROOM_CHECK_MS = 50

export interface OutboundEventsOptions {
  readonly accounts: Accounts
  readonly inboundLeads: InboundLeadsQueries
  readonly deliveries: OutboundDeliveries
  readonly views: ViewsDatabase
  readonly secretBox: SecretBox
  /** Posts to receivers on public addresses only (or private ones too, when the operator allows them). */
  readonly receivers: Pick<EventReceivers, 'post' | 'close'>
  readonly clock: () => Date
  readonly policy?: Partial<DeliveryPolicy>
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>
}

/** The purpose a subscription's secret is sealed for: it opens for this subscription only. */
export function subscriptionSecretPurpose(accountId: string, subscriptionId: string): string {
  return `events-subscription:${accountId}:${subscriptionId}`
}

/** The delivery's `webhook-id`: the same for every attempt of one event to one subscription, and only for that pair. */
export function webhookIdOf(subscriptionId: string, eventId: string): string {
  return `msg_${sha256Hex(`${subscriptionId}:${eventId}`).slice(0, 32)}`
}

/** The pause before attempt `attempt + 1` (1-based `attempt` just failed): doubling, capped, with a little jitter. */
export function retryDelayMs(policy: DeliveryPolicy, attempt: number): number {
  const base = Math.min(policy.firstDelayMs * 2 ** Math.max(0, attempt - 1), policy.maxDelayMs)
  return Math.round(base * (0.9 + Math.random() * 0.2))
}

export class OutboundEvents {
  readonly policy: DeliveryPolicy
  private pending: NewDelivery[] = []
  private flushing: { promise: Promise<void>; resolve: () => void } | null = null
  private readonly inFlight = new Map<number, { subscriptionId: string; controller: AbortController }>()
  private readonly signers = new Map<string, Webhook>()
  private timer: NodeJS.Timeout | null = null
  private pruner: NodeJS.Timeout | null = null
  private running = false
  private pumping = false
  private pumpAgain = false
  private readonly settledRequests = new Set<Promise<void>>()
  private outcomes: AttemptOutcome[] = []
  private recording: Promise<void> | null = null
  private waitingForRoom: Promise<void> | null = null
  private roomWaiter: (() => void) | null = null
  private noWaiting = false
  /** While busy: when the last delivery was let through (the trickle's clock). */
  private lastBusyStart = 0

  constructor(private readonly options: OutboundEventsOptions) {
    this.policy = { ...DEFAULT_DELIVERY_POLICY, ...options.policy }
  }

  /** What the process runner feeds: the lead events that map to outbound events. */
  reactor(): Reactor {
    return { name: 'outbound-events', handles: OUTBOUND_SOURCE_TYPES, react: (event) => this.react(event) }
  }

  private async react(event: RecordedEvent): Promise<Reaction> {
    // Most accounts subscribe to nothing: asked first, before the event is mapped.
    const lead = parseLeadStream(event.stream)
    if (lead === null) return
    const account = await this.options.accounts.get(lead.accountId)
    if (account === null || account.subscriptions.size === 0) return
    const mapped = outboundEventOf(event)
    if (mapped === null) return
    const wanting = [...account.subscriptions.values()].filter((s) => s.types === null || s.types.includes(mapped.event.type))
    if (wanting.length === 0) return
    await this.roomToWork()
    let data = mapped.event.data
    if (data.lead_id === null) {
      data = { ...data, lead_id: this.options.inboundLeads.get(mapped.accountId, { phoneLast10: mapped.phoneLast10 })?.leadId ?? null }
    }
    // The tools' egress filters, whatever the table above says: no recording, transcript or sealed secret leaves.
    const payload = JSON.stringify(withoutSealedSecrets(withoutRecordings({ ...mapped.event, data })) ?? {})
    for (const subscription of wanting) {
      this.pending.push({
        webhookId: webhookIdOf(subscription.subscriptionId, event.id),
        accountId: mapped.accountId,
        subscriptionId: subscription.subscriptionId,
        lane: event.stream,
        position: event.position,
        eventId: event.id,
        type: mapped.event.type,
        payload,
      })
    }
    const settled = this.flushSoon()
    // Catching up on a backlog, reactions come faster than the timer: write every few thousand rows
    // and let the loop take its requests, rather than hold the whole backlog in memory until then.
    if (this.pending.length >= FLUSH_AT_ROWS) {
      this.flush()
      await new Promise((resolve) => setImmediate(resolve))
    }
    return { settled }
  }

  /** Resolves at once unless intake takes a flood; then once it has passed, or `deferUpToMs` later (all waiting reactions together). */
  private roomToWork(): Promise<void> | undefined {
    if (this.noWaiting || !this.policy.flooded()) return undefined
    this.waitingForRoom ??= new Promise<void>((resolve) => {
      const since = performance.now()
      const check = (): void => {
        if (this.noWaiting || !this.policy.flooded() || performance.now() - since >= this.policy.deferUpToMs) {
          this.waitingForRoom = null
          this.roomWaiter = null
          resolve()
        } else setTimeout(check, ROOM_CHECK_MS).unref()
      }
      this.roomWaiter = check
      setTimeout(check, ROOM_CHECK_MS).unref()
    })
    return this.waitingForRoom
  }

  /** Before the runner feeding this process stops: reactions waiting for room go ahead now, and later ones do not wait. */
  stopWaiting(): void {
    this.noWaiting = true
    this.roomWaiter?.()
  }

  /** Writes what the reactions noted in one transaction, `batchMs` later; settles once written. */
  private flushSoon(): Promise<void> {
    if (this.flushing === null) {
      let resolve!: () => void
      const promise = new Promise<void>((r) => (resolve = r))
      this.flushing = { promise, resolve }
      setTimeout(() => this.flush(), this.policy.batchMs)
    }
    return this.flushing.promise
  }

  private flush(): void {
    const rows = this.pending
    const flushing = this.flushing
    try {
      const written = writeUnlessBusy(this.options.views, () => this.options.deliveries.add(rows, this.options.clock()))
      if (!written) {
        setTimeout(() => this.flush(), BUSY_RETRY_MS).unref()
        return
      }
    } catch (error) {
      // A full or read-only disk: the rows wait in memory, and the checkpoint with them, until it takes writes.
      this.options.logger?.error({ err: error, deliveries: rows.length }, 'outbound deliveries not recorded: trying again')
      setTimeout(() => this.flush(), 1000).unref()
      return
    }
    this.pending = []
    this.flushing = null
    flushing?.resolve()
    this.wake()
  }

  /** Starts delivering what is due (after a restart, everything left pending). */
  start(): void {
    if (this.running) return
    this.running = true
    this.prune()
    this.pruner = setInterval(() => this.prune(), PRUNE_EVERY_MS)
    this.pruner.unref()
    this.wake()
  }

  private prune(): void {
    const now = this.options.clock().getTime()
    try {
      this.options.deliveries.prune(new Date(now - KEEP_DELIVERED_MS).toISOString(), new Date(now - KEEP_FAILED_MS).toISOString())
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'outbound events: old deliveries not pruned')
    }
  }

  /** Stops taking deliveries and cancels those in flight: they stay pending and go out again after a start. */
  async stop(): Promise<void> {
    this.running = false
    if (this.timer !== null) clearTimeout(this.timer)
    if (this.pruner !== null) clearInterval(this.pruner)
    this.timer = null
    this.pruner = null
    for (const { controller } of this.inFlight.values()) controller.abort()
    await Promise.allSettled([...this.settledRequests])
    this.options.receivers.close()
    if (this.flushing !== null) this.flush()
  }

  /** Looks for due work now (a new delivery, a retry by hand). */
  wake(): void {
    if (!this.running) return
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    void this.pump()
  }

  /** Looks again once the trickle allows the next delivery. */
  private busyRecheck(): void {
    if (!this.running) return
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = null
      void this.pump()
    }, Math.max(10, Math.ceil(1000 / this.policy.whileBusyPerSecond)))
    this.timer.unref()
  }

  private schedule(): void {
    if (!this.running) return
    const next = this.options.deliveries.nextDueAt()
    const now = this.options.clock().getTime()
    const wait = next === null ? this.policy.pollMs : Math.max(0, Math.min(next - now, this.policy.pollMs))
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = null
      void this.pump()
    }, Math.max(wait, 10))
    this.timer.unref()
  }

  /** Starts every due delivery there is room for, then sleeps until the next is due. */
  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true
      return
    }
    this.pumping = true
    let deferred = false
    try {
      do {
        this.pumpAgain = false
        let room = this.policy.concurrency - this.inFlight.size
        if (room <= 0) break
        if (this.policy.flooded()) {
          // Intake first: a trickle during a flood, without even looking for due work otherwise.
          const now = performance.now()
          const allowed = Math.floor(((now - this.lastBusyStart) * this.policy.whileBusyPerSecond) / 1000)
          room = Math.min(room, allowed, Math.max(1, Math.ceil(this.policy.whileBusyPerSecond / 4)))
          if (room <= 0) {
            deferred = true
            break
          }
          this.lastBusyStart = now
        }
        const perSubscription = new Map<string, number>()
        for (const { subscriptionId } of this.inFlight.values()) perSubscription.set(subscriptionId, (perSubscription.get(subscriptionId) ?? 0) + 1)
        let started = 0
        for (const delivery of this.options.deliveries.due(this.options.clock().getTime(), room * 4 + this.inFlight.size)) {
          if (started >= room) break
          if (this.inFlight.has(delivery.id)) continue
          const busy = perSubscription.get(delivery.subscriptionId) ?? 0
          if (busy >= this.policy.perSubscription) continue
          perSubscription.set(delivery.subscriptionId, busy + 1)
          started++
          this.send(delivery)
        }
      } while (this.pumpAgain && this.running)
    } catch (error) {
      this.options.logger?.error({ err: error }, 'outbound events: could not read due deliveries')
    } finally {
      this.pumping = false
      if (deferred) this.busyRecheck()
      else this.schedule()
    }
  }

  private send(delivery: Delivery): void {
    const controller = new AbortController()
    this.inFlight.set(delivery.id, { subscriptionId: delivery.subscriptionId, controller })
    const request = this.attempt(delivery, controller.signal)
      .catch((error: unknown) => this.options.logger?.error({ err: error, deliveryId: delivery.id }, 'outbound events: an attempt was not recorded'))
      .finally(() => {
        this.inFlight.delete(delivery.id)
        this.settledRequests.delete(request)
        // Refill in batches, not after every answer: each look for due work is a query on the main thread.
        if (this.inFlight.size <= this.policy.concurrency / 2) this.wake()
      })
    this.settledRequests.add(request)
  }

  private async attempt(delivery: Delivery, stopping: AbortSignal): Promise<void> {
    const account = await this.options.accounts.get(delivery.accountId)
    const subscription = account?.subscriptions.get(delivery.subscriptionId)
    if (!subscription) {
      this.options.deliveries.cancel(delivery.id, 'subscription removed')
      return
    }
    const started = this.options.clock()
    const startedMs = performance.now()
    let status: number | null = null
    let error: string | null = null
    try {
      const signer = this.signer(delivery.accountId, subscription)
      const timestamp = new Date(Math.floor(started.getTime() / 1000) * 1000)
      status = await this.options.receivers.post(subscription.url, {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Leadline-Webhooks/1',
          'webhook-id': delivery.webhookId,
          'webhook-timestamp': String(timestamp.getTime() / 1000),
          'webhook-signature': signer.sign(delivery.webhookId, timestamp, delivery.payload),
        },
        body: delivery.payload,
        signal: AbortSignal.any([stopping, AbortSignal.timeout(this.policy.timeoutMs)]),
      })
      if (status < 200 || status >= 300) error = `HTTP ${status}`
    } catch (caught) {
      if (stopping.aborted) return // stopping: left pending, sent again after a start with the same webhook-id
      error = describe(caught, this.policy.timeoutMs)
    }
    const attempt = delivery.attempts + 1
    const nowMs = this.options.clock().getTime()
    let next: { status: DeliveryStatus; nextAttemptAt: number }
    if (error === null) next = { status: 'delivered', nextAttemptAt: nowMs }
    else {
      const at = nowMs + retryDelayMs(this.policy, attempt)
      next = at - delivery.windowStart > this.policy.giveUpAfterMs ? { status: 'failed', nextAttemptAt: nowMs } : { status: 'pending', nextAttemptAt: at }
    }
    await this.record({ id: delivery.id, attempt: { attempt, at: started.toISOString(), status, error, durationMs: Math.round(performance.now() - startedMs) }, next })
    if (next.status === 'failed') this.options.logger?.warn({ deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, attempts: attempt }, 'outbound event failed for good: retry it by hand')
  }

  /**
   * Records an attempt with the others that ended in the same turn of the event loop, in one
   * transaction: one commit per answer was most of the delivery's cost on the main thread. The
   * delivery stays in flight (never picked again) until its attempt is written.
   */
  private record(outcome: AttemptOutcome): Promise<void> {
    this.outcomes.push(outcome)
    this.recording ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        const outcomes = this.outcomes
        this.outcomes = []
        this.recording = null
        try {
          this.options.deliveries.recordAttempts(outcomes)
          resolve()
        } catch (error) {
          reject(error)
        }
      })
    })
    return this.recording
  }

  /** The subscription's signer, made once per secret (a rotation makes a new one). */
  private signer(accountId: string, subscription: EventSubscriptionState): Webhook {
    let signer = this.signers.get(subscription.sealedSecret)
    if (signer === undefined) {
      let secret: string
      try {
        secret = this.options.secretBox.open(subscription.sealedSecret, subscriptionSecretPurpose(accountId, subscription.subscriptionId))
      } catch (error) {
        throw new SecretUnavailable(error instanceof Error ? error.message : String(error))
      }
      signer = new Webhook(secret)
      if (this.signers.size >= 1000) this.signers.clear()
      this.signers.set(subscription.sealedSecret, signer)
    }
    return signer
  }
}

class SecretUnavailable extends Error {}

type AttemptOutcome = Parameters<OutboundDeliveries['recordAttempts']>[0][number]

/**
 * What the delivery log says of a failed attempt: a few fixed texts and an error code, never an
 * error's own message (it could hold what a receiver or a network said). A receiver refused before
 * any connection reads the same whatever listens at its address.
 */
function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof ReceiverRefused) return error.shown
  if (error instanceof SecretUnavailable) return `secret_unavailable: ${error.message}`
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `timeout: no answer in ${timeoutMs} ms`
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,60}$/.test(code) ? `unreachable: ${code}` : 'unreachable: could not connect'
}
