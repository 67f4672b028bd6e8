/**
 * The console's "Simulate an inbound call" (issue #43), on a lead's page when the carrier is the
 * simulated one: the lead's number calls the account's, played as `leadline simulate inbound-call`
 * plays it (the same inbound steps as Twilio's voice route, the same events). Never shown, and refused,
 * on a real carrier: there a real phone would be needed.
 */
import type { FastifyPluginAsync } from 'fastify'
import { isInboundScenario, simulateInboundCall } from '../../commands/simulate-inbound-call.command.ts'
import { SIMULATED_INBOUND_SCENARIOS, type SimulatedInboundScenario } from '../../integrations/carrier/carrier.port.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField } from './layout.ts'
import { formField, requireSession, signedIn } from './session.ts'
import { consoleForm } from './console.schema.ts'

const SCENARIO_WORDS: Readonly<Record<SimulatedInboundScenario, string>> = {
  'owner-answers': 'an owner answers and presses 1',
  'owner-declines': 'every owner declines',
  'no-answer': 'no owner answers',
  voicemail: 'nobody answers; the caller leaves a voicemail',
  assistant: 'nobody answers; the assistant takes it',
  callback: 'nobody answers; the caller presses 1 for a call back',
}

const OUTCOME_WORDS: Readonly<Record<string, string>> = {
  connected: 'an owner took it', assistant: 'the assistant took it', voicemail: 'missed, and a voicemail was left', missed: 'missed', refused: 'refused by the number',
}

/** The button's section of a lead's page: only on the simulated carrier. `done`: the outcome of the last one played. */
export function simulateInboundSection(carrier: string, leadId: string, csrfToken: string, query: unknown): Html | '' {
  if (carrier !== 'simulated') return ''
  const shown = (query as { simulated?: unknown } | undefined)?.simulated
  // Only an outcome this page names is shown back: the query is the browser's to change.
  const done = typeof shown === 'string' && Object.hasOwn(OUTCOME_WORDS, shown) ? OUTCOME_WORDS[shown] : undefined
  return html`<section aria-labelledby="simulate-inbound"><h2 id="simulate-inbound">Simulate an inbound call <span class="badge">simulated</span></h2>
<p class="muted">The simulated carrier rings the account's number from this lead's number, through the same steps as a real call; no phone rings.</p>
${done === undefined ? '' : html`<p role="status">Simulated inbound call played: ${done}. The timeline below shows what it recorded.</p>`}
<form method="post" action="${CONSOLE_PREFIX}/leads/${leadId}/simulate-inbound-call" class="actions">
${csrfField(csrfToken)}
<label for="scenario">What happens</label>
<select id="scenario" name="scenario">${SIMULATED_INBOUND_SCENARIOS.map((s) => html`<option value="${s}"${s === 'no-answer' ? html` selected` : ''}>${SCENARIO_WORDS[s]}</option>`)}</select>
<button type="submit">Simulate an inbound call</button>
</form>
</section>`
}

export const simulateInboundRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline
  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))
    routes.post<{ Params: { leadId: string } }>('/leads/:leadId/simulate-inbound-call', { schema: consoleForm('leadId'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const { account } = signedIn(request)
      const lead = leadline.inboundLeads.get(account.accountId, { leadId: request.params.leadId })
      if (!lead) return reply.code(404).send({ error: 'not_found', detail: 'there is no such lead in this account' })
      const scenario = formField(request.body as Record<string, unknown>, 'scenario')
      if (!isInboundScenario(scenario)) throw new DomainError('invalid_scenario', `unknown scenario (one of ${SIMULATED_INBOUND_SCENARIOS.join(', ')})`)
      const result = await simulateInboundCall(leadline, account.accountId, { from: lead.phone, scenario })
      await leadline.runner.catchUp()
      return reply.redirect(`${CONSOLE_PREFIX}/leads/${encodeURIComponent(lead.leadId)}?simulated=${encodeURIComponent(result.outcome)}`, 303)
    })
  })
}
