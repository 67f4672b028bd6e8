/** Environment configuration, validated once at start; a bad value stops the process with a clear message. */
import { z } from 'zod'
import { DEFAULT_STORE } from './server-address.ts'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** A token bucket's shape: `burst` requests at once, `ratePerSecond` on average. */
export interface RateLimit {
  readonly ratePerSecond: number
  readonly burst: number
}

/** The webhook's limit per token: a lead form's real peak is far below it; a runaway loop is not. */
export const DEFAULT_WEBHOOK_RATE_LIMIT: RateLimit = { ratePerSecond: 50, burst: 200 }

/** How long an event may wait for a node's read models before `/readyz` takes the node out of rotation. */
export const DEFAULT_READY_LAG_MS = 1000

/** How often, in seconds, the calendar sync looks for edits made in the owners' calendars. */
export const DEFAULT_CALENDAR_SYNC_SECONDS = 60

/** proxy-addr's names for address ranges, usable in LEADLINE_TRUST_PROXY. */
const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal']

/** An http(s) base URL, without its trailing slashes. */
const httpUrl = z
  .string()
  .trim()
  .url({ message: 'must be an http(s) URL such as https://leads.example.com' })
  .refine((u) => /^https?:\/\//.test(u), { message: 'must be an http(s) URL such as https://leads.example.com' })
  .transform((u) => u.replace(/\/+$/, ''))

const eventsAllowPrivate = z
  .enum(['0', '1'], { message: 'must be 1 (outbound events may go to private, loopback and plain-http receivers) or 0 (public https receivers only, the default)' })
  .default('0')
  .transform((v) => v === '1')
const calendarAllowPrivate = z
  .enum(['0', '1'], { message: 'must be 1 (calendars may be on private, loopback and plain-http addresses) or 0 (public addresses only, the default)' })
  .default('0')
  .transform((v) => v === '1')
const PORT_MESSAGE = 'must be a TCP port number from 0 to 65535, such as 3000'

/** A whole number in a range, refused in one sentence whatever is wrong with it. */
function wholeNumber(min: number, max: number, unit: string) {
  const message = `must be a whole number of ${unit} from ${min} to ${max.toLocaleString('en-US')}`
  return z.coerce.number({ message }).int({ message }).min(min, { message }).max(max, { message })
}

const schema = z.object({
  PORT: z.coerce.number({ message: PORT_MESSAGE }).int({ message: PORT_MESSAGE }).min(0, { message: PORT_MESSAGE }).max(65535, { message: PORT_MESSAGE }).default(3000),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  LEADLINE_STORE: z
    .string()
    .trim()
    .default(DEFAULT_STORE)
    .refine((s) => /^sqlite:.+/.test(s) || /^(esdb|kurrentdb|esdb\+discover|kurrentdb\+discover):\/\/.+/.test(s), {
      message: 'must be sqlite:PATH or an EventStoreDB connection string (esdb://host:2113?tls=false)',
    }),
  LEADLINE_VIEWS: z.string().trim().min(1).optional(),
  LEADLINE_PUBLIC_URL: z.optional(httpUrl),
  LOG_LEVEL: z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  LEADLINE_OAUTH: z.enum(['on', 'off'], { message: 'must be on or off' }).default('off'),
  // Per webhook token: sustained leads per second, or `off` where a gateway in front already limits.
  LEADLINE_WEBHOOK_RATE: z
    .union([z.literal('off'), z.coerce.number().positive().max(1_000_000)], { message: 'must be a number of requests per second above 0, or off' })
    .default(DEFAULT_WEBHOOK_RATE_LIMIT.ratePerSecond),
  LEADLINE_WEBHOOK_BURST: wholeNumber(1, 1_000_000, 'requests').default(DEFAULT_WEBHOOK_RATE_LIMIT.burst),
  LEADLINE_READY_LAG_MS: wholeNumber(0, 3_600_000, 'milliseconds').default(DEFAULT_READY_LAG_MS),
  // How often accounts with booked appointments ask their calendar what the owner moved or deleted there.
  LEADLINE_CALENDAR_SYNC_SECONDS: wholeNumber(5, 86_400, 'seconds').default(DEFAULT_CALENDAR_SYNC_SECONDS),
  LEADLINE_TRUST_PROXY: z.string().trim().default('false').transform((text, context): TrustProxy => {
    if (text === 'false') return false
    if (text === 'true') return true
    const addresses = text.split(',').map((a) => a.trim()).filter((a) => a !== '')
    const address = (a: string) => PROXY_NAMES.includes(a) || (/^[0-9a-f.:]+(\/\d{1,3})?$/i.test(a) && (a.includes('.') || a.includes(':')))
    if (addresses.length > 0 && addresses.every(address)) return addresses
    context.addIssue({ code: 'custom', message: `must be false, true, or proxy addresses, CIDR ranges and names (${PROXY_NAMES.join(', ')}) separated by commas: 10.0.0.0/8,127.0.0.1` })
    return z.NEVER
  }),
  // SHA-256 hashes of operator tokens (`leadline operator-token`), comma-separated so a new one can overlap the old.
  LEADLINE_OPERATOR_TOKEN_HASH: z
    .string()
    .trim()
    .transform((text) => text.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== ''))
    .refine((hashes) => hashes.every((h) => /^[0-9a-f]{64}$/.test(h)), { message: 'must be SHA-256 hashes (64 hex digits each, comma-separated) as `leadline operator-token` prints them, never the token itself' })
    .default([]),
  // Outbound events to private, loopback and plain-http receivers (docs/events.md#receivers): a self-hosted network, tests.
  LEADLINE_EVENTS_ALLOW_PRIVATE: eventsAllowPrivate,
  LEADLINE_CALENDAR_ALLOW_PRIVATE: calendarAllowPrivate,
  // The key that seals secrets Leadline must use later (signing secrets, page access tokens): 32 bytes, base64 or hex.
  LEADLINE_SECRET_KEY: z
    .string()
    .trim()
    .transform((text, context) => {
      const key = parseSecretKey(text)
      if (key !== null) return key
      context.addIssue({ code: 'custom', message: 'must be 32 random bytes as base64 (44 characters) or hex (64 digits), as `openssl rand -base64 32` prints them' })
      return z.NEVER
    })
    .optional(),
})

