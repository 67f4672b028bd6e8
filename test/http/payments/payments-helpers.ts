/**
 * What the payments HTTP tests share: an app whose payments go through the real Stripe SDK to the
 * fake Stripe server and whose texts go through the real Twilio SDK to the fake Twilio server (or,
 * `simulated`, the embedded defaults), an account set up for pay-links, and a lead.
 */
import type { Test } from 'tap'
import { FAKE_CONNECTED_ACCOUNT, startFakeStripe, stripeEnv, type FakeStripe } from '../../doubles/fake-stripe.ts'
import { startFakeTwilio, twilioEnv, type FakeTwilio } from '../../doubles/fake-twilio.ts'
import { mcpApp, type McpTestAccount, type McpTestApp } from '../mcp/mcp-helpers.ts'

export const CALLER_ID = '+13125550100'
export const JANE = { name: 'Jane Doe', phone: '(312) 555-0142' } as const
export const JANE_E164 = '+13125550142'

export interface PaymentsTestApp extends McpTestApp {
  readonly acme: McpTestAccount
  readonly jane: { leadId: string; phone: string }
  readonly stripe: FakeStripe | null
  readonly twilio: FakeTwilio | null
  /** The lead stream's event types, in order. */
  leadEventTypes(): Promise<string[]>
}

export async function paymentsApp(
  t: Test,
  options: { provider?: 'stripe' | 'simulated'; settings?: Record<string, unknown>; start?: boolean } = {},
): Promise<PaymentsTestApp> {
  const stripeMode = (options.provider ?? 'stripe') === 'stripe'
  const stripe = stripeMode ? await startFakeStripe({ connectedAccounts: [FAKE_CONNECTED_ACCOUNT] }) : null
  const twilio = stripeMode ? await startFakeTwilio({ incomingNumbers: [CALLER_ID, '+13125550111', '+13125550112'] }) : null
  t.teardown(async () => {
    await stripe?.close()
    await twilio?.close()
  })
  const env: NodeJS.ProcessEnv =
    stripe && twilio
      ? { ...stripeEnv(stripe), ...twilioEnv(twilio) }
      : { LEADLINE_SIMULATED_DELAY_MS: '20' }
  // Not started unless asked: no process manager appends on its own, so the log moves only when a test acts.
  const app = await mcpApp(t, { env, start: options.start ?? false })
  const acme = await app.account('Acme Roofing', {
    callerId: CALLER_ID,
    ...(stripeMode ? { stripeAccount: FAKE_CONNECTED_ACCOUNT } : {}),
    ...options.settings,
  })
  const jane = await acme.pushLead({ name: JANE.name, phone: JANE.phone })
  return {
    ...app,
    acme,
    jane,
    stripe,
    twilio,
    async leadEventTypes() {
      return (await app.leadline.store.readStream(`lead-${acme.accountId}-3125550142`)).map((e) => e.type)
    },
  }
}

export const PAYMENT = { phone: JANE.phone, amountCents: 12500, description: 'Roof inspection deposit' } as const
