/**
 * The composition root: opens the log and the read models and wires the commands' dependencies, the
 * queries and the process managers every edge uses
 * (HTTP server, CLI, tests). Nothing here decides anything.
 */
import type { Logger } from 'pino'
import { CommandHandler } from './eventstore/command-handler.ts'
import type { EventStore } from './eventstore/event-store.port.ts'
import { openEventStore } from './eventstore/open-event-store.ts'
import { afterCommitProgress } from './eventstore/sqlite/index.ts'
import { ProjectionRunner } from './read-models/projection-runner.ts'
import { LeadStatusQueries } from '../projections/lead-status/lead-status.queries.ts'
import { ConversationsQueries } from '../projections/conversations/conversations.queries.ts'
import { AppointmentsQueries } from '../projections/appointments/appointments.queries.ts'
import { PROJECTIONS } from '../projections/projections.ts'
import { startViewsCheckpointer } from './read-models/views-checkpointer.ts'
import { writerThreadReadModels } from './writer-thread-read-models.ts'
import { openViewsDatabase, type ViewsDatabase } from './read-models/views-database.ts'
import { Accounts } from './commands/accounts.ts'
import { NumberClaims } from './commands/number-claims.ts'
import { NumberSetup } from './commands/number-setup.ts'
import { NumberBuyer } from './processes/number-buyer/number-buyer.process.ts'
import { IdempotencyKeys } from './commands/idempotency.ts'
import { recordCallStatus } from './commands/record-call-status.command.ts'
import { recordAnsweredBy } from './commands/record-answered-by.command.ts'
import { pressMenuKey } from './commands/press-menu-key.command.ts'
import { recordOwnerConnect } from './commands/record-owner-connect.command.ts'
import { answeredCall } from './commands/answered-call.ts'
import { pressAgentKey, recordLeadDial } from './commands/agent-first.command.ts'
import { recordInboundText } from './commands/receive-text.command.ts'
import { recordTextStatus } from './commands/record-text-status.command.ts'
import { openAssistantCall, prepareAssistantCall } from './commands/assistant-call.ts'
import { inboundCallReports } from './commands/inbound-call.command.ts'
import { NODE_ID } from './processes/effect-process.ts'
import { AccountsQueries } from '../projections/accounts/accounts.queries.ts'
import { NumbersQueries } from '../projections/numbers/numbers.queries.ts'
import { InboundLeadsQueries } from '../projections/inbound-leads/inbound-leads.queries.ts'
import { CallsQueries } from '../projections/calls/calls.queries.ts'
import { ClaimsQueries } from '../projections/claims/claims.queries.ts'
import type { CallReports, Carrier } from './integrations/carrier/carrier.port.ts'
import { openCarrier } from './integrations/carrier/open-carrier.ts'
import { Dialer } from './processes/dialer/dialer.process.ts'
import { ProcessRunner } from './processes/process-runner.ts'
import { FollowUpScheduler } from './processes/follow-up/follow-up.process.ts'
import { NextActionsQueries } from '../projections/stale-leads/next-actions.queries.ts'
import { StaleLeadsQueries } from '../projections/stale-leads/stale-leads.queries.ts'
import { PaymentsQueries } from '../projections/payments/payments.queries.ts'
import type { PaymentsProvider } from './integrations/payments/payments.port.ts'
import { openPayments } from './integrations/payments/open-payments.ts'
import { loadEffectProcesses, type EffectProcesses } from './processes/effect-processes.ts'
import { UsersQueries } from '../projections/users/users.queries.ts'
import { Users } from './commands/users.ts'
import { scryptLogNFromEnv } from './commands/password-hasher.ts'
import { WebhookDeliveries } from './read-models/webhook-deliveries.ts'
import { ApiKeyUsage } from './read-models/api-key-usage.ts'
import { statement } from './read-models/statement-cache.ts'
import type { SecretBox } from './integrations/secrets/secret-box.ts'
import { openSecretBox } from './integrations/secrets/open-secret-box.ts'
import { ownerNetwork } from './integrations/network/public-fetch.ts'
import { calendarAllowPrivateFromEnv, calendarSyncSecondsFromEnv, eventsAllowPrivateFromEnv, facebookConfig, googleCalendarConfig, type FacebookConfig, type GoogleCalendarConfig } from './config/config.ts'
import { EventReceivers, type HostResolver } from './integrations/event-receivers/event-receivers.ts'
import { FacebookLeadAds } from './commands/facebook-lead-ads.ts'
import { FacebookLeadAdsQueries } from '../projections/facebook-lead-ads/facebook-lead-ads.queries.ts'
import { ReportsQueries } from '../projections/reports/reports.queries.ts'
import { CallLogQueries } from '../projections/reports/call-log.queries.ts'
import { createFacebookGraph } from './integrations/facebook/graph-api.ts'
import { FacebookLeadFetcher } from './processes/facebook-lead-fetcher/facebook-lead-fetcher.process.ts'
import { OutboundDeliveries } from './read-models/outbound-deliveries.ts'
import { OutboundEvents, intakeFlood, type DeliveryPolicy } from './processes/outbound-events/outbound-events.process.ts'
import { IntakeGauge } from './processes/intake-gauge.ts'
import { OwnerAlerts } from './processes/owner-alerts/owner-alerts.process.ts'
import { MissedCallTextBack } from './processes/missed-call-text/missed-call-text.process.ts'
import { AppointmentReminders } from './processes/appointment-reminders/appointment-reminders.process.ts'
import { CalendarSync } from './processes/calendar-sync/calendar-sync.process.ts'
import { CalendarSyncQueries } from '../projections/calendar-sync/calendar-sync.queries.ts'
import { AppointmentTextsQueries } from '../projections/appointment-texts/appointment-texts.queries.ts'
import { EventSubscriptions } from './commands/event-subscriptions.ts'
import type { Assistant } from './processes/assistant/conversation.ts'
import { AssistantEngine } from './processes/assistant/assistant-engine.ts'
import { openAssistantProvider } from './integrations/assistant/open-assistant-provider.ts'
import type { AssistantProvider } from './integrations/assistant/assistant-provider.port.ts'
import { Calendars } from './commands/calendars.ts'
import { Appointments } from './commands/appointments.ts'
import { calendarOpener } from './integrations/calendar/open-calendar.ts'