/** The variables the core schema reads, in its order. */
export const CORE_VARIABLES: readonly string[] = Object.keys(schema.shape)

/** Each core variable's effective value, its default when unset (after loadConfig accepted the environment). */
export function coreSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  return schema.parse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))) as Record<string, unknown>
}

/** 32 bytes written as base64 (standard or URL-safe, padded or not) or as 64 hex digits; null for anything else. */
export function parseSecretKey(text: string): Buffer | null {
  const trimmed = text.trim()
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex')
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    if (key.length === 32) return key
  }
  return null
}

/** LEADLINE_SECRET_KEY from an environment, checked as loadConfig checks it; null when not set. */
export function secretKeyFromEnv(env: NodeJS.ProcessEnv): Buffer | null {
  const text = env.LEADLINE_SECRET_KEY
  if (text === undefined || text.trim() === '') return null
  const key = parseSecretKey(text)
  if (key === null) throw new ConfigError(['LEADLINE_SECRET_KEY: must be 32 random bytes as base64 (44 characters) or hex (64 digits), as `openssl rand -base64 32` prints them'])
  return key
}

/** LEADLINE_EVENTS_ALLOW_PRIVATE from an environment, checked as loadConfig checks it: off unless `1`. */
export function eventsAllowPrivateFromEnv(env: NodeJS.ProcessEnv): boolean {
  const text = env.LEADLINE_EVENTS_ALLOW_PRIVATE
  const parsed = eventsAllowPrivate.safeParse(text === undefined || text.trim() === '' ? undefined : text.trim())
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `LEADLINE_EVENTS_ALLOW_PRIVATE: ${issue.message}`))
  return parsed.data
}

