/**
 * Chooses the carrier from the environment: Twilio when TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are
 * set, else the simulated carrier (the embedded default). A half-configured Twilio is an error, never
 * a silent fall-back to the simulation.
 */
import { z } from 'zod'
import { ConfigError } from '../../config/config.ts'
import type { Carrier } from './carrier.port.ts'
import {
  DEFAULT_SIMULATED_KEYS,
  DEFAULT_SIMULATED_SEED,
  SIMULATED_KEYS,
  SIMULATED_OUTCOMES,
  SIMULATED_WHO,
  createSimulatedCarrier,
  formatWeights,
  parseWeights,
  type SimulatedOutcome,
  type SimulatedReport,
  type Weighted,
} from './simulated/index.ts'

/** pino-compatible: `logger.info({ ...fields }, 'message')`. */
export interface CarrierLogger {
  info(fields: Record<string, unknown>, message: string): void
  error?(fields: Record<string, unknown>, message: string): void
}

/**
 * Every registered carrier's request headers that carry a secret (signatures): the request log never
 * shows them. Twilio's is its adapter's TWILIO_SIGNATURE_HEADER (a test holds them equal), written out
 * here so that the adapter, and the twilio SDK it loads, are loaded only when Twilio is the carrier.
 */
export const CARRIER_SECRET_HEADERS: readonly string[] = ['x-twilio-signature']

export const SIMULATED_BANNER = 'carrier: simulated — no calls or texts reach real phones'
export const DEFAULT_SIMULATED_DELAY_MS = 1500

/** A `name:weight,…` list of `allowed` names, read into its weights; the parser's words become the message. */
function weights<T extends string>(allowed: readonly T[]) {
  return z
    .string()
    .trim()
    .transform((text, ctx): Weighted<T>[] => {
      const parsed = parseWeights(text, allowed)
      if (typeof parsed === 'string') {
        ctx.addIssue({ code: 'custom', message: parsed })
        return z.NEVER
      }
      return parsed
    })
}

const ANSWERS_ONLY = 'is only used with LEADLINE_SIMULATED_ANSWERS: set it too, or unset this'

const schema = z
  .object({
    TWILIO_ACCOUNT_SID: z
      .string()
      .trim()
      .regex(/^AC[0-9a-fA-F]{32}$/, { message: 'must be a Twilio Account SID: AC followed by 32 hex characters' })
      .optional(),
    TWILIO_AUTH_TOKEN: z
      .string()
      .trim()
      .regex(/^\S{16,}$/, { message: 'must be the account auth token (at least 16 characters, no spaces)' })
      .optional(),
    TWILIO_API_URL: z
      .string()
      .trim()
      .url({ message: 'must be a URL such as https://api.twilio.com' })
      .refine((u) => /^https?:\/\//i.test(u), { message: 'must be an http(s) URL' })
      .transform((u) => u.replace(/\/+$/, ''))
      .optional(),
    LEADLINE_SIMULATED_OUTCOME: z
      .enum(SIMULATED_OUTCOMES as [SimulatedOutcome, ...SimulatedOutcome[]], {
        message: `must be one of ${SIMULATED_OUTCOMES.join(', ')}`,
      })
      .optional(),
    LEADLINE_SIMULATED_ANSWERS: weights(SIMULATED_WHO).optional(),
    LEADLINE_SIMULATED_KEYS: weights(SIMULATED_KEYS).optional(),
    LEADLINE_SIMULATED_SEED: z.coerce
      .number({ message: 'must be a whole number, such as 42' })
      .int({ message: 'must be a whole number, such as 42' })
      .min(0, { message: 'must be 0 or more' })
      .max(0xffff_ffff, { message: 'must be at most 4294967295' })
      .optional(),
    LEADLINE_SIMULATED_DELAY_MS: z.coerce
      .number({ message: 'must be a number of milliseconds' })
      .int({ message: 'must be a whole number of milliseconds' })
      .min(0, { message: 'must be 0 or more' })
      .max(600_000, { message: 'must be at most 600000 (10 minutes)' })
      .default(DEFAULT_SIMULATED_DELAY_MS),
  })
  .superRefine((env, ctx) => {
    const sid = env.TWILIO_ACCOUNT_SID !== undefined
    const token = env.TWILIO_AUTH_TOKEN !== undefined
    if (sid !== token) {
      ctx.addIssue({
        code: 'custom',
        path: [sid ? 'TWILIO_AUTH_TOKEN' : 'TWILIO_ACCOUNT_SID'],
        message: 'set both TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN for Twilio, or neither for the simulated carrier',
      })
    }
    if (env.TWILIO_API_URL !== undefined && !(sid && token)) {
      ctx.addIssue({
        code: 'custom',
        path: ['TWILIO_API_URL'],
        message: 'is only used with Twilio: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN too, or unset it',
      })
    }
    if (env.LEADLINE_SIMULATED_ANSWERS === undefined) {
      for (const name of ['LEADLINE_SIMULATED_KEYS', 'LEADLINE_SIMULATED_SEED'] as const) {
        if (env[name] !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: ANSWERS_ONLY })
      }
    } else if (env.LEADLINE_SIMULATED_OUTCOME !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['LEADLINE_SIMULATED_OUTCOME'],
        message: 'set LEADLINE_SIMULATED_ANSWERS or LEADLINE_SIMULATED_OUTCOME, not both',
      })
    }
  })