export { PROJECTIONS }

/** The process runner's name: its checkpoint's row in the views database. */
const PROCESSES = 'dialing'
const OUTBOUND_EVENTS = 'outbound-events'

/** An attempt with no outcome after this long is marked "outcome unknown" (longer than any carrier request). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 60_000

export interface LeadlineOptions {
  readonly store: string
  readonly viewsPath: string
  readonly clock?: () => Date
  readonly logger?: Logger
  /** Base URL for carrier callbacks and links (LEADLINE_PUBLIC_URL). */
  readonly publicUrl?: string
  /** Carrier settings (TWILIO_*, LEADLINE_SIMULATED_*); default process.env. */
  readonly env?: NodeJS.ProcessEnv
  /** A carrier to use instead of the one the environment names (tests, the demo); handed the reports like any other. */
  readonly carrier?: () => Carrier
  readonly attemptTimeoutMs?: number
  readonly followUpIntervalMs?: number
  /** How often the calendar sync looks for edits in the owners' calendars; default LEADLINE_CALENDAR_SYNC_SECONDS of `env`. */
  readonly calendarSyncIntervalMs?: number
  /** A long-running server (the embedded store writes on a thread of its own); see OpenStoreOptions. */
  readonly serving?: boolean
  /** Facebook Lead Ads' settings; default: FACEBOOK_* of `env` (null: not set up). */
  readonly facebook?: FacebookConfig | null
  /** Google Calendar's OAuth client and address; default: GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, LEADLINE_GOOGLE_API_URL of `env`. */
  readonly googleCalendar?: GoogleCalendarConfig
  /** The Facebook fetcher's waits before each retry (tests shorten them). */
  readonly facebookRetryDelaysMs?: readonly number[]
  /** How outbound events are retried and paced (tests shorten it); see DEFAULT_DELIVERY_POLICY. */
  readonly deliveryPolicy?: Partial<DeliveryPolicy>
  /**
   * Outbound events' receivers: whether private ones are allowed (default: LEADLINE_EVENTS_ALLOW_PRIVATE
   * of `env`) and the resolver their host names go through (default: the system's; tests bring their own).
   */
  readonly eventReceivers?: { readonly allowPrivate?: boolean; readonly resolve?: HostResolver }
  /** The voice assistant's model instead of the one LEADLINE_ASSISTANT_* names (tests); its turn timeout too. */
  readonly assistantProvider?: AssistantProvider
  readonly assistantTurnTimeoutMs?: number
  /** The assistant's longest call in ms instead of the brief's minutes (tests shorten it). */
  readonly assistantMaxCallMs?: number
  /** How long a live assistant session may stay silent, in ms, instead of LEADLINE_ASSISTANT_SILENCE_MS (tests shorten it). */
  readonly assistantSilenceMs?: number
}

