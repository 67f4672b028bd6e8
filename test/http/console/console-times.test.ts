/**
 * Every time the console shows an owner is in the account's zone with the zone named (issue #40 item
 * 12e): the lead's timeline (whose event summaries carry UTC instants), why speed to lead did not
 * call, the Google key's and the field maps' dates on the lead-webhook page; a zone without an
 * abbreviation is named by its IANA name.
 */
import t from 'tap'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { formatTime, localTimes } from '../../../src/http/console/layout.ts'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { signedInConsole, TEST_ENV } from './console-helpers.ts'

/** Text a person reads on the page: tags (and the machine-readable `datetime` attributes with them) removed. */
const visible = (body: string) => body.replace(/<[^>]*>/g, ' ')
const UTC_INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/

t.test('formatTime names the zone: its abbreviation, else its IANA name', async (t) => {
  t.equal(formatTime('2026-03-10T15:10:20.000Z', 'America/New_York'), '2026-03-10 11:10 EDT')
  t.equal(formatTime('2026-12-02T15:10:20.000Z', 'America/Los_Angeles'), '2026-12-02 07:10 PST')
  t.equal(formatTime('2026-03-10T15:10:20.000Z', 'Europe/Berlin'), '2026-03-10 16:10 Europe/Berlin')
  t.equal(formatTime('2026-07-10T15:10:20.000Z', 'Europe/London'), '2026-07-10 16:10 Europe/London')
  t.equal(localTimes('follow-up scheduled: attempt 2 due 2026-03-10T15:10:20.000Z; then 2026-03-11T09:00:00Z.', 'America/New_York'), 'follow-up scheduled: attempt 2 due 2026-03-10 11:10 EDT; then 2026-03-11 05:00 EDT.')
  t.equal(localTimes('no time here: 2026-03-10', 'America/New_York'), 'no time here: 2026-03-10', 'a date alone is left as it is')
})

t.test("a lead's page and the lead-webhook page show no UTC instant, only the account's wall clock", async (t) => {
  const now = new Date('2026-03-10T15:00:00Z')
  const app = await buildApp(t, { env: TEST_ENV, clock: () => now, start: false })
  const f = await signedInConsole(t, { app })
  await app.leadline.accounts.changeSettings(f.accountId, {
    callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, speedToLead: true, followUp: '10m',
  }, operatorContext)
  const pushed = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': f.token }, payload: { name: 'Jane Doe', phone: '(312) 555-0142' } })
  const leadId = (pushed.json() as { leadId: string }).leadId
  const stream = leadStream(f.accountId, '3125550142')
  const run = (command: LeadCommand) => app.leadline.commands.handle(stream, leadDecider, command, { actor: { kind: 'carrier', id: 'twilio' } })
  const settings = async () => (await app.leadline.accounts.require(f.accountId)).settings
  const decision = (await app.leadline.commands.load(stream, leadDecider)).state.dialing.order[0] as string
  await run({ type: 'StartCallAttempt', decisionId: decision, node: 'test' })
  await run({ type: 'RecordCallPlaced', decisionId: decision, callId: 'CA1', carrier: 'twilio' })
  await run({ type: 'RecordCallStatus', settings: await settings(), node: 'test', update: { callId: 'CA1', status: 'no-answer', timestamp: '', carrier: 'twilio' } })
  await app.leadline.accounts.changeSettings(f.accountId, { callingHours: 'mon-fri 09:00-10:00' }, operatorContext)
  const late = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': f.token }, payload: { name: 'Late Lead', phone: '(312) 555-0143' } })
  const lateId = (late.json() as { leadId: string }).leadId
  await app.leadline.runner.catchUp()

  const page = (await f.browser.get(`/app/leads/${leadId}`)).body
  const timeline = /<ol class="timeline">[\s\S]*?<\/ol>/.exec(page)?.[0] ?? ''
  t.match(timeline, 'follow-up scheduled: attempt 2 due 2026-03-10 11:10 EDT', "the follow-up's due time in the account's zone")
  t.notMatch(visible(page), UTC_INSTANT, 'no UTC instant anywhere a person reads on the lead page')
  const latePage = (await f.browser.get(`/app/leads/${lateId}`)).body
  t.match(latePage, /did not call: [^<]*next allowed Wed 11 Mar 2026 09:00 America\/New_York/, 'why speed to lead did not call, on the wall clock')
  t.notMatch(visible(latePage), UTC_INSTANT)

  await app.leadline.accounts.setGoogleKey(f.accountId, 'k3y-from-google-form-7f2c9e', operatorContext)
  await app.leadline.accounts.setFieldMap(f.accountId, 'vendor-x', [{ field: 'phone', path: 'contact.tel' }], operatorContext)
  const hooks = (await f.browser.get('/app/connections/lead-webhook')).body
  t.match(hooks, /A key is set \(since <time datetime="2026-03-10T15:00:00.000Z">2026-03-10 11:00 EDT<\/time>\)/)
  t.match(hooks, /<td><time datetime="2026-03-10T15:00:00.000Z">2026-03-10 11:00 EDT<\/time><\/td>/, "the field map's date")
  t.notMatch(visible(hooks), UTC_INSTANT, 'no UTC instant on the lead-webhook page')
})
