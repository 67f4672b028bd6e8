/**
 * Chooses the payments provider from the environment: Stripe when STRIPE_SECRET_KEY is set (with
 * STRIPE_WEBHOOK_SECRET, without which nothing could settle), else the simulated provider (the
 * embedded default). A half-configured Stripe is an error, never a silent fall-back to the simulation.
 */
import { z } from 'zod'
import { ConfigError } from '../../config/config.ts'
import type { PaymentsProvider } from './payments.port.ts'
import { createSimulatedPayments } from './simulated/index.ts'

export interface PaymentsLogger {
  info(fields: Record<string, unknown>, message: string): void
}

export const SIMULATED_PAYMENTS_BANNER = 'payments: simulated — pay-links open a Leadline page; no card is ever charged'

const schema = z
  .object({
    STRIPE_SECRET_KEY: z
      .string()
      .trim()
      .regex(/^(sk|rk)_(test|live)_[0-9A-Za-z_]{8,}$/, { message: 'must be a Stripe secret or restricted key: sk_test_…, sk_live_…, rk_test_… or rk_live_…' })
      .optional(),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .trim()
      .regex(/^whsec_\S{8,}$/, { message: "must be the webhook endpoint's signing secret: whsec_…" })
      .optional(),
    STRIPE_API_URL: z
      .string()
      .trim()
      .url({ message: 'must be a URL such as http://127.0.0.1:12111 (stripe-mock)' })
      .refine((u) => /^https?:\/\//i.test(u), { message: 'must be an http(s) URL' })
      .refine((u) => /^\/*$/.test(new URL(u).pathname), { message: 'must not have a path: the Stripe SDK takes a host, a port and a protocol' })
      .transform((u) => u.replace(/\/+$/, ''))
      .optional(),
  })
  .superRefine((env, ctx) => {
    const key = env.STRIPE_SECRET_KEY !== undefined
    if (key && env.STRIPE_WEBHOOK_SECRET === undefined) {
      ctx.addIssue({ code: 'custom', path: ['STRIPE_WEBHOOK_SECRET'], message: 'is needed with STRIPE_SECRET_KEY: without it no payment can settle' })
    }
    if (!key && env.STRIPE_WEBHOOK_SECRET !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['STRIPE_SECRET_KEY'], message: 'set it with STRIPE_WEBHOOK_SECRET for Stripe, or unset both for the simulated provider' })
    }
    if (!key && env.STRIPE_API_URL !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['STRIPE_API_URL'], message: 'is only used with Stripe: set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET too, or unset it' })
    }
  })

export interface OpenedPayments {
  readonly provider: PaymentsProvider
  /** Stripe's webhook signing secret; null for the simulated provider. */
  readonly webhookSecret: string | null
}

/**
 * Opens the payments provider the environment names; `publicUrl` is where simulated links point. A bad
 * environment throws at once (ConfigError); the Stripe adapter (and its SDK) is loaded only when it is
 * the provider.
 */
export function openPayments(env: NodeJS.ProcessEnv, publicUrl: string, options: { clock?: () => Date; logger?: PaymentsLogger } = {}): Promise<OpenedPayments> {
  const given = Object.fromEntries(Object.entries(env).filter(([name, v]) => name.startsWith('STRIPE_') && v !== undefined && v.trim() !== ''))
  const parsed = schema.safeParse(given)
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  const c = parsed.data

  const { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret } = c
  if (secretKey !== undefined && webhookSecret !== undefined) {
    return import('./stripe/index.ts').then(({ STRIPE_API_URL, createStripePayments }) => {
      const provider = createStripePayments({ secretKey, ...(c.STRIPE_API_URL !== undefined ? { apiUrl: c.STRIPE_API_URL } : {}) })
      const mode = secretKey.includes('_live_') ? 'live' : 'test'
      options.logger?.info(
        { payments: 'stripe', mode, apiUrl: c.STRIPE_API_URL ?? STRIPE_API_URL },
        `payments: stripe (${mode} mode)${c.STRIPE_API_URL === undefined ? '' : ` via ${c.STRIPE_API_URL}`}`,
      )
      return { provider, webhookSecret }
    })
  }
  const provider = createSimulatedPayments({ publicUrl, ...(options.clock ? { clock: options.clock } : {}) })
  options.logger?.info({ payments: 'simulated', payUrl: `${publicUrl.replace(/\/+$/, '')}/pay/…` }, SIMULATED_PAYMENTS_BANNER)
  return Promise.resolve({ provider, webhookSecret: null })
}
