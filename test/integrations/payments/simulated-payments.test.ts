/** The simulated provider: the contract, and links that point at Leadline's own pay page. */
import t from 'tap'
import { SIMULATED_SESSION_ID, createSimulatedPayments, type SimulatedPayments } from '../../../src/integrations/payments/simulated/simulated-payments.adapter.ts'
import { paymentsContract, payLinkRequest } from './payments.contract.ts'

void paymentsContract(t, {
  name: 'simulated',
  connectedAccount: null,
  async open() {
    const provider: SimulatedPayments = createSimulatedPayments({ publicUrl: 'http://leadline.test/' })
    return {
      provider,
      observed: () =>
        provider.links().map(({ request }) => ({
          amountCents: request.amountCents,
          currency: request.currency,
          description: request.description,
          connectedAccount: request.connectedAccount,
          idempotencyKey: request.idempotencyKey,
          metadata: { ...request.metadata },
        })),
    }
  },
})

t.test('a simulated link is LEADLINE_PUBLIC_URL/pay/{session}, unguessable, and says simulated', async (t) => {
  const provider = createSimulatedPayments({ publicUrl: 'https://leads.example.com/', clock: () => new Date('2026-03-10T15:00:00Z') })
  const link = await provider.createPayLink(payLinkRequest(null))
  t.match(link.sessionId, SIMULATED_SESSION_ID)
  t.equal(link.url, `https://leads.example.com/pay/${link.sessionId}`)
  t.equal(link.expiresAt, '2026-03-11T15:00:00.000Z')
  t.equal(link.provider, 'simulated')
})