/**
 * Opens the carrier the environment names. The simulated carrier reports its calls in-process, to the
 * reports it is handed with `reportTo` once they exist; Twilio's arrive as signed HTTP callbacks, which the
 * adapter checks with its auth token (the HTTP edge lends it the same reports). A bad environment throws at once (ConfigError); the
 * Twilio adapter, and its SDK, are loaded only when Twilio is the carrier (what that saves a start:
 * docs/performance.md).
 */
export function openCarrier(env: NodeJS.ProcessEnv, logger?: CarrierLogger): Promise<Carrier> {
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''))
  const parsed = schema.safeParse(given)
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  }
  const c = parsed.data

  const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken } = c
  if (accountSid !== undefined && authToken !== undefined) {
    return import('./twilio/index.ts').then(({ TWILIO_API_URL, createTwilioCarrier }) => {
      const carrier = createTwilioCarrier({ accountSid, authToken, ...(c.TWILIO_API_URL !== undefined ? { apiUrl: c.TWILIO_API_URL } : {}) })
      logger?.info(
        { carrier: 'twilio', accountSid, apiUrl: c.TWILIO_API_URL ?? TWILIO_API_URL },
        c.TWILIO_API_URL === undefined ? 'carrier: twilio' : `carrier: twilio via ${c.TWILIO_API_URL}`,
      )
      return carrier
    })
  }

  const outcome = c.LEADLINE_SIMULATED_OUTCOME ?? 'answered'
  const answers =
    c.LEADLINE_SIMULATED_ANSWERS === undefined
      ? undefined
      : {
          answers: c.LEADLINE_SIMULATED_ANSWERS,
          keys: c.LEADLINE_SIMULATED_KEYS ?? DEFAULT_SIMULATED_KEYS,
          seed: c.LEADLINE_SIMULATED_SEED ?? DEFAULT_SIMULATED_SEED,
        }
  const carrier = createSimulatedCarrier({
    outcome,
    ...(answers ? { answers } : {}),
    delayMs: c.LEADLINE_SIMULATED_DELAY_MS,
    ...(logger?.error
      ? {
          onError: (err: unknown, report: SimulatedReport) =>
            report.kind === 'status'
              ? logger.error?.({ err, carrier: 'simulated', callId: report.update.callId, status: report.update.status }, 'simulated call status was not handled')
              : logger.error?.({ err, carrier: 'simulated', callId: report.callId, report: report.kind }, `simulated call ${report.kind.replace('_', ' ')} was not handled`),
        }
      : {}),
  })
  logger?.info(
    answers
      ? { carrier: 'simulated', answers: formatWeights(answers.answers), keys: formatWeights(answers.keys), seed: answers.seed, delayMs: c.LEADLINE_SIMULATED_DELAY_MS }
      : { carrier: 'simulated', outcome, delayMs: c.LEADLINE_SIMULATED_DELAY_MS },
    SIMULATED_BANNER,
  )
  return Promise.resolve(carrier)
}
