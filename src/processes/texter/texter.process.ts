/**
 * The texter: performs each text decision (`TextDecided`: send_sms, a follow-up text step) once:
 * claim → text → record. The claim (`TextAttemptStarted`) is appended before the carrier is asked,
 * checking the lead again (do-not-call, the hours), so a person is texted at most once per decision,
 * on any node and across crashes; a text whose outcome is unknown is recorded so and never resent.
 * The process runner feeds it every decision; send_sms joins the one in this process and waits for
 * its outcome; after a restart, `recover` sends the texts decided lately that no one claimed.
 */
import type { AccountState } from '../../domain/account/account.decider.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import { parseLeadStream } from '../../domain/lead/lead.events.ts'
import type { TextRecord } from '../../domain/lead/texts/texts.decider.ts'
import { TEXT_EFFECT, type TextDecided } from '../../domain/lead/texts/texts.events.ts'
import type { RecordedEvent } from '../../domain/event.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { Carrier } from '../../integrations/carrier/carrier.port.ts'
import type { Accounts } from '../../commands/accounts.ts'
import { EffectProcess, NODE_ID, pause, withCarrierRetries, type EffectProcessOptions, type StuckClaim } from '../effect-process.ts'
import type { Reaction } from '../process-runner.ts'

/** After a restart, texts decided this recently but never claimed are sent; older ones are left as they are. */
export const RESUME_WINDOW_MS = 15 * 60 * 1000

export type TextOutcome =
  | { kind: 'sent'; text: TextRecord }
  /** Refused as it went out (`do_not_call`, `outside_lead_hours`, … with no claim) or by the carrier. */
  | { kind: 'failed'; failure: string; message: string }
  | { kind: 'unknown'; message: string }

export interface TexterOptions extends EffectProcessOptions {
  readonly accounts: Pick<Accounts, 'get'>
  readonly carrier: Carrier
}

export class Texter extends EffectProcess<TexterOptions> {
  override readonly effect = TEXT_EFFECT

  /**
   * A decision from the log, whichever node made it: the claim lets one node send it, and the others
   * wait for its outcome. Decisions older than RESUME_WINDOW_MS (a runner far behind after a long
   * stop) are left as they are, as `resume` leaves them.
   */
  protected override async react(event: RecordedEvent): Promise<Reaction> {
    const { clock, accounts, logger } = this.options
    if (Date.parse(event.recordedAt) < clock().getTime() - RESUME_WINDOW_MS) return
    const { textId } = (event as unknown as TextDecided).data
    const account = await accounts.get(parseLeadStream(event.stream)?.accountId ?? '')
    if (!account) return
    const sent = this.send(event.stream, textId, account).catch((error: unknown) => {
      logger?.error({ err: error, textId }, 'sending a text failed')
    })
    return { settled: sent }
  }

  /** Performs a decision once per process; a caller that finds it running waits for the same outcome. */
  send(stream: string, textId: string, account: AccountState): Promise<TextOutcome> {
    let running = this.inFlight.get(textId) as Promise<TextOutcome> | undefined
    if (!running) {
      running = this.perform(stream, textId, account).finally(() => this.inFlight.delete(textId))
      this.inFlight.set(textId, running)
    }
    return running
  }

  private async perform(stream: string, textId: string, account: AccountState): Promise<TextOutcome> {
    const { commands, carrier, logger } = this.options
    const actor = { actor: this.actor }
    const { state } = await commands.load(stream, leadDecider)
    const text = state.texts.texts[textId]
    if (!text) throw new DomainError('text_not_found', `no text ${textId} on ${stream}`)
    if (text.stage !== 'decided') return this.awaitOutcome(stream, textId)

    const claim = await commands.handle(stream, leadDecider, { type: 'StartTextAttempt', textId, node: NODE_ID, settings: account.settings }, actor)
    const claimed = claim.newEvents[0]
    if (!claimed) return this.awaitOutcome(stream, textId) // claimed elsewhere: its outcome is ours too
    if (claimed.type === 'TextFailed') return { kind: 'failed', failure: claimed.data.failure, message: claimed.data.message }

    // The Messaging Service the decision named, whatever the account says now.
    const request = { from: text.from, to: text.to, body: text.body, reference: textId, ...(text.messagingService !== null ? { messagingService: text.messagingService } : {}) }
    return withCarrierRetries<TextOutcome>(
      async () => {
        const sent = await carrier.sendText(request)
        const recorded = await commands.handle(stream, leadDecider, { type: 'RecordTextSent', textId, messageId: sent.messageId, carrier: sent.carrier }, actor)
        return { kind: 'sent', text: recorded.state.texts.texts[textId] as TextRecord }
      },
      async ({ failure, message, carrierCode }) => {
        if (failure === 'unknown_outcome') {
          await commands.handle(stream, leadDecider, { type: 'RecordTextUnknown', textId, reason: message }, actor)
          logger?.warn({ textId }, 'text outcome unknown: not resent')
          return { kind: 'unknown', message }
        }
        await commands.handle(stream, leadDecider, { type: 'RecordTextFailed', textId, failure, message, carrierCode }, actor)
        return { kind: 'failed', failure, message }
      },
    )
  }

  /** Another node or an earlier call performs this text: wait for its outcome on the log. */
  private async awaitOutcome(stream: string, textId: string, timeoutMs = 25_000): Promise<TextOutcome> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const { state } = await this.options.commands.load(stream, leadDecider)
      const text = state.texts.texts[textId]
      switch (text?.stage) {
        case 'sent':
          return { kind: 'sent', text }
        case 'failed':
          return { kind: 'failed', failure: text.failure ?? 'rejected', message: text.failureMessage ?? 'the carrier refused the text' }
        case 'unknown':
          return { kind: 'unknown', message: text.failureMessage ?? 'no outcome recorded' }
      }
      if (performance.now() > deadline) return { kind: 'unknown', message: 'no outcome recorded yet' }
      await pause(100)
    }
  }

  /** Texts decided within RESUME_WINDOW_MS and never claimed are sent, without waiting for them. */
  protected override async resume(): Promise<void> {
    const { claims, clock, accounts, logger } = this.options
    const since = new Date(clock().getTime() - RESUME_WINDOW_MS).toISOString()
    for (const row of claims.unclaimedSince(this.name, since)) {
      const account = await accounts.get(row.accountId)
      if (!account) continue
      this.send(row.stream, row.id, account).catch((error: unknown) => {
        logger?.error({ err: error, textId: row.id }, 'resuming a text failed')
      })
    }
  }

  protected override async markUnknown(claim: StuckClaim): Promise<boolean> {
    const result = await this.options.commands.handle(
      claim.stream,
      leadDecider,
      { type: 'RecordTextUnknown', textId: claim.id, reason: 'no outcome was recorded for the text (the process stopped while sending)' },
      { actor: this.actor },
    )
    return result.newEvents.length > 0
  }
}