export interface Leadline {
  readonly store: EventStore
  readonly views: ViewsDatabase
  readonly runner: ProjectionRunner
  readonly commands: CommandHandler
  readonly accounts: Accounts
  readonly inboundLeads: InboundLeadsQueries
  readonly accountsQueries: AccountsQueries
  /** Which account holds each caller ID and Messaging Service (one each). */
  readonly numbers: NumberClaims
  /** The carrier account's numbers: list, search, buy (at most once), put in use for an account. */
  readonly numberSetup: NumberSetup
  /** Idempotency keys of the write tools, kept on the log. */
  readonly idempotency: IdempotencyKeys
  readonly calls: CallsQueries
  /** Every effect process's decisions no one claimed and claims without an outcome. */
  readonly claims: ClaimsQueries
  /** Performs call decisions (speed to lead, follow-ups, place_call), paced per account. */
  readonly dialer: Dialer
  readonly nextActions: NextActionsQueries
  /** Where each lead stands (the console's status column and filter). */
  readonly leadStatus: LeadStatusQueries
  /** Leads with texts the owner has not read (the console's Inbox). */
  readonly conversations: ConversationsQueries
  /** Each lead's appointments, the account's upcoming and today's, and the no-shows (read model; the booking API is core's). */
  readonly appointmentsQueries: AppointmentsQueries
  readonly followUps: FollowUpScheduler
  readonly carrier: Carrier
  /** What the carrier reports about its calls and asks while one is live, recorded through commands. */
  readonly callReports: CallReports
  /**
   * Every process that acts on the world (the dialer, the pay-link sender, the texter, Facebook's
   * fetcher), found in `src/processes/`: fed by the process runner, recovered at a start, swept, stopped.
   */
  readonly effects: EffectProcesses
  /** Stripe (STRIPE_SECRET_KEY) or the simulated provider. */
  readonly paymentsProvider: PaymentsProvider
  /** Stripe's webhook signing secret, for checking its events; null with the simulated provider. */
  readonly stripeWebhookSecret: string | null
  readonly payLinks: PaymentsQueries
  /** The owner's reports (figures per day, source, hour × weekday) and the Calls page's log, both directions. */
  readonly reports: ReportsQueries
  readonly callLog: CallLogQueries
  /** Console users: owners, their passwords and sessions (the console at /app). */
  readonly users: Users
  readonly usersQueries: UsersQueries
  /** The last webhook deliveries per account (views database; the console's Lead webhook page). */
  readonly webhookDeliveries: WebhookDeliveries
  /** When each API key was last used (views database; the console's AI access page). */
  readonly apiKeyUsage: ApiKeyUsage
  /** Seals secrets kept on the log for later use (LEADLINE_SECRET_KEY, or the key file beside the embedded log). */
  readonly secretBox: SecretBox
  /** Facebook pages, their notifications and their leads (connect a page with the CLI even where the server has no FACEBOOK_*). */
  readonly facebookLeadAds: FacebookLeadAds
  /** The Facebook webhook's settings and use cases; null when FACEBOOK_* are not set (the route answers 404). */
  readonly facebook: { readonly config: FacebookConfig; readonly ads: FacebookLeadAds; readonly fetcher: FacebookLeadFetcher } | null
  /** Outbound events: the accounts' subscriptions and the deliveries' log. */
  readonly eventSubscriptions: EventSubscriptions
  /** Delivers outbound events from the log (started with the server). */
  readonly outboundEvents: OutboundEvents
  /** How fast leads arrive at the webhook (it counts them): what outbound events yield to. */
  readonly intake: IntakeGauge
  /** Texts the owner of what they asked to hear of. */
  readonly ownerAlerts: OwnerAlerts
  /** Decides the text-back after each missed inbound call (the texter sends it). */
  readonly missedCallText: MissedCallTextBack
  /** Plans and decides appointments' confirmations and reminders when due (the texter sends them). */
  readonly appointmentReminders: AppointmentReminders
  /** The voice assistant's conversations (issue #29): what the ConversationRelay route talks to. */
  readonly assistant: Assistant
  /** The account's calendar connection (credentials sealed) and its appointment types (issue #45). */
  readonly calendars: Calendars
  /** Google Calendar's OAuth client (null: the console does not offer Google) and address, for the console's consent. */
  readonly googleCalendar: GoogleCalendarConfig
  /** Open slots, and booking, moving and cancelling a lead's appointments in the account's calendar. */
  readonly appointments: Appointments
  /** Notices appointments moved or deleted in the calendar and makes the lead's follow; `status(accountId)` for the owner. */
  readonly calendarSync: CalendarSync
  readonly clock: () => Date
  /** The position the process managers (the dialer) have saved as done; null before the first start. */
  processesCheckpoint(): number | null
  /**
   * Starts what only a server runs: the live read-model subscription, the process managers (speed to
   * lead, dialer, follow-up timers) and the sweeper. The CLI catches up read models instead.
   */
  start(): Promise<void>
  /** Fixes where the process managers begin on a first run; the server calls it before it listens. */
  prepare(): Promise<void>
  close(): Promise<void>
}

