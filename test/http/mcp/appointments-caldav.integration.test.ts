/**
 * The appointment tools against a real CalDAV server (Radicale on 127.0.0.1), once: the account's
 * calendar connected with an app password, the owner's own event blocking slots, then book, reschedule
 * and cancel through the tool endpoint, each landing in the calendar as one event under one UID. And
 * the password never leaves: not in a tool answer (a lead's history included), `leadline audit export`,
 * `leadline calendar status` nor `leadline account show`.
 */
import path from 'node:path'
import t from 'tap'
import { runCli } from '../../../src/cli/main.ts'
import { manualClock } from '../../helpers/dialing-app.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { runLeadlineInProcess } from '../../helpers/cli.ts'
import { startRadicale } from '../../support/radicale.ts'
import { ownerCalendarApp } from '../../support/radicale-calendars.ts'
import { mcpApp } from './mcp-helpers.ts'

const radicale = await startRadicale()
t.teardown(() => radicale.stop())
const owner = ownerCalendarApp(radicale)
const credentials = { kind: 'caldav' as const, serverUrl: radicale.url, username: radicale.username, password: radicale.password }
const JANE = '(312) 555-0142'
/** Radicale listens on 127.0.0.1: a private address, which only this setting lets a calendar be on. */
const PRIVATE_CALENDARS = { LEADLINE_SIMULATED_DELAY_MS: '20', LEADLINE_CALENDAR_ALLOW_PRIVATE: '1' }

t.test('book, reschedule and cancel through the tools land in the CalDAV calendar, one event each time', async (t) => {
  const clock = manualClock('2026-03-09T13:00:00Z') // Monday 09:00 in New York
  const app = await mcpApp(t, { clock: clock.now, start: false, env: PRIVATE_CALENDARS })
  const acme = await app.account('Acme Roofing', { timeZone: 'America/New_York' })
  await acme.pushLead({ name: 'Jane Doe', phone: JANE, state: 'IL' })
  const calendarId = await owner.newCalendar()
  const connection = await app.leadline.calendars.connect(acme.accountId, credentials, operatorContext.actor)
  t.ok(connection.calendars.some((c) => c.id === calendarId), 'the new calendar is listed')
  t.notMatch(JSON.stringify(connection), radicale.password)
  await app.leadline.calendars.saveType(acme.accountId, { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 15, bookableHours: 'mon-fri 09:00-12:00', minimumNoticeMinutes: 60, calendarId }, operatorContext.actor)
  await t.rejects(app.leadline.calendars.connect(acme.accountId, { ...credentials, password: 'wrong' }, operatorContext.actor), { code: 'calendar_unauthorized' })
  // Without LEADLINE_CALENDAR_ALLOW_PRIVATE, a calendar on a private address (here loopback) is refused before anything is sent to it.
  const closed = await mcpApp(t, { clock: clock.now, start: false })
  const other = await closed.account('Other Roofing', { timeZone: 'America/New_York' })
  await t.rejects(closed.leadline.calendars.connect(other.accountId, credentials, operatorContext.actor), { code: 'calendar_rejected', message: /address is refused: 127\.0\.0\.1:\d+ must be reached over https/ })
  await t.rejects(closed.leadline.calendars.connect(other.accountId, { ...credentials, serverUrl: radicale.url.replace('http:', 'https:') }, operatorContext.actor), { code: 'calendar_rejected', message: /127\.0\.0\.1 is not a public address/ })

  // The owner's own 10:00-10:30 on Tuesday blocks 09:00 (buffer) and 10:00.
  await owner.ownerEvent(calendarId, 'dentist', ['DTSTART;TZID=America/New_York:20260310T100000', 'DTEND;TZID=America/New_York:20260310T103000'])
  const answers: unknown[] = []
  const call = async (name: string, args: Record<string, unknown>) => {
    const answer = await app.call(name.startsWith('list_') || name.startsWith('get_') ? acme.keys.read : acme.keys.write, name, args)
    answers.push(answer)
    return answer
  }
  const tuesday = await call('list_open_slots', { appointment_type_id: 'estimate', from: '2026-03-10T00:00:00-04:00', to: '2026-03-11T00:00:00-04:00', phone: JANE })
  t.same((tuesday.result?.structuredContent.slots as Array<{ start: string }>).map((s) => s.start), ['2026-03-10T15:00:00.000Z'])

  const booked = await call('book_appointment', { phone: JANE, appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z', idempotency_key: 'caldav-book' })
  t.equal(booked.error, undefined, JSON.stringify(booked.error))
  const id = booked.result?.structuredContent.appointment_id as string
  t.same(await owner.filesIn(calendarId), ['dentist.ics', `leadline-${id}.ics`])
  const ics = await (await fetch(`${calendarId}leadline-${id}.ics`, { headers: owner.basic })).text()
  t.match(ics, /SUMMARY:Roof estimate: Jane Doe/)
  t.match(ics, /\/app\/leads\/ld_/)

  const moved = await call('reschedule_appointment', { phone: JANE, appointment_id: id, start: '2026-03-11T13:00:00Z', idempotency_key: 'caldav-move' })
  t.equal(moved.error, undefined, JSON.stringify(moved.error))
  t.same(await owner.filesIn(calendarId), ['dentist.ics', `leadline-${id}.ics`], 'the same event, moved')
  t.match(await (await fetch(`${calendarId}leadline-${id}.ics`, { headers: owner.basic })).text(), /DTSTART[^\n]*20260311T130000Z|DTSTART;TZID=[^:]+:20260311T090000/)

  const cancelled = await call('cancel_appointment', { phone: JANE, appointment_id: id, idempotency_key: 'caldav-cancel' })
  t.match(cancelled.result?.structuredContent, { status: 'cancelled', calendar_event: 'deleted' })
  t.same(await owner.filesIn(calendarId), ['dentist.ics'])
  await call('get_lead_history', { phone: JANE })
  t.notMatch(JSON.stringify(answers), radicale.password, 'no tool answer holds the password')
})

t.test('the CalDAV password never leaves: connect from stdin, then audit export, status and account show', async (t) => {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, ...PRIVATE_CALENDARS }
  const accountId = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Acme Roofing', '--json'], env)).stdout).accountId as string
  let out = ''
  let err = ''
  const code = await runCli(['calendar', 'connect', '--account', accountId, '--caldav', radicale.url, '--username', radicale.username, '--password-stdin'], {
    out: (text) => (out += text), err: (text) => (err += text), env: { LOG_LEVEL: 'warn', ...env }, stdin: async () => `${radicale.password}\n`,
  })
  t.equal(code, 0, err)
  t.match(out, /calendar connected for account acc_\w+: caldav/)
  const outputs = [out, err]
  for (const args of [['calendar', 'status', '--account', accountId, '--json'], ['audit', 'export', '--account', accountId], ['audit', 'export', '--account', accountId, '--include-recordings'], ['account', 'show', accountId, '--json']]) {
    const result = await runLeadlineInProcess(args, env)
    outputs.push(result.stdout, result.stderr)
  }
  t.match(outputs.join('\n'), /CalendarConnected|calendar connected/)
  t.notMatch(outputs.join('\n'), radicale.password, 'the password is nowhere')
  t.notMatch(outputs.join('\n'), /llsealed1\./, 'nor its sealed form')
})