/** LEADLINE_CALENDAR_ALLOW_PRIVATE from an environment, checked as loadConfig checks it: off unless `1`. */
export function calendarAllowPrivateFromEnv(env: NodeJS.ProcessEnv): boolean {
  const text = env.LEADLINE_CALENDAR_ALLOW_PRIVATE
  const parsed = calendarAllowPrivate.safeParse(text === undefined || text.trim() === '' ? undefined : text.trim())
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `LEADLINE_CALENDAR_ALLOW_PRIVATE: ${issue.message}`))
  return parsed.data
}

/** LEADLINE_CALENDAR_SYNC_SECONDS from an environment, checked as loadConfig checks it. */
export function calendarSyncSecondsFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env.LEADLINE_CALENDAR_SYNC_SECONDS
  const parsed = schema.shape.LEADLINE_CALENDAR_SYNC_SECONDS.safeParse(text === undefined || text.trim() === '' ? undefined : text.trim())
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `LEADLINE_CALENDAR_SYNC_SECONDS: ${issue.message}`))
  return parsed.data
}

/** Where the embedded store keeps its generated secret key when LEADLINE_SECRET_KEY is not set: beside the log. */
export function defaultSecretKeyPath(store: string): string | null {
  if (!store.startsWith('sqlite:')) return null
  const file = store.slice('sqlite:'.length)
  return file.endsWith('.db') ? `${file.slice(0, -3)}.secret-key` : `${file}.secret-key`
}

/** Facebook's Graph API version Leadline is built and tested against; FACEBOOK_GRAPH_VERSION overrides it. */
export const FACEBOOK_GRAPH_VERSION = 'v24.0'

// Facebook Lead Ads (docs/facebook-lead-ads.md): both secrets or neither; the Graph API's URL for tests and proxies.
const facebookSchema = z.object({
  FACEBOOK_APP_SECRET: z.string().trim().min(1).optional(),
  FACEBOOK_VERIFY_TOKEN: z.string().trim().min(8, { message: 'must be at least 8 characters (Facebook sends it back on the subscription check)' }).optional(),
  FACEBOOK_GRAPH_URL: z.optional(httpUrl),
  FACEBOOK_GRAPH_VERSION: z.string().trim().regex(/^v\d{1,3}\.\d{1,2}$/, { message: 'must be a Graph API version such as v24.0' }).optional(),
  FACEBOOK_GRAPH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).optional(),
})

/** Facebook Lead Ads' settings: the app's secret (signatures, appsecret_proof), the subscription's verify token, the Graph API. */
export interface FacebookConfig {
  readonly appSecret: string
  readonly verifyToken: string
  readonly graphUrl: string
  readonly graphVersion: string
  /** How long one Graph API request may take (default 10 s); a fetch claimed twice as long ago with no outcome was interrupted. */
  readonly graphTimeoutMs: number
}

/**
 * FACEBOOK_* from an environment: null when none is set; a ConfigError when it is half done (one
 * secret without the other, or a Graph URL with neither), so a server never runs with a Facebook that
 * cannot check its notifications or fetch their leads.
 */
export function facebookConfig(env: NodeJS.ProcessEnv): FacebookConfig | null {
  const parsed = facebookSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([name, v]) => name.startsWith('FACEBOOK_') && v !== undefined && v !== '')))
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  const { FACEBOOK_APP_SECRET: appSecret, FACEBOOK_VERIFY_TOKEN: verifyToken, FACEBOOK_GRAPH_URL: graphUrl, FACEBOOK_GRAPH_VERSION: graphVersion, FACEBOOK_GRAPH_TIMEOUT_MS: graphTimeoutMs } = parsed.data
  if (appSecret === undefined && verifyToken === undefined) {
    const set = Object.keys(parsed.data)
    if (set.length === 0) return null
    throw new ConfigError([`${set.join(', ')}: set only with FACEBOOK_APP_SECRET and FACEBOOK_VERIFY_TOKEN (Facebook Lead Ads is half configured)`])
  }
  if (appSecret === undefined || verifyToken === undefined) {
    throw new ConfigError([`${appSecret === undefined ? 'FACEBOOK_APP_SECRET' : 'FACEBOOK_VERIFY_TOKEN'}: required with ${appSecret === undefined ? 'FACEBOOK_VERIFY_TOKEN' : 'FACEBOOK_APP_SECRET'} (Facebook Lead Ads is half configured: set both, or neither)`])
  }
  return { appSecret, verifyToken, graphUrl: graphUrl ?? 'https://graph.facebook.com', graphVersion: graphVersion ?? FACEBOOK_GRAPH_VERSION, graphTimeoutMs: graphTimeoutMs ?? 10_000 }
}

