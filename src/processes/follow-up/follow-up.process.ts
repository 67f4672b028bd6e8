/**
 * Follow-up timers: due follow-ups are a read model (projections/calls); each tick claims every due
 * one (a call, or a text step's text) by appending to its lead's stream with an expected revision, so a timer fires once, on one
 * node, however often it is looked at, and survives restarts. Clock jumps cannot double-fire it:
 * a claimed follow-up is no longer pending in the lead's state. Each item's error is logged without
 * stopping the others.
 */
import type { Logger } from 'pino'
import type { CommandHandler } from '../../eventstore/command-handler.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import { newId } from '../../domain/shared/ids.ts'
import type { ProjectionRunner } from '../../read-models/projection-runner.ts'
import type { Accounts } from '../../commands/accounts.ts'
import type { CallsQueries } from '../../../projections/calls/calls.queries.ts'

export class FollowUpScheduler {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<number> | null = null

  constructor(
    private readonly deps: {
      commands: CommandHandler
      accounts: Pick<Accounts, 'get'>
      calls: CallsQueries
      runner: ProjectionRunner
      clock: () => Date
      logger?: Pick<Logger, 'error'>
    },
  ) {}

  /** Claims every follow-up due now; returns how many became call or text decisions, or changes. */
  tick(): Promise<number> {
    this.running ??= this.claimDue().finally(() => {
      this.running = null
    })
    return this.running
  }

  private async claimDue(): Promise<number> {
    const { commands, accounts, calls, runner, clock, logger } = this.deps
    await runner.catchUp()
    const now = clock()
    let changed = 0
    for (const due of calls.dueFollowUps(now.toISOString())) {
      try {
        const account = await accounts.get(due.accountId)
        if (!account) continue
        const result = await commands.handle(
          due.stream,
          leadDecider,
          { type: 'ClaimFollowUp', settings: account.settings, attempt: due.attempt, decisionId: newId('dec'), textId: newId('txt'), business: account.name },
          { actor: { kind: 'process', id: 'follow-up' } },
        )
        changed += result.newEvents.length > 0 ? 1 : 0
      } catch (error) {
        logger?.error({ err: error, stream: due.stream }, 'follow-up claim failed')
      }
    }
    return changed
  }

  start(intervalMs = 1000): void {
    if (this.timer) return
    // A tick that fails as a whole (the store is down) is logged; the next tick tries again.
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => this.deps.logger?.error({ err: error }, 'follow-up tick failed'))
    }, intervalMs)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.running
  }
}
