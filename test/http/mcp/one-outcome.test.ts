/**
 * A call's outcome is read in one place (issue #40 item 12b): get_lead's `last_outcome`, list_calls
 * and the console's lead page say the same of the same call. An agent-first call where the owner
 * pressed 1 and talked with the lead is `connected_to_owner: true` everywhere (get_lead said null),
 * and one no owner took is `agent_unavailable` everywhere.
 */
import t from 'tap'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { signedInConsole, TEST_ENV } from '../console/console-helpers.ts'
import { mcpApp } from './mcp-helpers.ts'

const OWNER = '+13125550199'

t.test('get_lead, list_calls and the console agree on an agent-first call', async (t) => {
  const clock = { now: new Date('2026-03-10T15:00:00Z') }
  const app = await mcpApp(t, { start: false, clock: () => clock.now, env: TEST_ENV })
  const f = await signedInConsole(t, { app })
  await app.leadline.accounts.changeSettings(f.accountId, {
    callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, onAnswer: `agent-first:${OWNER}`, followUp: 'off',
  }, { actor: { kind: 'operator', id: 'test' } })
  const { key } = await app.leadline.accounts.createApiKey(f.accountId, ['read', 'write', 'dial'], 'all', operatorContext)
  const response = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': f.token }, payload: { name: 'Jane Doe', phone: '(312) 555-0142' } })
  const leadId = (response.json() as { leadId: string }).leadId
  const stream = leadStream(f.accountId, '3125550142')
  const run = (command: LeadCommand) => app.leadline.commands.handle(stream, leadDecider, command, { actor: { kind: 'carrier', id: 'twilio' } })
  const settings = async () => (await app.leadline.accounts.require(f.accountId)).settings

  const views = async () => {
    await app.settle()
    const lead = (await app.call(key.secret, 'get_lead', { lead_id: leadId })).result?.structuredContent
    const calls = (await app.call(key.secret, 'list_calls', { lead_id: leadId })).result?.structuredContent.calls as Array<Record<string, unknown>>
    const page = (await f.browser.get(`/app/leads/${leadId}`)).body
    return { last: lead.calls.last_outcome, listed: calls[0], page: /<section aria-labelledby="calls">[\s\S]*?<\/section>/.exec(page)?.[0] ?? '' }
  }

  // The owner presses 1, the lead answers, they talk.
  await run({ type: 'DecidePlaceCall', settings: await settings(), decisionId: 'dec_1', idempotencyKey: 'k1' })
  await run({ type: 'StartCallAttempt', decisionId: 'dec_1', node: 'test' })
  await run({ type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', ownerLeg: 0, to: OWNER })
  await run({ type: 'PressAgentKey', settings: await settings(), decisionId: 'dec_1', callId: 'CA1', digit: '1', node: 'test' })
  clock.now = new Date('2026-03-10T15:01:00Z')
  await run({ type: 'RecordLeadDial', settings: await settings(), decisionId: 'dec_1', status: 'completed' })
  const talked = await views()
  t.match(talked.listed, { decision_id: 'dec_1', result: 'answered', connected_to_owner: true })
  t.match(talked.last, { result: 'answered', connected_to_owner: true }, 'get_lead says what list_calls says')
  t.match(talked.page, /<dt>Last outcome<\/dt><dd>answered by a person; connected to the owner, /, 'the summary says it')
  t.match(talked.page, /<td><span class="ok">answered<\/span>; connected to the owner<\/td>/, 'and the call row')

  // The next call: the only owner does not answer.
  clock.now = new Date('2026-03-10T16:00:00Z')
  await run({ type: 'DecidePlaceCall', settings: await settings(), decisionId: 'dec_2', idempotencyKey: 'k2' })
  await run({ type: 'StartCallAttempt', decisionId: 'dec_2', node: 'test' })
  await run({ type: 'RecordCallPlaced', decisionId: 'dec_2', callId: 'CA2', carrier: 'twilio', ownerLeg: 0, to: OWNER })
  await run({ type: 'RecordCallStatus', settings: await settings(), node: 'test', update: { callId: 'CA2', status: 'no-answer', timestamp: '', carrier: 'twilio' } })
  const missed = await views()
  t.match(missed.listed, { decision_id: 'dec_2', result: 'agent_unavailable', connected_to_owner: null })
  t.match(missed.last, { result: 'agent_unavailable', connected_to_owner: null, at: '2026-03-10T16:00:00.000Z' }, 'get_lead: the same call, the same word')
  t.match(missed.page, /<dt>Last outcome<\/dt><dd>no owner took the call, /)
})