// Google Calendar (docs/appointments.md): the OAuth client owners consent to, both or neither; Google's address for tests and proxies.
const googleSchema = z.object({
  GOOGLE_CLIENT_ID: z.string().trim().regex(/^[\w.-]+$/, { message: 'must be an OAuth client ID as Google Cloud console shows it (1234567890-abc….apps.googleusercontent.com)' }).optional(),
  GOOGLE_CLIENT_SECRET: z.string().trim().min(1).optional(),
  LEADLINE_GOOGLE_API_URL: z.optional(httpUrl),
})

/** Google Calendar's settings: the OAuth client (null: "Connect Google Calendar" is not offered) and where Google is. */
export interface GoogleCalendarConfig {
  readonly client: { readonly clientId: string; readonly clientSecret: string } | null
  /** One address serving Google's consent page, token endpoint and Calendar API (a test double, a proxy); null: Google's own. */
  readonly apiUrl: string | null
}

/** GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET and LEADLINE_GOOGLE_API_URL from an environment; a ConfigError when only one of the pair is set. */
export function googleCalendarConfig(env: NodeJS.ProcessEnv): GoogleCalendarConfig {
  const names = ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'LEADLINE_GOOGLE_API_URL']
  const parsed = googleSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([name, v]) => names.includes(name) && v !== undefined && v !== '')))
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  const { GOOGLE_CLIENT_ID: clientId, GOOGLE_CLIENT_SECRET: clientSecret, LEADLINE_GOOGLE_API_URL: apiUrl } = parsed.data
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    const missing = clientId === undefined ? 'GOOGLE_CLIENT_ID' : 'GOOGLE_CLIENT_SECRET'
    throw new ConfigError([`${missing}: required with ${missing === 'GOOGLE_CLIENT_ID' ? 'GOOGLE_CLIENT_SECRET' : 'GOOGLE_CLIENT_ID'} (Google Calendar is half configured: set both, or neither)`])
  }
  return { client: clientId === undefined || clientSecret === undefined ? null : { clientId, clientSecret }, apiUrl: apiUrl ?? null }
}

/**
 * Which peers may tell the client's address in X-Forwarded-For (fastify's `trustProxy`): none, every
 * peer, or these addresses, ranges and proxy-addr's names. Not a hop count: fastify refuses one,
 * since it cannot check the peer.
 */
export type TrustProxy = boolean | string[]

export interface Config {
  readonly port: number
  readonly host: string
  readonly store: string
  /** Where the read models live (local SQLite). */
  readonly viewsPath: string
  /** Base URL used in links and carrier callbacks. */
  readonly publicUrl: string
  readonly logLevel: (typeof LOG_LEVELS)[number]
  /** Per webhook token (LEADLINE_WEBHOOK_RATE, LEADLINE_WEBHOOK_BURST); null when switched off. */
  readonly webhookRateLimit: RateLimit | null
  /** LEADLINE_READY_LAG_MS: see DEFAULT_READY_LAG_MS. */
  readonly readyLagMs: number
  /** FACEBOOK_*: see facebookConfig; null when Facebook Lead Ads is not set up. */
  readonly facebook: FacebookConfig | null
  /** GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, LEADLINE_GOOGLE_API_URL: see googleCalendarConfig. */
  readonly googleCalendar: GoogleCalendarConfig
  /** LEADLINE_TRUST_PROXY: see TrustProxy. */
  readonly trustProxy: TrustProxy
  /** LEADLINE_OPERATOR_TOKEN_HASH: the hashes of the tokens that open /metrics and /readyz's details. */
  readonly operatorTokenHashes: readonly string[]
  /** LEADLINE_SECRET_KEY: the key that seals stored secrets; null means the embedded store's key file. */
  readonly secretKey: Buffer | null
  /** LEADLINE_OAUTH=on: the tool endpoint takes OAuth access tokens beside API keys (needs an https or loopback public URL). */
  readonly oauth: boolean
  /** LEADLINE_EVENTS_ALLOW_PRIVATE=1: outbound events may go to private, loopback and plain-http receivers. */
  readonly eventsAllowPrivate: boolean
  /** LEADLINE_CALENDAR_SYNC_SECONDS: see DEFAULT_CALENDAR_SYNC_SECONDS. */
  readonly calendarSyncSeconds: number
}

