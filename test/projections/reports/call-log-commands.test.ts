/**
 * The Calls page's log and the report's funnel from calls made by the lead decider's own commands, as
 * the carrier's reports make them: each call's outcome is the one list_calls gives, a person's answer
 * reaches the lead, a machine does not, the key 2 books a callback.
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { reportPeriod } from '../../../projections/reports/reports.queries.ts'
import { mcpApp, placeNewestCall, runLeadCommand } from '../../http/mcp/mcp-helpers.ts'

const DIALING = { speedToLead: true, callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, voicemailPerDay: 1 }

t.test('a person who pressed 2 and a machine with a voicemail, as list_calls and the report count them', async (t) => {
  const app = await mcpApp(t, { start: false })
  const acme = await app.account('Acme Roofing', DIALING)
  const settings = (await app.leadline.accounts.require(acme.accountId)).settings
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142', source: 'Web' })
  const jane = await placeNewestCall(app, acme, '3125550142', 'CA1')
  await runLeadCommand(app, acme, '3125550142', { type: 'RecordAnsweredBy', settings, callId: 'CA1', answeredBy: 'human', node: 'test' })
  await runLeadCommand(app, acme, '3125550142', { type: 'PressMenuKey', settings, decisionId: jane, digit: '2', ownerNumber: null })
  await runLeadCommand(app, acme, '3125550142', { type: 'RecordCallStatus', settings, update: { callId: 'CA1', status: 'completed', durationSeconds: 48, timestamp: '', carrier: 'twilio' } })
  await acme.pushLead({ name: 'Bob Roe', phone: '(415) 555-0101', source: 'Web' })
  await placeNewestCall(app, acme, '4155550101', 'CA2')
  await runLeadCommand(app, acme, '4155550101', { type: 'RecordAnsweredBy', settings, callId: 'CA2', answeredBy: 'machine_end_beep', node: 'test' })
  const bob = (await app.leadline.commands.load(leadStream(acme.accountId, '4155550101'), leadDecider)).state.dialing.order[0] as string
  await runLeadCommand(app, acme, '4155550101', { type: 'RecordVoicemailOutcome', decisionId: bob, failure: null })
  await runLeadCommand(app, acme, '4155550101', { type: 'RecordCallStatus', settings, update: { callId: 'CA2', status: 'completed', durationSeconds: 20, timestamp: '', carrier: 'twilio' } })
  await app.settle()

  const listed = (await app.call(acme.keys.read, 'list_calls')).result?.structuredContent.calls as Array<{ decision_id: string; result: string; duration_seconds: number | null }>
  const log = app.leadline.callLog.page(acme.accountId, { limit: 10 }).calls
  t.same(log.map((c) => [c.key, c.outcome]), listed.map((c) => [c.decision_id, c.result]), "each call's outcome is list_calls' result")
  t.match(log.find((c) => c.key === jane), { answeredBy: 'person', durationSeconds: 48, voicemail: false, source: 'Web' })
  t.match(log.find((c) => c.key === bob), { outcome: 'machine', answeredBy: 'machine', voicemail: true })

  const zone = (await app.leadline.accounts.require(acme.accountId)).settings.timeZone
  const figures = app.leadline.reports.figures(acme.accountId, reportPeriod(7, zone, app.leadline.clock()))
  t.match(figures.totals, { leads: 2, called: 2, reached: 1, callback: 1, contactRate: 0.5 }, 'Jane reached and booked a callback; a machine is not reached')
  t.equal(figures.answerRate.reduce((sum, c) => sum + c.calls, 0), 2)
  t.equal(figures.answerRate.reduce((sum, c) => sum + c.answered, 0), 1)
})
