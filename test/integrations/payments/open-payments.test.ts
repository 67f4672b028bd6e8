/** Choosing the payments provider from the environment, and refusing half a Stripe configuration. */
import t from 'tap'
import { ConfigError } from '../../../src/config/config.ts'
import { SIMULATED_PAYMENTS_BANNER, openPayments } from '../../../src/integrations/payments/open-payments.ts'

const KEY = 'sk_test_fakeLeadline0123456789abcdef'
const SECRET = 'whsec_fakeLeadlineSigningSecret0123456789'

function logged() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = []
  return { lines, logger: { info: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) } }
}

t.test('no Stripe keys: the simulated provider, said so in the start-up log', async (t) => {
  const { lines, logger } = logged()
  const opened = await openPayments({ STRIPE_SECRET_KEY: '  ' }, 'http://leadline.test', { logger })
  t.equal(opened.provider.name, 'simulated')
  t.equal(opened.webhookSecret, null)
  t.same(lines.map((l) => l.message), [SIMULATED_PAYMENTS_BANNER])
})

t.test('a key and a webhook secret: Stripe, via STRIPE_API_URL when given', async (t) => {
  const { lines, logger } = logged()
  const opened = await openPayments({ STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_URL: 'http://127.0.0.1:12111/' }, 'http://leadline.test', { logger })
  t.teardown(() => opened.provider.close?.())
  t.equal(opened.provider.name, 'stripe')
  t.equal(opened.webhookSecret, SECRET)
  t.same(lines.map((l) => l.message), ['payments: stripe (test mode) via http://127.0.0.1:12111'])
  t.notMatch(JSON.stringify(lines), KEY, 'the key is never logged')
})

t.test('half a configuration is an error naming what to fix', async (t) => {
  const problems = (env: NodeJS.ProcessEnv) => {
    try {
      void openPayments(env, 'http://leadline.test')
    } catch (error) {
      if (error instanceof ConfigError) return error.problems
      throw error
    }
    return []
  }
  t.match(problems({ STRIPE_SECRET_KEY: KEY }), [/^STRIPE_WEBHOOK_SECRET: is needed/])
  t.match(problems({ STRIPE_WEBHOOK_SECRET: SECRET }), [/^STRIPE_SECRET_KEY: /])
  t.match(problems({ STRIPE_API_URL: 'http://127.0.0.1:12111' }), [/^STRIPE_API_URL: is only used with Stripe/])
  t.match(problems({ STRIPE_SECRET_KEY: 'pk_test_publishable000000', STRIPE_WEBHOOK_SECRET: SECRET }), [/^STRIPE_SECRET_KEY: must be a Stripe secret/])
  t.match(problems({ STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: 'nope' }), [/^STRIPE_WEBHOOK_SECRET: must be/])
  t.match(problems({ STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_URL: 'http://127.0.0.1:12111/v1' }), [/^STRIPE_API_URL: must not have a path/])
})
