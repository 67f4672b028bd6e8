/**
 * The missed-call text-back (issue #43): reacts to each missed inbound call (`InboundCallMissed`) by
 * deciding, on the lead's stream, one text back to the caller or why none (`DecideMissedCallText`:
 * `TextDecided` + `MissedCallTextSent`, or `MissedCallTextSkipped`). Deciding is keyed by the call,
 * so a redelivery after a crash decides nothing more; the texter then claims the text before the
 * carrier is asked, as it does every text. One missed call: one text at most, never two.
 */
import type { Logger } from 'pino'
import type { RecordedEvent } from '../../domain/event.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import { parseLeadStream } from '../../domain/lead/lead.events.ts'
import type { InboundCallMissed } from '../../domain/lead/inbound/inbound.events.ts'
import type { TextEvent } from '../../domain/lead/texts/texts.events.ts'
import { newId } from '../../domain/shared/ids.ts'
import type { CommandHandler } from '../../eventstore/command-handler.ts'
import type { Accounts } from '../../commands/accounts.ts'
import type { Reaction, Reactor } from '../process-runner.ts'

export interface MissedCallTextOptions {
  readonly commands: CommandHandler
  readonly accounts: Pick<Accounts, 'get'>
  readonly logger?: Pick<Logger, 'info' | 'error'>
}

/** What the text-back decided for a missed call: the text's id, why none, or nothing new (decided before). */
export type TextBackOutcome = { kind: 'texted'; textId: string } | { kind: 'skipped'; reason: string } | { kind: 'decided_before' } | { kind: 'no_account' }

export class MissedCallTextBack {
  private readonly inFlight = new Set<Promise<unknown>>()

  constructor(private readonly options: MissedCallTextOptions) {}

  reactor(): Reactor {
    return { name: 'missed-call-text', handles: ['InboundCallMissed'], react: (event) => this.react(event) }
  }

  private async react(event: RecordedEvent): Promise<Reaction> {
    const decided = this.decide(event).catch((error: unknown) => {
      this.options.logger?.error({ err: error, eventId: event.id }, 'missed-call text-back not decided')
    })
    this.inFlight.add(decided)
    void decided.finally(() => this.inFlight.delete(decided))
    return { settled: decided }
  }

  /** Lets decisions under way reach the log. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.inFlight])
  }

  /** Decides the text-back of one missed call (the texter sends it): idempotent, whatever the redeliveries. */
  async decide(event: RecordedEvent): Promise<TextBackOutcome> {
    const { commands, accounts, logger } = this.options
    const lead = parseLeadStream(event.stream)
    const account = lead === null ? null : await accounts.get(lead.accountId)
    if (account === null) return { kind: 'no_account' }
    const { callId, at } = (event as unknown as InboundCallMissed).data
    const result = await commands.handle(
      event.stream,
      leadDecider,
      { type: 'DecideMissedCallText', settings: account.settings, business: account.name, callId, missedAt: at, textId: newId('txt') },
      { actor: { kind: 'process', id: 'missed-call-text' }, correlationId: event.metadata.correlationId, causationId: event.id },
    )
    const outcome = (result.newEvents as readonly TextEvent[]).find((e) => e.type === 'MissedCallTextSent' || e.type === 'MissedCallTextSkipped')
    if (outcome === undefined) return { kind: 'decided_before' }
    if (outcome.type === 'MissedCallTextSkipped') {
      logger?.info({ callId, reason: outcome.data.reason }, 'missed call not texted back')
      return { kind: 'skipped', reason: outcome.data.reason }
    }
    return { kind: 'texted', textId: (outcome.data as { textId: string }).textId }
  }
}
