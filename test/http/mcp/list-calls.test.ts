/**
 * list_calls and get_call through the tool endpoint (issue #30): each call's result, who answered,
 * the duration, voicemail, the menu key and the callback asked for, newest first with cursors, one
 * lead's or the account's; another account's calls are invisible; recordings and transcripts stored
 * on the calls never appear in an answer. Calls are made by the lead decider's own commands, as the
 * carrier's reports make them (no process manager runs).
 */
import t from 'tap'
import { mcpApp, placeNewestCall, runLeadCommand, type McpTestAccount, type McpTestApp } from './mcp-helpers.ts'

const DIALING = { speedToLead: true, callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, voicemailPerDay: 1 }
const RECORDING_URL = 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE0123456789abcdef0123456789abcdef'
const TRANSCRIPT = 'Hi, this is Jane, I need a quote for a water heater before Friday'

async function settings(app: McpTestApp, account: McpTestAccount) {
  return (await app.leadline.accounts.require(account.accountId)).settings
}

/** Jane: speed to lead answered by a person who talked 48 s and pressed 2, recorded and transcribed. Bob: a machine, voicemail left. */
async function callsApp(t: Parameters<typeof mcpApp>[0]) {
  const app = await mcpApp(t, { start: false })
  const acme = await app.account('Acme Roofing', DIALING)
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const s = await settings(app, acme)
  const janeCall = await placeNewestCall(app, acme, '3125550142', 'CA1')
  await runLeadCommand(app, acme, '3125550142', { type: 'RecordAnsweredBy', settings: s, callId: 'CA1', answeredBy: 'human', node: 'test' })
  await runLeadCommand(app, acme, '3125550142', { type: 'PressMenuKey', settings: s, decisionId: janeCall, digit: '2', ownerNumber: null })
  await runLeadCommand(app, acme, '3125550142', {
    type: 'RecordCallStatus', settings: s,
    update: { callId: 'CA1', status: 'completed', durationSeconds: 48, recordingUrl: RECORDING_URL, transcript: TRANSCRIPT, timestamp: '', carrier: 'twilio' },
  })
  await acme.pushLead({ name: 'Bob Roe', phone: '(415) 555-0101' })
  await placeNewestCall(app, acme, '4155550101', 'CA2')
  await runLeadCommand(app, acme, '4155550101', { type: 'RecordAnsweredBy', settings: s, callId: 'CA2', answeredBy: 'machine_end_beep', node: 'test' })
  const bobCall = (await app.leadline.commands.load(`lead-${acme.accountId}-4155550101`, (await import('../../../src/domain/lead/lead.decider.ts')).leadDecider)).state.dialing.order[0] as string
  await runLeadCommand(app, acme, '4155550101', { type: 'RecordVoicemailOutcome', decisionId: bobCall, failure: null })
  await runLeadCommand(app, acme, '4155550101', { type: 'RecordCallStatus', settings: s, update: { callId: 'CA2', status: 'completed', durationSeconds: 20, timestamp: '', carrier: 'twilio' } })
  await app.settle()
  return { app, acme, janeCall, bobCall }
}

t.test('list_calls: the account\'s calls newest first, each with how it went; one lead\'s on asking; get_call by either id', async (t) => {
  const { app, acme, janeCall, bobCall } = await callsApp(t)
  const all = (await app.call(acme.keys.read, 'list_calls', {})).result?.structuredContent
  t.match(all, {
    calls: [
      { decision_id: bobCall, call_id: 'CA2', to: '+14155550101', purpose: 'speed_to_lead', result: 'machine', answered_by: 'machine_end_beep', voicemail: 'left', duration_seconds: null },
      {
        decision_id: janeCall, call_id: 'CA1', to: '+13125550142', from: '+15125550100', result: 'answered', status: 'completed', answered_by: 'human',
        duration_seconds: 48, menu_choice: 'callback', callback_at: /^2026|^20\d\d/, voicemail: null, attempt: 1,
      },
    ],
    next_cursor: null,
  })
  const janes = (await app.call(acme.keys.read, 'list_calls', { phone: '312-555-0142' })).result?.structuredContent
  t.same(janes.calls.map((c: { call_id: string }) => c.call_id), ['CA1'])
  for (const id of [janeCall, 'CA1']) {
    t.same((await app.call(acme.keys.read, 'get_call', { call_id: id })).result?.structuredContent.call, all.calls[1], `get_call ${id}`)
  }
  t.equal((await app.call(acme.keys.read, 'get_call', { call_id: 'CA404' })).error?.data.code, 'call_not_found')
  t.equal((await app.call(acme.keys.read, 'list_calls', { phone: '(773) 555-0000' })).error?.data.code, 'lead_not_found')
  t.equal((await app.call(acme.keys.read, 'list_calls', { phone: '3125550142', lead_id: 'ld_x' })).error?.data.code, 'invalid_arguments')
  t.equal((await app.call(acme.keys.write, 'list_calls', {})).error?.code, -32003, 'needs the read scope')
})

t.test('list_calls pages with cursors bound to the list they came from', async (t) => {
  const { app, acme } = await callsApp(t)
  const first = (await app.call(acme.keys.read, 'list_calls', { limit: 1 })).result?.structuredContent
  t.equal(first.calls[0].call_id, 'CA2')
  const second = (await app.call(acme.keys.read, 'list_calls', { limit: 1, cursor: first.next_cursor })).result?.structuredContent
  t.same([second.calls[0].call_id, second.next_cursor], ['CA1', null])
  const elsewhere = await app.call(acme.keys.read, 'list_calls', { limit: 1, cursor: first.next_cursor, phone: '3125550142' })
  t.equal(elsewhere.error?.data.code, 'invalid_cursor', "a cursor of the account's list is not one of a lead's")
})

t.test("another account sees none of these calls, by list, id or cursor", async (t) => {
  const { app, acme, janeCall } = await callsApp(t)
  const other = await app.account('Other Agency', { ...DIALING, callerId: '+15125550200' })
  t.same((await app.call(other.keys.read, 'list_calls', {})).result?.structuredContent, { calls: [], next_cursor: null })
  for (const id of [janeCall, 'CA1']) t.equal((await app.call(other.keys.read, 'get_call', { call_id: id })).error?.data.code, 'call_not_found')
  t.equal((await app.call(other.keys.read, 'list_calls', { phone: '3125550142' })).error?.data.code, 'lead_not_found')
  const cursor = (await app.call(acme.keys.read, 'list_calls', { limit: 1 })).result?.structuredContent.next_cursor
  t.equal((await app.call(other.keys.read, 'list_calls', { limit: 1, cursor })).error?.data.code, 'invalid_cursor')
})

t.test('recordings and transcripts stored on a call never appear in list_calls or get_call', async (t) => {
  const { app, acme } = await callsApp(t)
  const stream = await app.leadline.store.readStream(`lead-${acme.accountId}-3125550142`)
  t.ok(stream.some((e) => e.type === 'CallRecordingAvailable') && stream.some((e) => e.type === 'CallTranscriptAvailable'), 'the log has both')
  for (const [tool, args] of [['list_calls', {}], ['list_calls', { phone: '3125550142' }], ['get_call', { call_id: 'CA1' }]] as const) {
    const answer = await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }, acme.keys.all)
    t.notMatch(answer.raw, /Recordings|RE0123|water heater|recording|transcript/i, `${tool} ${JSON.stringify(args)}`)
  }
})