/**
 * Why a public URL cannot be the OAuth issuer, or null: https anywhere, or plain http on a loopback
 * address (OAuth 2.1 allows it: nothing leaves the machine), so OAuth can be tried on a laptop.
 */
export function oauthPublicUrlProblem(publicUrl: string | undefined): string | null {
  if (publicUrl !== undefined) {
    const url = new URL(publicUrl)
    if (url.protocol === 'https:' || LOOPBACK_HOSTS.includes(url.hostname)) return null
  }
  return `on needs LEADLINE_PUBLIC_URL to be an https URL (OAuth clients send sign-ins and tokens over TLS; plain http only on this machine's loopback, http://127.0.0.1:PORT or http://localhost:PORT, to try it); it is ${publicUrl ?? 'not set'}`
}

/** The host names of a URL that never leaves the machine. */
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]']

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** Where the read models go when LEADLINE_VIEWS is not set: beside the embedded log, or ./data/views.db. */
export function defaultViewsPath(store: string): string {
  if (store.startsWith('sqlite:')) {
    const file = store.slice('sqlite:'.length)
    return file.endsWith('.db') ? `${file.slice(0, -3)}.views.db` : `${file}.views.db`
  }
  return './data/views.db'
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')))
  if (!parsed.success) {
    throw new ConfigError([...new Set(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))])
  }
  const c = parsed.data
  if (c.LEADLINE_OAUTH === 'on') {
    const problem = oauthPublicUrlProblem(c.LEADLINE_PUBLIC_URL)
    if (problem !== null) throw new ConfigError([`LEADLINE_OAUTH: ${problem}`])
  }
  const shownHost = c.HOST === '0.0.0.0' || c.HOST === '::' ? 'localhost' : c.HOST.includes(':') ? `[${c.HOST}]` : c.HOST
  return {
    port: c.PORT,
    host: c.HOST,
    store: c.LEADLINE_STORE,
    viewsPath: c.LEADLINE_VIEWS ?? defaultViewsPath(c.LEADLINE_STORE),
    publicUrl: c.LEADLINE_PUBLIC_URL ?? `http://${shownHost}:${c.PORT}`,
    logLevel: c.LOG_LEVEL,
    webhookRateLimit: c.LEADLINE_WEBHOOK_RATE === 'off' ? null : { ratePerSecond: c.LEADLINE_WEBHOOK_RATE, burst: c.LEADLINE_WEBHOOK_BURST },
    readyLagMs: c.LEADLINE_READY_LAG_MS,
    facebook: facebookConfig(env),
    googleCalendar: googleCalendarConfig(env),
    trustProxy: c.LEADLINE_TRUST_PROXY,
    operatorTokenHashes: c.LEADLINE_OPERATOR_TOKEN_HASH,
    secretKey: c.LEADLINE_SECRET_KEY ?? null,
    oauth: c.LEADLINE_OAUTH === 'on',
    eventsAllowPrivate: c.LEADLINE_EVENTS_ALLOW_PRIVATE,
    calendarSyncSeconds: c.LEADLINE_CALENDAR_SYNC_SECONDS,
  }
}
