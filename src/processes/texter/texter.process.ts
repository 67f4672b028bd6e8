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
import type { TextRecord } from '../../domain/lead/texts/texts.decider.ts'
import { TEXT_EFFECT } from '../../domain/lead/texts/texts.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { Carrier } from '../../integrations/carrier/carrier.port.ts'
import { NODE_ID, OnceEffectProcess, withCarrierRetries, type OnceEffectProcessOptions, type StuckClaim } from '../effect-process.ts'
import type { CreateEffectProcess } from '../effect-processes.ts'
import { RESTORED_FROM_BACKUP } from '../../domain/restore/log-restore.ts'
import type { UnclaimedDecision } from '../../../projections/claims/claims.queries.ts'

/** After a restart, texts decided this recently but never claimed are sent; older ones are left as they are. */
export const RESUME_WINDOW_MS = 15 * 60 * 1000

export type TextOutcome =
  | { kind: 'sent'; text: TextRecord }
  /** Refused as it went out (`do_not_call`, `outside_lead_hours`, … with no claim) or by the carrier. */
  | { kind: 'failed'; failure: string; message: string }
  | { kind: 'unknown'; message: string }

export interface TexterOptions extends OnceEffectProcessOptions {
  readonly carrier: Carrier
  /** Base URL of the carrier's callbacks (LEADLINE_PUBLIC_URL): each text's delivery receipt comes back there. */
  readonly publicUrl: string
}

/** The texter of this node (effect-processes.ts finds it here). */
export const createEffectProcess: CreateEffectProcess = (deps) => new Texter(deps)

export class Texter extends OnceEffectProcess<TexterOptions, TextOutcome> {
  override readonly effect = TEXT_EFFECT
  protected override readonly resumeWindowMs = RESUME_WINDOW_MS

  protected override async perform(stream: string, textId: string, account: AccountState): Promise<TextOutcome> {
    const { commands, carrier, logger, publicUrl } = this.options
    const actor = { actor: this.actor }
    const { state } = await commands.load(stream, leadDecider)
    const text = state.texts.texts[textId]
    if (!text) throw new DomainError('text_not_found', `no text ${textId} on ${stream}`)
    if (text.stage !== 'decided') return this.awaitText(stream, textId)

    const claim = await commands.handle(stream, leadDecider, { type: 'StartTextAttempt', textId, node: NODE_ID, settings: account.settings }, actor)
    const claimed = claim.newEvents[0]
    if (!claimed) return this.awaitText(stream, textId) // claimed elsewhere: its outcome is ours too
    if (claimed.type === 'TextFailed') return { kind: 'failed', failure: claimed.data.failure, message: claimed.data.message }

    // The Messaging Service the decision named, whatever the account says now.
    const request = {
      from: text.from, to: text.to, body: text.body, reference: textId,
      ...(text.messagingService !== null ? { messagingService: text.messagingService } : {}),
      ...(carrier.textStatusUrl ? { statusCallbackUrl: carrier.textStatusUrl(publicUrl, stream, textId) } : {}),
    }
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

  /** Another node or an earlier call performs this text: its outcome on the log. */
  private awaitText(stream: string, textId: string): Promise<TextOutcome> {
    return this.awaitOutcome(
      stream,
      (lead) => {
        const text = lead.texts.texts[textId]
        switch (text?.stage) {
          case 'sent':
            return { kind: 'sent', text }
          case 'failed':
            return { kind: 'failed', failure: text.failure ?? 'rejected', message: text.failureMessage ?? 'the carrier refused the text' }
          case 'unknown':
            return { kind: 'unknown', message: text.failureMessage ?? 'no outcome recorded' }
          default:
            return undefined
        }
      },
      { kind: 'unknown', message: 'no outcome recorded yet' },
    )
  }

  protected override expire(decision: UnclaimedDecision): Promise<boolean> {
    return this.recordOnLead(decision.stream, { type: 'ExpireText', textId: decision.id, reason: RESTORED_FROM_BACKUP })
  }

  protected override markUnknown(claim: StuckClaim): Promise<boolean> {
    return this.recordOnLead(claim.stream, { type: 'RecordTextUnknown', textId: claim.id, reason: 'no outcome was recorded for the text (the process stopped while sending)' })
  }
}
