/**
 * Appointment reminders (issue #45): plans each booked or moved appointment's texts (a confirmation,
 * reminders before its start) and decides each once it is due, on the lead's stream; the texter
 * sends what is decided (claim → carrier → record). What is due is a read model
 * (projections/appointment-texts), so after a restart every planned text is found again; deciding is
 * an append with an expected revision and the text's id is stable, so on any number of nodes a text
 * is decided once: the text decision is the claim. A cancelled, attended or no-show appointment, a
 * moved one's old times and a do-not-call or opted-out lead drop out of the read model. Each item's
 * error is logged without stopping the others.
 */
import type { Logger } from 'pino'
import type { RecordedEvent } from '../../domain/event.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import type { CommandHandler } from '../../eventstore/command-handler.ts'
import type { ProjectionRunner } from '../../read-models/projection-runner.ts'
import type { Accounts } from '../../commands/accounts.ts'
import type { AppointmentTextsQueries } from '../../../projections/appointment-texts/appointment-texts.queries.ts'
import type { Reaction, Reactor } from '../process-runner.ts'

export interface AppointmentRemindersOptions {
  readonly commands: CommandHandler
  readonly accounts: Pick<Accounts, 'get'>
  readonly queries: AppointmentTextsQueries
  readonly runner: ProjectionRunner
  readonly clock: () => Date
  readonly logger?: Pick<Logger, 'error'>
}

export class AppointmentReminders {
  private running: Promise<number> | null = null
  private queued: Promise<number> | null = null

  constructor(private readonly options: AppointmentRemindersOptions) {}

  /** A booking or a move is planned at once (the confirmation goes without waiting for the next tick). */
  reactor(): Reactor {
    return { name: 'appointment-reminders', handles: ['AppointmentBooked', 'AppointmentRescheduled'], react: (event) => this.react(event) }
  }

  private async react(_event: RecordedEvent): Promise<Reaction> {
    return { settled: this.tick().catch((error: unknown) => this.options.logger?.error({ err: error }, 'appointment texts not planned')) }
  }

  /**
   * Decides every appointment text due now; returns how many changed a lead. A tick asked for while one
   * runs runs after it, so what was appended meanwhile is seen.
   */
  tick(): Promise<number> {
    if (this.running === null) {
      this.running = this.decideDue().finally(() => {
        this.running = null
      })
      return this.running
    }
    this.queued ??= this.running.catch(() => 0).then(() => {
      this.queued = null
      return this.tick()
    })
    return this.queued
  }

  private async decideDue(): Promise<number> {
    const { commands, accounts, queries, runner, clock, logger } = this.options
    await runner.catchUp()
    let changed = 0
    for (const due of queries.due(clock().toISOString())) {
      try {
        const account = await accounts.get(due.accountId)
        if (!account) continue
        const base = { settings: account.settings, business: account.name }
        const command = due.textId === null
          ? { type: 'ScheduleAppointmentTexts' as const, ...base, appointmentId: due.appointmentId }
          : { type: 'DecideAppointmentText' as const, ...base, textId: due.textId }
        const result = await commands.handle(due.stream, leadDecider, command, { actor: { kind: 'process', id: 'appointment-reminders' } })
        changed += result.newEvents.length > 0 ? 1 : 0
      } catch (error) {
        logger?.error({ err: error, stream: due.stream, appointmentId: due.appointmentId }, 'appointment text not decided')
      }
    }
    // What this tick appended leaves the read model before the next one looks.
    if (changed > 0) await runner.catchUp()
    return changed
  }

  async stop(): Promise<void> {
    await this.queued?.catch(() => 0)
    await this.running?.catch(() => 0)
  }
}
