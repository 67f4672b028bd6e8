/**
 * The composition root: opens the log and the read models and wires the services every edge uses
 * (HTTP server, CLI, tests). Nothing here decides anything.
 */
import type { Logger } from 'pino'
import { CommandHandler } from './eventstore/command-handler.ts'
import type { EventStore } from './eventstore/event-store.port.ts'
import { openEventStore } from './eventstore/open-event-store.ts'
import { ProjectionRunner } from './read-models/projection-runner.ts'
import { openViewsDatabase, type ViewsDatabase } from './read-models/views-database.ts'
import { AccountsService } from './services/accounts.service.ts'
import { LeadIntakeService } from './services/lead-intake.service.ts'
import { accountsProjection } from '../projections/accounts/accounts.projection.ts'
import { AccountsQueries } from '../projections/accounts/accounts.queries.ts'
import { inboundLeadsProjection } from '../projections/inbound-leads/inbound-leads.projection.ts'
import { InboundLeadsQueries } from '../projections/inbound-leads/inbound-leads.queries.ts'

export const PROJECTIONS = [accountsProjection, inboundLeadsProjection] as const

export interface LeadlineOptions {
  readonly store: string
  readonly viewsPath: string
  readonly clock?: () => Date
  readonly logger?: Logger
}

export interface Leadline {
  readonly store: EventStore
  readonly views: ViewsDatabase
  readonly runner: ProjectionRunner
  readonly commands: CommandHandler
  readonly accounts: AccountsService
  readonly intake: LeadIntakeService
  readonly inboundLeads: InboundLeadsQueries
  readonly accountsQueries: AccountsQueries
  readonly clock: () => Date
  /** Starts the live subscription that keeps read models current (the server does; the CLI catches up instead). */
  start(): void
  close(): Promise<void>
}

export async function openLeadline(options: LeadlineOptions): Promise<Leadline> {
  const clock = options.clock ?? (() => new Date())
  const store = await openEventStore(options.store, { clock })
  const views = openViewsDatabase(options.viewsPath)
  const runner = new ProjectionRunner(store, views, PROJECTIONS, options.logger)
  const commands = new CommandHandler(store, { clock })
  const accountsQueries = new AccountsQueries(views)
  const accounts = new AccountsService(store, commands, runner, accountsQueries)
  const intake = new LeadIntakeService(commands, clock)
  const inboundLeads = new InboundLeadsQueries(views)
  let closed = false
  return {
    store, views, runner, commands, accounts, intake, inboundLeads, accountsQueries, clock,
    start: () => runner.start(),
    async close() {
      if (closed) return
      closed = true
      await runner.stop()
      await store.close()
      views.close()
    },
  }
}
