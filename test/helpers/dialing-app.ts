/**
 * Shared by the dialing integration tests: the real app (buildApp) with the REAL Twilio adapter
 * pointed at the fake Twilio server (TWILIO_API_URL), a clock the test moves, and small waits.
 */
import type { Test } from 'tap'
import { createHttpServer } from '../../src/http/server.ts'
import { openLeadline, type Leadline, type LeadlineOptions } from '../../src/leadline.ts'
import type { FastifyInstance } from 'fastify'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { leadStream } from '../../src/domain/lead/lead.events.ts'
import { buildApp, type TestApp } from './build-app.ts'
import { startFakeTwilio, statusCallbackParams, twilioEnv, type FakeTwilio, type RecordedRequest } from '../doubles/fake-twilio.ts'

export const CALLER_ID = '+13125550100'
export const ALWAYS = 'mon-sun 00:00-24:00'
export const PUBLIC_URL = 'http://leadline.test'
/** Settings under which a new lead is called at once, whatever the time: the tests' baseline. */
export const DIALING = { speedToLead: true, callingHours: ALWAYS, leadTimeGuard: false, callerId: CALLER_ID } as const

/** A caller ID for each further account of one app: a number belongs to one account. */
const MORE_CALLER_IDS = Array.from({ length: 50 }, (_, i) => `+13125550${201 + i}`)

/** The numbers the tests' Twilio account holds (IncomingPhoneNumbers): a caller ID is checked against them when it is set. */
export const TWILIO_NUMBERS = [CALLER_ID, '+13125550101', '+13125550102', '+13125550111', '+15125550100', ...MORE_CALLER_IDS] as const

const accountsMade = new WeakMap<object, number>()

/** The caller ID of the next account made in `app`: CALLER_ID first, then another number the fake Twilio holds each time. */
export function nextCallerId(app: object): string {
  const made = accountsMade.get(app) ?? 0
  accountsMade.set(app, made + 1)
  return made === 0 ? CALLER_ID : (MORE_CALLER_IDS[made - 1] as string)
}

export async function fakeTwilio(t: Pick<Test, 'teardown'>): Promise<FakeTwilio> {
  const fake = await startFakeTwilio({ incomingNumbers: TWILIO_NUMBERS })
  t.teardown(() => fake.close())
  return fake
}

export { twilioEnv }

/** A clock the test sets; starts at `start` and stays there until moved. */
export interface ManualClock {
  readonly now: () => Date
  set(at: Date | string): void
  advance(ms: number): void
}

export function manualClock(start: Date | string): ManualClock {
  let current = new Date(start).getTime()
  return {
    now: () => new Date(current),
    set: (at) => {
      current = new Date(at).getTime()
    },
    advance: (ms) => {
      current += ms
    },
  }
}

export interface DialingAppOptions {
  readonly fake?: FakeTwilio
  readonly clock?: ManualClock
  readonly attemptTimeoutMs?: number
  readonly followUpIntervalMs?: number
  readonly carrier?: LeadlineOptions['carrier']
  readonly start?: boolean
  /** Carrier settings (default: the fake's, when `fake` is given; else the quick simulated carrier). */
  readonly env?: NodeJS.ProcessEnv
  /** The embedded store's files instead of memory: for tests that `reopen` them. */
  readonly store?: 'memory' | 'sqlite'
  readonly deliveryPolicy?: LeadlineOptions['deliveryPolicy']
  readonly eventReceivers?: LeadlineOptions['eventReceivers']
  /** The assistant's longest call in ms instead of the brief's minutes. */
  readonly assistantMaxCallMs?: number
  /** How long a live assistant session may stay silent, in ms. */
  readonly assistantSilenceMs?: number
  /** The assistant's model instead of the scripted assistant (the fake model through an official SDK). */
  readonly assistantProvider?: LeadlineOptions['assistantProvider']
}

export async function dialingApp(t: Test, options: DialingAppOptions = {}): Promise<TestApp> {
  return buildApp(t, {
    publicUrl: PUBLIC_URL,
    followUpIntervalMs: options.followUpIntervalMs ?? 50,
    ...(options.env ? { env: options.env } : options.fake ? { env: twilioEnv(options.fake) } : {}),
    ...(options.clock ? { clock: options.clock.now } : {}),
    ...(options.attemptTimeoutMs !== undefined ? { attemptTimeoutMs: options.attemptTimeoutMs } : {}),
    ...(options.carrier ? { carrier: options.carrier } : {}),
    ...(options.start !== undefined ? { start: options.start } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.deliveryPolicy ? { deliveryPolicy: options.deliveryPolicy } : {}),
    ...(options.eventReceivers ? { eventReceivers: options.eventReceivers } : {}),
    ...(options.assistantMaxCallMs !== undefined ? { assistantMaxCallMs: options.assistantMaxCallMs } : {}),
    ...(options.assistantSilenceMs !== undefined ? { assistantSilenceMs: options.assistantSilenceMs } : {}),
    ...(options.assistantProvider ? { assistantProvider: options.assistantProvider } : {}),
  })
}

