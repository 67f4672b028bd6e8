/**
 * The number buyer: performs each decision to buy a number (`NumberPurchaseDecided`) once: claim
 * (`NumberPurchaseStarted`) → `carrier.buyNumber` → record (`NumberPurchased`, or a failure). The
 * claim is an append with an expected revision on the number's own stream, so two clicks, two owners
 * or two nodes buy it once; a purchase whose answer never came (a timeout, a 5xx, the process
 * stopping after the claim) is recorded "outcome unknown" and never sent again. A purchase is made
 * while its owner waits: a decision left unclaimed by a stop is recorded failed (`interrupted`,
 * nothing was asked of the carrier) rather than bought later behind the owner's back.
 */
import { numberPurchaseDecider, type NumberPurchase, type NumberPurchaseCommand } from '../../domain/numbers/number-purchase.decider.ts'
import { NUMBER_PURCHASE_EFFECT } from '../../domain/numbers/number-purchase.events.ts'
import { RESTORED_FROM_BACKUP } from '../../domain/restore/log-restore.ts'
import type { Carrier } from '../../integrations/carrier/carrier.port.ts'
import type { UnclaimedDecision } from '../../../projections/claims/claims.queries.ts'
import { EffectProcess, NODE_ID, withCarrierRetries, type EffectProcessOptions, type StuckClaim } from '../effect-process.ts'
import type { CreateEffectProcess } from '../effect-processes.ts'

/** A decision older than this that no one claimed was left by a stop: recorded failed at the next start. */
export const ABANDONED_AFTER_MS = 60_000

export interface NumberBuyerOptions extends EffectProcessOptions {
  readonly carrier: Carrier
}

/** The number buyer of this node (effect-processes.ts finds it here). */
export const createEffectProcess: CreateEffectProcess = (deps) => new NumberBuyer(deps)

export class NumberBuyer extends EffectProcess<NumberBuyerOptions> {
  override readonly effect = NUMBER_PURCHASE_EFFECT

  /** Performs the purchase `purchaseId` of `stream` once per process; a caller that finds it running waits for the same outcome. */
  buy(stream: string, purchaseId: string): Promise<NumberPurchase> {
    let running = this.inFlight.get(purchaseId) as Promise<NumberPurchase> | undefined
    if (!running) {
      running = this.perform(stream, purchaseId).finally(() => this.inFlight.delete(purchaseId))
      this.inFlight.set(purchaseId, running)
    }
    return running
  }

  private async perform(stream: string, purchaseId: string): Promise<NumberPurchase> {
    const { carrier, logger } = this.options
    const claim = await this.record(stream, { type: 'StartPurchase', purchaseId, node: NODE_ID })
    // Claimed elsewhere (another node, an earlier call): its outcome is ours too.
    if (!claim.claimed) return this.awaitPurchase(stream, purchaseId)
    const number = claim.purchase.number
    const buy = carrier.buyNumber?.bind(carrier)
    if (buy === undefined) {
      return (await this.record(stream, { type: 'RecordPurchaseFailed', purchaseId, failure: 'rejected', message: `the ${carrier.name} carrier sells no numbers`, carrierCode: null })).purchase
    }
    return withCarrierRetries<NumberPurchase>(
      async () => {
        const bought = await buy(number)
        return (await this.record(stream, { type: 'RecordPurchased', purchaseId, carrierSid: bought.sid })).purchase
      },
      async ({ failure, message, carrierCode }) => {
        if (failure === 'unknown_outcome') {
          logger?.warn({ purchaseId, number }, 'number purchase outcome unknown: never asked again')
          return (await this.record(stream, { type: 'RecordPurchaseUnknown', purchaseId, reason: message })).purchase
        }
        const kind = failure === 'rate_limited' || failure === 'unreachable' ? failure : 'rejected'
        return (await this.record(stream, { type: 'RecordPurchaseFailed', purchaseId, failure: kind, message, carrierCode })).purchase
      },
    )
  }

  /** Appends `command` as this process; the purchase as it stands after, and whether a claim was appended. */
  private async record(stream: string, command: NumberPurchaseCommand): Promise<{ purchase: NumberPurchase; claimed: boolean }> {
    const result = await this.options.commands.handle(stream, numberPurchaseDecider, command, { actor: this.actor, correlationId: stream })
    const purchase = result.state.current
    if (purchase === null) throw new Error(`no purchase on ${stream}`)
    return { purchase, claimed: result.newEvents[0]?.type === 'NumberPurchaseStarted' }
  }

  /** Another node or an earlier call performs this purchase: its outcome on the log. */
  private async awaitPurchase(stream: string, purchaseId: string, timeoutMs = 25_000): Promise<NumberPurchase> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const { state } = await this.options.commands.load(stream, numberPurchaseDecider)
      const purchase = state.current
      if (purchase === null) throw new Error(`no purchase on ${stream}`)
      if (purchase.purchaseId !== purchaseId || !['decided', 'claimed'].includes(purchase.stage) || performance.now() > deadline) return purchase
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  /** After a start: a purchase decided before the stop and never claimed was never asked of the carrier; recorded failed, for the owner to buy again. */
  protected override async resume(): Promise<void> {
    const { claims, commands, clock } = this.options
    const before = clock().getTime() - ABANDONED_AFTER_MS
    for (const accountId of claims.accountsWithUnclaimed(this.name)) {
      for (const row of claims.unclaimed(this.name, accountId, -1, 500)) {
        const { state } = await commands.load(row.stream, numberPurchaseDecider)
        const purchase = state.current
        if (purchase?.purchaseId !== row.id || purchase.stage !== 'decided' || Date.parse(purchase.decidedAt) > before) continue
        await this.record(row.stream, { type: 'RecordPurchaseFailed', purchaseId: row.id, failure: 'interrupted', message: 'Leadline stopped before it asked the carrier: nothing was bought; buy it again', carrierCode: null })
      }
    }
  }

  /** A restored backup's purchase: never asked (failed), or, claimed, maybe bought (unknown). */
  protected override async expire(decision: UnclaimedDecision): Promise<boolean> {
    const { state } = await this.options.commands.load(decision.stream, numberPurchaseDecider)
    const stage = state.current?.purchaseId === decision.id ? state.current.stage : null
    const command: NumberPurchaseCommand | null =
      stage === 'decided' ? { type: 'RecordPurchaseFailed', purchaseId: decision.id, failure: 'restored_from_backup', message: `${RESTORED_FROM_BACKUP}: never asked of the carrier`, carrierCode: null }
        : stage === 'claimed' ? { type: 'RecordPurchaseUnknown', purchaseId: decision.id, reason: `${RESTORED_FROM_BACKUP}: it may have been bought after the backup` }
          : null
    if (command === null) return false
    const result = await this.options.commands.handle(decision.stream, numberPurchaseDecider, command, { actor: this.actor })
    return result.newEvents.length > 0
  }

  protected override async markUnknown(claim: StuckClaim): Promise<boolean> {
    const result = await this.options.commands.handle(
      claim.stream,
      numberPurchaseDecider,
      { type: 'RecordPurchaseUnknown', purchaseId: claim.id, reason: 'no outcome was recorded (the process stopped while buying): look for the number in the carrier account' },
      { actor: this.actor },
    )
    return result.newEvents.length > 0
  }
}
