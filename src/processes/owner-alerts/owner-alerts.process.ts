/**
 * Owner alerts (issue #28): texts the owner's own number (`alertTo`) when a lead arrives, asks for a
 * callback, replies, pays, or calls in and nobody takes it, as the account's `alerts` setting asks. Fed by the process runner. Each
 * alert is claimed before the carrier is asked, by the first event of a stream named for the
 * reported event (`alert-{accountId}-{eventId}`, appended with `no_stream`): at most one text per
 * event, on any number of nodes and across crashes. Alerts go out at any hour: the owner asked for
 * them on their own phone, and a new lead is worth most in its first minutes (docs/events.md). Events
 * older than RESUME_WINDOW_MS when they reach the process (a runner far behind after a long stop)
 * are not alerted: an hours-old "new lead" text is noise.
 */
import type { Logger } from 'pino'
import type { NewEvent, RecordedEvent } from '../../domain/event.ts'
import { parseLeadStream } from '../../domain/lead/lead.events.ts'
import type { LeadReceived } from '../../domain/lead/intake/intake.events.ts'
import type { CallbackRequested } from '../../domain/lead/calls/calls.events.ts'
import type { PaymentSettled } from '../../domain/lead/payments/payments.events.ts'
import type { InboundCallMissed } from '../../domain/lead/inbound/inbound.events.ts'
import { formatAmount } from '../../domain/account/pay-link-text.ts'
import { ALERT_SOURCES, alertKindOf, ownerAlertStream, type AlertKind, type OwnerAlertEvent } from '../../domain/owner-alerts/owner-alerts.events.ts'
import { alertText, type AlertDetail, type AlertLead } from '../../domain/owner-alerts/alert-text.ts'
import { isWrongExpectedRevision, type EventStore } from '../../eventstore/event-store.port.ts'
import type { Carrier } from '../../integrations/carrier/carrier.port.ts'
import type { Accounts } from '../../commands/accounts.ts'
import type { InboundLeadsQueries } from '../../../projections/inbound-leads/inbound-leads.queries.ts'
import { NODE_ID, withCarrierRetries } from '../effect-process.ts'
import type { Reaction, Reactor } from '../process-runner.ts'

/** Events older than this when they reach the process are not alerted. */
export const RESUME_WINDOW_MS = 15 * 60 * 1000

export interface OwnerAlertsOptions {
  readonly store: EventStore
  readonly accounts: Pick<Accounts, 'get'>
  readonly inboundLeads: InboundLeadsQueries
  readonly carrier: Carrier
  readonly clock: () => Date
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>
}

export type AlertOutcome = 'sent' | 'failed' | 'already_claimed' | 'not_wanted'

export class OwnerAlerts {
  private readonly inFlight = new Set<Promise<unknown>>()

  constructor(private readonly options: OwnerAlertsOptions) {}

  reactor(): Reactor {
    return { name: 'owner-alerts', handles: Object.values(ALERT_SOURCES), react: (event) => this.react(event) }
  }

  private async react(event: RecordedEvent): Promise<Reaction> {
    if (Date.parse(event.recordedAt) < this.options.clock().getTime() - RESUME_WINDOW_MS) return
    const alerted = this.alert(event).catch((error: unknown) => {
      this.options.logger?.error({ err: error, eventId: event.id }, 'owner alert failed')
    })
    this.inFlight.add(alerted)
    void alerted.finally(() => this.inFlight.delete(alerted))
    return { settled: alerted }
  }

  /** Lets alerts going out finish and record their outcome. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.inFlight])
  }

  /** Alerts the owner of `event` if the account asks for it: claim, text, record. */
  async alert(event: RecordedEvent): Promise<AlertOutcome> {
    const { store, accounts, carrier, clock, logger } = this.options
    const kind = alertKindOf(event.type)
    const lead = parseLeadStream(event.stream)
    if (kind === null || lead === null) return 'not_wanted'
    const account = await accounts.get(lead.accountId)
    const settings = account?.settings
    if (!settings || settings.alertTo === null || !settings.alerts.includes(kind)) return 'not_wanted'
    if (settings.callerId === null) {
      logger?.warn({ accountId: lead.accountId, kind }, 'owner alert not sent: the account has no caller id to text from')
      return 'not_wanted'
    }
    const stream = ownerAlertStream(lead.accountId, event.id)
    const body = alertText(kind, this.who(event, lead.accountId, lead.phoneLast10), settings, detail(kind, event))
    const claimed = { eventId: event.id, kind, leadStream: event.stream, from: settings.callerId, to: settings.alertTo, body, node: NODE_ID, at: clock().toISOString() }
    try {
      await store.appendToStream(stream, [this.newEvent({ type: 'OwnerAlertClaimed', data: claimed }, event)], 'no_stream')
    } catch (error) {
      if (isWrongExpectedRevision(error)) return 'already_claimed'
      throw error
    }
    return withCarrierRetries<AlertOutcome>(
      async () => {
        const sent = await carrier.sendText({ from: claimed.from, to: claimed.to, body, reference: `alert-${event.id}` })
        await store.appendToStream(stream, [this.newEvent({ type: 'OwnerAlertSent', data: { eventId: event.id, messageId: sent.messageId, carrier: sent.carrier, at: clock().toISOString() } }, event)], 0)
        return 'sent'
      },
      async ({ failure, message }) => {
        await store.appendToStream(stream, [this.newEvent({ type: 'OwnerAlertFailed', data: { eventId: event.id, failure, message, at: clock().toISOString() } }, event)], 0)
        return 'failed'
      },
    )
  }

  /** The lead as the alert names it: name and number as known (alertText relays the name safely). */
  private who(event: RecordedEvent, accountId: string, phoneLast10: string): AlertLead {
    if (event.type === 'LeadReceived') {
      const { fields } = (event as unknown as LeadReceived).data
      return { name: fields.fullName ?? null, phone: fields.phone ?? null, phoneLast10 }
    }
    const lead = this.options.inboundLeads.get(accountId, { phoneLast10 })
    return { name: lead?.fullName ?? null, phone: lead?.phone ?? null, phoneLast10 }
  }

  private newEvent(event: Pick<OwnerAlertEvent, 'type' | 'data'>, cause: RecordedEvent): NewEvent {
    return { type: event.type, data: event.data, metadata: { correlationId: cause.metadata.correlationId, causationId: cause.id, actor: { kind: 'process', id: 'owner-alerts' }, schemaVersion: 1 } }
  }
}

function detail(kind: AlertKind, event: RecordedEvent): AlertDetail {
  if (kind === 'payment') {
    const { amountCents, currency } = (event as unknown as PaymentSettled).data
    return { amount: formatAmount(amountCents, currency) }
  }
  if (kind === 'callback') return { callbackAt: (event as unknown as CallbackRequested).data.callbackAt }
  if (kind === 'missed_call') {
    const { at, callbackRequested } = (event as unknown as InboundCallMissed).data
    return { missedAt: at, callbackRequested }
  }
  return {}
}