/** A second Leadline on the same files (a restart, or another node when `viewsPath` differs). */
export async function reopen(
  t: Pick<Test, 'teardown'>,
  files: { store: string; viewsPath: string },
  options: DialingAppOptions = {},
): Promise<{ leadline: Leadline; app: FastifyInstance }> {
  const leadline = await openLeadline({
    store: files.store,
    viewsPath: files.viewsPath,
    publicUrl: PUBLIC_URL,
    env: options.env ?? (options.fake ? twilioEnv(options.fake) : { LEADLINE_SIMULATED_DELAY_MS: '20' }),
    followUpIntervalMs: options.followUpIntervalMs ?? 50,
    ...(options.clock ? { clock: options.clock.now } : {}),
    ...(options.attemptTimeoutMs !== undefined ? { attemptTimeoutMs: options.attemptTimeoutMs } : {}),
    ...(options.carrier ? { carrier: options.carrier } : {}),
    ...(options.deliveryPolicy ? { deliveryPolicy: options.deliveryPolicy } : {}),
    ...(options.eventReceivers ? { eventReceivers: options.eventReceivers } : {}),
  })
  const app = await createHttpServer(leadline, { logger: false, publicUrl: PUBLIC_URL })
  if (options.start !== false) await leadline.start()
  t.teardown(async () => {
    await app.close()
    await leadline.close()
  })
  return { leadline, app }
}

export async function postLead(app: FastifyInstance, token: string, body: Record<string, unknown>): Promise<{ status: number; body: { leadId: string; created: boolean } }> {
  const response = await app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: body })
  return { status: response.statusCode, body: response.json() }
}

export async function leadEvents(leadline: Pick<Leadline, 'store'>, accountId: string, phone: string): Promise<RecordedEvent[]> {
  return leadline.store.readStream(leadStream(accountId, phone.replace(/\D/g, '').slice(-10)))
}

export async function leadEventTypes(leadline: Pick<Leadline, 'store'>, accountId: string, phone: string): Promise<string[]> {
  return (await leadEvents(leadline, accountId, phone)).map((e) => e.type)
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it returns a value that is not undefined/false; throws after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(10)
  }
}

/** Waits until the lead's stream holds an event of `type` (the `n`th one); returns it. */
export async function waitForEvent(leadline: Pick<Leadline, 'store'>, accountId: string, phone: string, type: string, n = 1, timeoutMs = 30_000): Promise<RecordedEvent> {
  return waitFor(`${n}× ${type} on ${phone}`, async () => (await leadEvents(leadline, accountId, phone)).filter((e) => e.type === type)[n - 1], timeoutMs)
}

/** Call requests that created a call at the fake (faults excluded). */
export function placedCalls(fake: FakeTwilio): RecordedRequest[] {
  return fake.callRequests().filter((r) => r.outcome === 'created')
}

/**
 * Posts a call status callback for `callSid` the way Twilio does: form-encoded, signed by the fake
 * with the SDK over the public URL Leadline was given, sent to the listening app at `baseUrl`.
 */
export async function statusCallback(
  fake: FakeTwilio,
  baseUrl: string,
  callSid: string,
  status: string,
  options: { extra?: Record<string, string>; sequenceNumber?: number; forged?: boolean } = {},
): Promise<number> {
  const params = statusCallbackParams({ callSid, status, ...(options.sequenceNumber !== undefined ? { sequenceNumber: options.sequenceNumber } : {}), ...(options.extra ? { extra: options.extra } : {}) })
  const result = await fake.postStatusCallback(`${baseUrl}/api/carrier/twilio/status`, params, {
    signedUrl: `${PUBLIC_URL}/api/carrier/twilio/status`,
    ...(options.forged ? { forged: true } : {}),
  })
  return result.status
}

/**
 * Follow-up tests: a dialing app on a clock the test moves, its follow-up timer ticking every 50 ms,
 * listening (for signed callbacks), and one account paced fast (pacing is tested elsewhere).
 */
export async function followUpSetup(t: Test, clock: ManualClock, settings: Record<string, unknown> = {}) {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake, clock, followUpIntervalMs: 50 })
  const baseUrl = await built.listen()
  const { account, token } = await built.createAccount('Acme', { ...DIALING, callsPerSecond: 100, ...settings })
  return { fake, app: built.app, leadline: built.leadline, baseUrl, accountId: account.accountId, token }
}

export type FollowUpSetup = Awaited<ReturnType<typeof followUpSetup>>

/** The nth call request's sid to `phone`, once the call is recorded as placed. */
export async function nthCall(s: FollowUpSetup, phone: string, n: number, timeoutMs = 30_000): Promise<string> {
  await s.fake.waitForCalls(n, timeoutMs)
  await waitForEvent(s.leadline, s.accountId, phone, 'CallPlaced', n, timeoutMs)
  return placedCalls(s.fake)[n - 1]?.sid as string
}

/** Twilio reports the call rang out (ringing, then no-answer); throws if Leadline refuses either. */
export async function ringsOut(s: FollowUpSetup, sid: string): Promise<void> {
  if ((await statusCallback(s.fake, s.baseUrl, sid, 'ringing', { sequenceNumber: 1 })) !== 204) throw new Error('ringing refused')
  if ((await statusCallback(s.fake, s.baseUrl, sid, 'no-answer', { sequenceNumber: 2 })) !== 204) throw new Error('no-answer refused')
}

/** Twilio reports a person answered and talked for 42 s (in-progress, then completed); throws if Leadline refuses either. */
export async function answeredByPerson(s: FollowUpSetup, sid: string): Promise<void> {
  if ((await statusCallback(s.fake, s.baseUrl, sid, 'in-progress', { sequenceNumber: 1, extra: { AnsweredBy: 'human' } })) !== 204) throw new Error('in-progress refused')
  if ((await statusCallback(s.fake, s.baseUrl, sid, 'completed', { sequenceNumber: 2, extra: { CallDuration: '42', AnsweredBy: 'human' } })) !== 204) throw new Error('completed refused')
}

/** The URL of a local port nothing listens on (connection refused). */
export async function freePortUrl(): Promise<string> {
  const net = await import('node:net')
  const port = await new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as import('node:net').AddressInfo
      server.close(() => resolve(port))
    })
  })
  return `http://127.0.0.1:${port}`
}
