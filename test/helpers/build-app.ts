/**
 * Builds a complete Leadline (every projection, the HTTP app) for a test, and closes it in the test's
 * teardown. `app.inject` for most tests; `listen()` for a real socket. The log is in memory and the
 * read models in an in-memory SQLite database unless the test asks for the embedded store's files
 * (`store: 'sqlite'`: a restart, a second node, the files themselves).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { openLeadline, type Leadline, type LeadlineOptions } from '../../src/leadline.ts'
import { MEMORY_STORE } from '../../src/eventstore/open-event-store.ts'
import { createHttpServer } from '../../src/http/server.ts'
import type { AccountState } from '../../src/domain/account/account.decider.ts'
import type { RateLimit, TrustProxy } from '../../src/config/config.ts'
import { issueOperatorToken } from '../../src/http/operator/operator-token.ts'

/** What Chromium sends in Accept when it navigates or posts a form: pages for people answer it with HTML. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

export type TestTap = Pick<Test, 'testdir' | 'teardown'>

/** An operator token every test app accepts (its hash is configured): for /metrics and /readyz's details. */
export const OPERATOR = issueOperatorToken()
export const OPERATOR_HEADERS = { authorization: `Bearer ${OPERATOR.token}` } as const

export interface TestApp {
  readonly app: FastifyInstance
  readonly leadline: Leadline
  readonly dir: string
  /** The store URL: `memory:`, or `sqlite:` and a file in `dir`. */
  readonly store: string
  /** `:memory:`, or the views database's file in `dir`. */
  readonly viewsPath: string
  /** Creates an account through the real service; returns it with its webhook token. */
  createAccount(name?: string, settings?: Record<string, unknown>): Promise<{ account: AccountState; token: string; tokenId: string }>
  /** Listens on 127.0.0.1 and returns the base URL. */
  listen(): Promise<string>
}

export const operatorContext = { actor: { kind: 'operator', id: 'test' } } as const

export async function buildApp(
  t: TestTap,
  options: {
    clock?: () => Date
    publicUrl?: string
    logger?: object | false
    start?: boolean
    carrier?: LeadlineOptions['carrier']
    env?: NodeJS.ProcessEnv
    attemptTimeoutMs?: number
    followUpIntervalMs?: number
    /** The webhook's per-token rate limit (null: off); the documented default otherwise. */
    webhookRateLimit?: RateLimit | null
    /** LEADLINE_TRUST_PROXY (default: trust no proxy). */
    trustProxy?: TrustProxy
    /** The embedded store's files in the test's directory instead of memory (default: memory). */
    store?: 'memory' | 'sqlite'
    /** As a server opens it (store: 'sqlite'): the log written on its thread, the read models applied there, the views checkpointed on a thread. */
    serving?: boolean
    /** A second node: the embedded log of this app (built with `store: 'sqlite'`), read models of its own. */
    sameLogAs?: TestApp
    /** The Facebook fetcher's waits before each retry (default: its own, seconds to hours). */
    facebookRetryDelaysMs?: readonly number[]
    /** How outbound events are retried and paced (default: the documented policy). */
    deliveryPolicy?: LeadlineOptions['deliveryPolicy']
    /** Outbound events' receivers: private ones allowed (tests on 127.0.0.1), a resolver of the test's. */
    eventReceivers?: LeadlineOptions['eventReceivers']
    /** LEADLINE_OAUTH=on (give an https publicUrl). */
    oauth?: boolean
    /** The voice assistant's model (default: the scripted assistant) and its turn timeout. */
    assistantProvider?: LeadlineOptions['assistantProvider']
    assistantTurnTimeoutMs?: number
    assistantMaxCallMs?: number
    assistantSilenceMs?: number
  } = {},
): Promise<TestApp> {
  // A second node's own files sit beside the first's (a second testdir() would empty the first's).
  const dir = options.sameLogAs ? fs.mkdtempSync(path.join(options.sameLogAs.dir, 'node-')) : t.testdir()
  const onFiles = options.store === 'sqlite' || options.sameLogAs !== undefined
  const store = options.sameLogAs?.store ?? (onFiles ? `sqlite:${path.join(dir, 'leadline.db')}` : MEMORY_STORE)
  if (store === MEMORY_STORE && options.sameLogAs) throw new Error('a second node needs the first on the embedded files (store: sqlite)')
  const viewsPath = onFiles ? path.join(dir, 'leadline.views.db') : ':memory:'
  const publicUrl = options.publicUrl ?? 'http://leadline.test'
  if (options.serving === true && !onFiles) throw new Error('a serving app needs the embedded files (store: sqlite)')
  const leadline = await openLeadline({
    store,
    viewsPath,
    publicUrl,
    ...(options.serving === true ? { serving: true } : {}),
    // Tests never reach a real carrier: the simulated one, quick, unless a test brings its own.
    env: options.env ?? { LEADLINE_SIMULATED_DELAY_MS: '20' },
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.carrier ? { carrier: options.carrier } : {}),
    ...(options.attemptTimeoutMs !== undefined ? { attemptTimeoutMs: options.attemptTimeoutMs } : {}),
    ...(options.followUpIntervalMs !== undefined ? { followUpIntervalMs: options.followUpIntervalMs } : {}),
    ...(options.facebookRetryDelaysMs !== undefined ? { facebookRetryDelaysMs: options.facebookRetryDelaysMs } : {}),
    ...(options.deliveryPolicy ? { deliveryPolicy: options.deliveryPolicy } : {}),
    ...(options.eventReceivers ? { eventReceivers: options.eventReceivers } : {}),
    ...(options.assistantProvider ? { assistantProvider: options.assistantProvider } : {}),
    ...(options.assistantTurnTimeoutMs !== undefined ? { assistantTurnTimeoutMs: options.assistantTurnTimeoutMs } : {}),
    ...(options.assistantMaxCallMs !== undefined ? { assistantMaxCallMs: options.assistantMaxCallMs } : {}),
    ...(options.assistantSilenceMs !== undefined ? { assistantSilenceMs: options.assistantSilenceMs } : {}),
  })
  const app = await createHttpServer(leadline, {
    logger: (options.logger ?? false) as false,
    publicUrl,
    ...(options.webhookRateLimit !== undefined ? { webhookRateLimit: options.webhookRateLimit } : {}),
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    operatorTokenHashes: [OPERATOR.hash],
    ...(options.oauth !== undefined ? { oauth: options.oauth } : {}),
  })
  if (options.start !== false) await leadline.start()
  t.teardown(async () => {
    await app.close()
    await leadline.close()
  })
  return {
    app,
    leadline,
    dir,
    store,
    viewsPath,
    async createAccount(name = 'Test Account', settings = {}) {
      const { account, webhookToken } = await leadline.accounts.create(name, settings, operatorContext)
      return { account, token: webhookToken.secret, tokenId: webhookToken.id }
    },
    async listen() {
      const address = await app.listen({ port: 0, host: '127.0.0.1' })
      return address
    },
  }
}