export async function openLeadline(options: LeadlineOptions): Promise<Leadline> {
  const clock = options.clock ?? (() => new Date())
  const scryptLogN = scryptLogNFromEnv(options.env ?? process.env)
  // Before the store opens: an EventStoreDB deployment without its key stops here, with what to set.
  const secretBox = openSecretBox(options.store, options.env ?? process.env)
  // A server's read models are applied on the embedded store's writer thread, as each batch commits (src/writer-thread-read-models.ts).
  const afterCommit = options.serving === true && options.viewsPath !== ':memory:' ? writerThreadReadModels(options.viewsPath) : undefined
  const store = await openEventStore(options.store, { clock, serving: options.serving === true, ...(afterCommit ? { afterCommit } : {}), ...(options.logger ? { logger: options.logger } : {}) })
  const views = openViewsDatabase(options.viewsPath)
  // A server's views are checkpointed off the event loop (src/read-models/views-checkpointer.ts).
  const checkpointer = options.serving === true && options.viewsPath !== ':memory:'
    ? await startViewsCheckpointer(views, options.viewsPath, options.logger ? { logger: options.logger } : {})
    : null
  const runner = new ProjectionRunner(store, views, PROJECTIONS, options.logger, afterCommitProgress(store))
  const commands = new CommandHandler(store, { clock })
  const accountsQueries = new AccountsQueries(views)
  // The carrier first: the claims on numbers and the commands behind its reports call it; its reports are handed to it below.
  const carrier = options.carrier ? options.carrier() : await openCarrier(options.env ?? process.env, options.logger)
  const numbersQueries = new NumbersQueries(views)
  const numberClaims = new NumberClaims({
    commands, runner, queries: numbersQueries, carrier: () => carrier, ...(options.logger ? { logger: options.logger } : {}),
  })
  const accounts = new Accounts(store, commands, runner, accountsQueries, numberClaims)
  const inboundLeads = new InboundLeadsQueries(views)
  const idempotency = new IdempotencyKeys(store, { clock, ...(options.logger ? { logger: options.logger } : {}) })
  const calls = new CallsQueries(views)
  const claims = new ClaimsQueries(views)
  // The carrier reports through commands, and a live call's commands ask the carrier back (a voicemail, a hang-up).
  const live = {
    commands, accounts, calls, claims, runner, clock, inboundLeads, node: NODE_ID, carrier: () => carrier, publicUrl: options.publicUrl ?? 'http://127.0.0.1:3000',
  }
  const publicUrl = (options.publicUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '')
  // The assistant books through the same appointments command as agents.
  const googleCalendar = options.googleCalendar ?? googleCalendarConfig(options.env ?? process.env)
  // Calendars at addresses the owner typed are reached on public networks only, unless the operator allows private ones.
  const calendarNetwork = ownerNetwork({ allowPrivate: calendarAllowPrivateFromEnv(options.env ?? process.env) })
  const calendars = new Calendars({ commands, accounts, secretBox, open: calendarOpener({ googleApiUrl: googleCalendar.apiUrl, network: calendarNetwork }) })
  const appointments = new Appointments({ commands, accounts, calendars, clock, publicUrl })
  // The voice assistant, before the reports: the carrier asks for it once an assistant call is answered.
  const openedAssistant = options.assistantProvider ? null : await openAssistantProvider(options.env ?? process.env, options.logger)
  const assistant = new AssistantEngine({
    commands, accounts, calls, runner, inboundLeads, clock, appointments,
    provider: options.assistantProvider ?? (openedAssistant as NonNullable<typeof openedAssistant>).provider,
    turnTimeoutMs: options.assistantTurnTimeoutMs ?? openedAssistant?.turnTimeoutMs,
    ...(options.assistantMaxCallMs !== undefined ? { maxCallMs: options.assistantMaxCallMs } : {}),
    silenceMs: options.assistantSilenceMs ?? openedAssistant?.silenceMs,
    ...(options.logger ? { logger: options.logger } : {}),
  })
  const assistantCalls = { ...live, assistant: () => assistant }
  const callReports: CallReports = {
    recordCallStatus: (update) => recordCallStatus(live, update),
    recordAnsweredBy: (callId, answeredBy) => recordAnsweredBy(live, callId, answeredBy),
    answeredCall: (decisionId) => answeredCall(live, decisionId),
    pressMenuKey: (decisionId, digit) => pressMenuKey(live, decisionId, digit),
    recordOwnerConnect: (decisionId, status, durationSeconds) => recordOwnerConnect(live, decisionId, status, durationSeconds),
    pressAgentKey: (decisionId, callId, digit) => pressAgentKey(live, decisionId, callId, digit),
    recordLeadDial: (decisionId, status) => recordLeadDial(live, decisionId, status),
    recordInboundText: async (text) => (await recordInboundText({ ...live, numbers: numberClaims }, text)).recorded,
    recordTextStatus: (report) => recordTextStatus(live, carrier.name, report),
    prepareAssistant: (decisionId, callId) => prepareAssistantCall(assistantCalls, decisionId, callId),
    openAssistant: (decisionId, callId) => openAssistantCall(assistantCalls, decisionId, callId),
    inbound: inboundCallReports({ ...live, numbers: numberClaims, assistant: () => assistant }),
  }
  // A carrier that reports in-process (the simulated one) reports here; Twilio's callbacks are lent them by the HTTP edge.
  carrier.reportTo?.(callReports)
  const payLinks = new PaymentsQueries(views)
  const opened = await openPayments(options.env ?? process.env, publicUrl, { clock, ...(options.logger ? { logger: options.logger } : {}) })
  const usersQueries = new UsersQueries(views)
  const users = new Users(commands, runner, usersQueries, { clock, scryptLogN })
  const webhookDeliveries = new WebhookDeliveries(views, options.logger)
  const apiKeyUsage = new ApiKeyUsage(views, clock)
  const appointmentsQueries = new AppointmentsQueries(views)
  const nextActions = new NextActionsQueries(new StaleLeadsQueries(views), calls, clock, appointmentsQueries)
  const leadStatus = new LeadStatusQueries(views)
  const conversations = new ConversationsQueries(views)
  const followUps = new FollowUpScheduler({ commands, accounts, calls, runner, clock, ...(options.logger ? { logger: options.logger } : {}) })
  const facebookSettings = options.facebook === undefined ? facebookConfig(options.env ?? process.env) : options.facebook
  const facebookLeadAds = new FacebookLeadAds({
    commands, runner, accounts, queries: new FacebookLeadAdsQueries(views), box: secretBox, clock, ...(options.logger ? { logger: options.logger } : {}),
  })
  const effects = await loadEffectProcesses({
    commands, accounts, claims, runner, clock, carrier, paymentsProvider: opened.provider, publicUrl,
    facebook: facebookSettings === null ? null : {
      ads: facebookLeadAds,
      graph: createFacebookGraph({ graphUrl: facebookSettings.graphUrl, version: facebookSettings.graphVersion, appSecret: facebookSettings.appSecret, timeoutMs: facebookSettings.graphTimeoutMs }),
      graphTimeoutMs: facebookSettings.graphTimeoutMs,
      ...(options.facebookRetryDelaysMs ? { retryDelaysMs: options.facebookRetryDelaysMs } : {}),
    },
    ...(options.logger ? { logger: options.logger } : {}),
  })
  const dialer = effects.get(Dialer)
  const numberBuyer = effects.get(NumberBuyer)
  const numberSetup = new NumberSetup({ commands, runner, queries: numbersQueries, claims: numberClaims, accounts, carrier, buy: (stream, id) => numberBuyer.buy(stream, id) })
  const fetcher = effects.find(FacebookLeadFetcher)
  const facebook: Leadline['facebook'] = facebookSettings !== null && fetcher ? { config: facebookSettings, ads: facebookLeadAds, fetcher } : null
  const effectProcesses = effects.all
  const outboundDeliveries = new OutboundDeliveries(views)
  const intake = new IntakeGauge()
  const receivers = new EventReceivers({
    rules: { allowPrivate: options.eventReceivers?.allowPrivate ?? eventsAllowPrivateFromEnv(options.env ?? process.env) },
    ...(options.eventReceivers?.resolve ? { resolve: options.eventReceivers.resolve } : {}),
  })
  const outboundEvents = new OutboundEvents({
    accounts, inboundLeads, deliveries: outboundDeliveries, views, secretBox, receivers, clock,
    policy: { flooded: intakeFlood(intake), ...options.deliveryPolicy }, ...(options.logger ? { logger: options.logger } : {}),
  })
  const ownerAlerts = new OwnerAlerts({ store, accounts, inboundLeads, carrier, clock, ...(options.logger ? { logger: options.logger } : {}) })
  const eventSubscriptions = new EventSubscriptions({ commands, accounts, secretBox, receivers, deliveries: outboundDeliveries, outboundEvents, clock })
  const missedCallText = new MissedCallTextBack({ commands, accounts, ...(options.logger ? { logger: options.logger } : {}) })
  const appointmentReminders = new AppointmentReminders({ commands, accounts, queries: new AppointmentTextsQueries(views), runner, clock, ...(options.logger ? { logger: options.logger } : {}) })
  const calendarSync = new CalendarSync({ commands, accounts, calendars, queries: new CalendarSyncQueries(views), runner, clock, ...(options.logger ? { logger: options.logger } : {}) })
  const reactors = [...effectProcesses.map((p) => p.reactor()), ownerAlerts.reactor(), missedCallText.reactor(), appointmentReminders.reactor()]
  const processes = new ProcessRunner(store, views, PROCESSES, reactors, options.logger)
  // Outbound events have a runner of their own: they pause while intake is busy, and must not hold up dialing.
  const outboundRunner = new ProcessRunner(store, views, OUTBOUND_EVENTS, [outboundEvents.reactor()], options.logger, { maxBatchSize: 100, inheritCheckpoint: PROCESSES })
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS
  let sweeper: NodeJS.Timeout | null = null
  let timers: NodeJS.Timeout | null = null
  let closed = false
  return {
    store, views, runner, commands, accounts, inboundLeads, accountsQueries, numbers: numberClaims, numberSetup, idempotency, calls, claims, dialer, nextActions, leadStatus, conversations, appointmentsQueries, followUps, carrier, callReports, clock,
    effects, paymentsProvider: opened.provider, stripeWebhookSecret: opened.webhookSecret, payLinks, reports: new ReportsQueries(views), callLog: new CallLogQueries(views),
    users, usersQueries, webhookDeliveries, apiKeyUsage, secretBox, facebookLeadAds, facebook, eventSubscriptions, outboundEvents, ownerAlerts, missedCallText, appointmentReminders, assistant, intake, calendars, googleCalendar, appointments, calendarSync,
    processesCheckpoint: () => (statement(views, 'SELECT position FROM process_checkpoints WHERE name = ?').get(PROCESSES) as { position: number } | undefined)?.position ?? null,
    async prepare() {
      await processes.prepare()
      await outboundRunner.prepare()
    },
    async start() {
      runner.start()
      // An upgraded log's shared numbers are given to one account each; a text routed meanwhile waits for it.
      void numberClaims.adoptExisting().catch((error: unknown) => options.logger?.error({ err: error }, 'could not claim the numbers accounts set before claims; tried again at the next look-up'))
      carrier.warm?.()
      for (const process of effectProcesses) await process.recover(attemptTimeoutMs)
      await processes.start()
      await outboundRunner.start()
      outboundEvents.start()
      // One timer for follow-ups and appointment texts, one after the other: each brings the read models up to the
      // log first, and two timers at two phases would do it twice a second (and hide a stalled subscription's lag).
      timers = setInterval(() => {
        void followUps.tick()
          .catch((error: unknown) => options.logger?.error({ err: error }, 'follow-up tick failed'))
          .then(() => appointmentReminders.tick())
          .catch((error: unknown) => options.logger?.error({ err: error }, 'appointment reminders tick failed'))
      }, options.followUpIntervalMs ?? 1000)
      timers.unref()
      calendarSync.start(options.calendarSyncIntervalMs ?? calendarSyncSecondsFromEnv(options.env ?? process.env) * 1000)
      sweeper = setInterval(() => void Promise.all(effectProcesses.map((p) => p.sweep(attemptTimeoutMs))), Math.max(1000, Math.min(attemptTimeoutMs / 2, 30_000)))
      sweeper.unref()
    },
    async close() {
      if (closed) return
      closed = true
      if (sweeper) clearInterval(sweeper)
      if (timers) clearInterval(timers)
      await followUps.stop()
      // Text-backs decided before the texter stops, which sends what it was fed.
      await missedCallText.stop()
      await appointmentReminders.stop()
      await calendarSync.stop()
      await Promise.all(effectProcesses.map((p) => p.stop()))
      await ownerAlerts.stop()
      await processes.stop()
      outboundEvents.stopWaiting()
      await outboundRunner.stop()
      await outboundEvents.stop()
      await runner.stop()
      await carrier.close?.()
      await opened.provider.close?.()
      await store.close()
      webhookDeliveries.flush()
      await checkpointer?.stop()
      views.close()
    },
  }
}
