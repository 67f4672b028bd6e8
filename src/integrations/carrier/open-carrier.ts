/**
 * Chooses the carrier from the environment: Twilio when TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are
 * set, else the simulated carrier (the embedded default). A half-configured Twilio is an error, never
 * a silent fall-back to the simulation.
 */
import { z } from 'zod'
import { ConfigError } from '../../config/config.ts'
import type { CallReports, CallStatusUpdate, Carrier } from './carrier.port.ts'
import { SIMULATED_OUTCOMES, createSimulatedCarrier, type SimulatedOutcome } from './simulated/index.ts'
import { TWILIO_API_URL, TWILIO_SIGNATURE_HEADER, createTwilioCarrier } from './twilio/index.ts'

/** pino-compatible: `logger.info({ ...fields }, 'message')`. */
export interface CarrierLogger {
  info(fields: Record<string, unknown>, message: string): void
  error?(fields: Record<string, unknown>, message: string): void
}

/** Every registered carrier's request headers that carry a secret (signatures): the request log never shows them. */
export const CARRIER_SECRET_HEADERS: readonly string[] = [TWILIO_SIGNATURE_HEADER]

export const SIMULATED_BANNER = 'carrier: simulated — no calls or texts reach real phones'
export const DEFAULT_SIMULATED_DELAY_MS = 1500

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
      .default('answered'),
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
  })

/**
 * Opens the carrier the environment names. The simulated carrier reports its calls through `reports`
 * in-process; Twilio's arrive as signed HTTP callbacks, which the adapter checks with its auth token
 * (the HTTP edge lends it the same reports).
 */
export function openCarrier(env: NodeJS.ProcessEnv, reports: CallReports, logger?: CarrierLogger): Carrier {
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''))
  const parsed = schema.safeParse(given)
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  }
  const c = parsed.data

  if (c.TWILIO_ACCOUNT_SID !== undefined && c.TWILIO_AUTH_TOKEN !== undefined) {
    const carrier = createTwilioCarrier({
      accountSid: c.TWILIO_ACCOUNT_SID,
      authToken: c.TWILIO_AUTH_TOKEN,
      ...(c.TWILIO_API_URL !== undefined ? { apiUrl: c.TWILIO_API_URL } : {}),
    })
    logger?.info(
      { carrier: 'twilio', accountSid: c.TWILIO_ACCOUNT_SID, apiUrl: c.TWILIO_API_URL ?? TWILIO_API_URL },
      c.TWILIO_API_URL === undefined ? 'carrier: twilio' : `carrier: twilio via ${c.TWILIO_API_URL}`,
    )
    return carrier
  }

  const carrier = createSimulatedCarrier({
    outcome: c.LEADLINE_SIMULATED_OUTCOME,
    delayMs: c.LEADLINE_SIMULATED_DELAY_MS,
    onStatus: async (update) => {
      await reports.recordCallStatus(update)
    },
    ...(logger?.error
      ? {
          onError: (err: unknown, update: CallStatusUpdate) =>
            logger.error?.({ err, carrier: 'simulated', callId: update.callId, status: update.status }, 'simulated call status was not handled'),
        }
      : {}),
  })
  logger?.info(
    { carrier: 'simulated', outcome: c.LEADLINE_SIMULATED_OUTCOME, delayMs: c.LEADLINE_SIMULATED_DELAY_MS },
    SIMULATED_BANNER,
  )
  return carrier
}
