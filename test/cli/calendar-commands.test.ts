/**
 * `leadline calendar connect|status|types|type add|type remove|disconnect` in this process through
 * `runCli` (issue #45), on the simulated calendar: the connection and its calendars shown, a type saved
 * into the connection's only calendar, a bad one refused with exit 2 and nothing changed, and a CalDAV
 * password accepted from standard input only (calendar.integration.test.ts connects a real one).
 */
import path from 'node:path'
import t from 'tap'
import { runCli } from '../../src/cli/main.ts'
import { runLeadlineInProcess } from '../helpers/cli.ts'
import { newEvent } from '../helpers/audit-log.ts'
import { openSqliteEventStore } from '../../src/eventstore/sqlite/index.ts'
import { calendarSyncStream } from '../../src/domain/calendar-sync/calendar-sync.events.ts'
import { FAKE_CALCOM_KEY, startFakeCalCom } from '../doubles/fake-calcom.ts'

t.test('simulated: connect, status, type add, types, type remove, disconnect', async (t) => {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}` }
  const accountId = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Acme Roofing', '--json'], env)).stdout).accountId as string

  const none = await runLeadlineInProcess(['calendar', 'status', '--account', accountId], env)
  t.match(none.stdout, /^no calendar connected/)
  const refused = await runLeadlineInProcess(['calendar', 'type', 'add', '--account', accountId, '--id', 'estimate', '--name', 'Estimate', '--duration', '60', '--calendar', 'x'], env)
  t.equal(refused.code, 2)
  t.match(refused.stderr, /connect a calendar first/)

  const connected = await runLeadlineInProcess(['calendar', 'connect', '--account', accountId, '--simulated'], env)
  t.equal(connected.code, 0, connected.stderr)
  t.match(connected.stdout, /calendar connected for account acc_\w+: simulated, Simulated calendar/)
  t.match(connected.stdout, /simulated:primary/)

  const added = await runLeadlineInProcess(['calendar', 'type', 'add', '--account', accountId, '--id', 'estimate', '--name', 'Roof estimate', '--duration', '60', '--buffer', '15', '--hours', 'mon-fri 09:00-12:00', '--max-per-day', '3'], env)
  t.equal(added.code, 0, added.stderr)
  t.match(added.stdout, /appointment type estimate saved/)
  const bad = await runLeadlineInProcess(['calendar', 'type', 'add', '--account', accountId, '--id', 'quick', '--name', 'Quick', '--duration', '2'], env)
  t.equal(bad.code, 2)
  t.match(bad.stderr, /durationMinutes/)
  const types = JSON.parse((await runLeadlineInProcess(['calendar', 'types', '--account', accountId, '--json'], env)).stdout)
  t.same(types.types, [{ id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 15, bookableHours: 'mon-fri 09:00-12:00', minimumNoticeMinutes: 120, maxPerDay: 3, calendarId: 'simulated:primary' }])
  const status = await runLeadlineInProcess(['calendar', 'status', '--account', accountId], env)
  t.match(status.stdout, /calendar\s+simulated: Simulated calendar/)
  t.match(status.stdout, /estimate\s+Roof estimate\s+60 min\s+15 min\s+mon-fri 09:00-12:00/)
  t.match(status.stdout, /edits in the calendar\s+ok/)
  t.same(JSON.parse((await runLeadlineInProcess(['calendar', 'status', '--account', accountId, '--json'], env)).stdout).sync, { lastSyncAt: null, lastError: null, conflicts: [] })

  // The calendar sync found the app password refused, and a move onto another booking's time.
  const store = openSqliteEventStore({ path: env.LEADLINE_STORE.slice('sqlite:'.length) })
  const sync = { kind: 'process', id: 'calendar-sync' } as const
  await store.appendToStream(calendarSyncStream(accountId), [
    newEvent({ type: 'CalendarSyncFailed', data: { accountId, kind: 'unauthorized', message: 'the calendar refused the credentials reading changes', failedAt: '2026-03-10T16:52:00.000Z' } }, sync),
    newEvent({ type: 'CalendarEditConflict', data: { accountId, appointmentId: 'apt_1', start: '2026-03-11T15:00:00.000Z', kind: 'slot_taken', otherBookingId: 'apt_2', at: '2026-03-10T16:54:00.000Z' } }, sync),
  ], 'no_stream')
  await store.close()
  const failing = await runLeadlineInProcess(['calendar', 'status', '--account', accountId], env)
  t.match(failing.stdout, /edits in the calendar\s+failing since 2026-03-10T16:52:00.000Z \(unauthorized\): the calendar refused the credentials reading changes \(connect the calendar again\)/)
  t.match(failing.stdout, /moved onto a taken time\s+appointment apt_1 at 2026-03-11T15:00:00.000Z \(booking apt_2 holds it\)/)

  t.equal((await runLeadlineInProcess(['calendar', 'type', 'remove', '--account', accountId, 'estimate'], env)).code, 0)
  t.equal((await runLeadlineInProcess(['calendar', 'type', 'remove', '--account', accountId, 'estimate'], env)).code, 2, 'an unknown type is refused')
  t.equal((await runLeadlineInProcess(['calendar', 'disconnect', '--account', accountId], env)).code, 0)
  t.match((await runLeadlineInProcess(['calendar', 'status', '--account', accountId], env)).stdout, /^no calendar connected/)
})

t.test('a CalDAV password only from standard input', async (t) => {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}` }
  const accountId = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Acme Roofing', '--json'], env)).stdout).accountId as string
  const noStdin = await runLeadlineInProcess(['calendar', 'connect', '--account', accountId, '--caldav', 'http://127.0.0.1:9/dav/', '--username', 'owner'], env)
  t.equal(noStdin.code, 2)
  t.match(noStdin.stderr, /--password-stdin/)
  const onArgv = await runLeadlineInProcess(['calendar', 'connect', '--account', accountId, '--caldav', 'http://127.0.0.1:9/dav/', '--username', 'owner', '--password', 'hunter2'], env)
  t.equal(onArgv.code, 2, 'there is no --password')
  // Nothing listens on port 9: the connection is checked first, and refused plainly.
  let err = ''
  const code = await runCli(['calendar', 'connect', '--account', accountId, '--caldav', 'http://127.0.0.1:9/dav/', '--username', 'owner', '--password-stdin'], {
    out: () => {}, err: (text) => (err += text), env: { LOG_LEVEL: 'warn', ...env }, stdin: async () => 'hunter2\n',
  })
  t.not(code, 0)
  t.match(err, /calendar/)
  t.notMatch(err, /hunter2/, 'the password is never echoed')
})

t.test('Cal.com: the API key only from standard input, the event type named, refused without either', async (t) => {
  const calcom = await startFakeCalCom()
  t.teardown(() => calcom.close())
  const eventType = calcom.eventTypes[0]!.id
  // The double listens on 127.0.0.1, which only LEADLINE_CALENDAR_ALLOW_PRIVATE lets a calendar be on.
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LEADLINE_CALENDAR_ALLOW_PRIVATE: '1' }
  const accountId = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Acme Roofing', '--json'], env)).stdout).accountId as string
  const connect = async (args: string[], stdin: string) => {
    let out = ''
    let err = ''
    const code = await runCli(['calendar', 'connect', '--account', accountId, ...args], { out: (s) => (out += s), err: (s) => (err += s), env: { LOG_LEVEL: 'warn', ...env }, stdin: async () => stdin })
    return { code, out, err }
  }
  const noStdin = await connect(['--calcom', '--event-type', String(eventType), '--calcom-url', calcom.url], `${FAKE_CALCOM_KEY}\n`)
  t.equal(noStdin.code, 2)
  t.match(noStdin.err, /--api-key-stdin/)
  const noType = await connect(['--calcom', '--api-key-stdin', '--calcom-url', calcom.url], `${FAKE_CALCOM_KEY}\n`)
  t.equal(noType.code, 2)
  t.match(noType.err, /--event-type/)
  const wrongKey = await connect(['--calcom', '--event-type', String(eventType), '--api-key-stdin', '--calcom-url', calcom.url], 'cal_live_wrong\n')
  t.not(wrongKey.code, 0)
  t.match(wrongKey.err, /calendar_unauthorized|refused/)
  const connected = await connect(['--calcom', '--event-type', String(eventType), '--api-key-stdin', '--calcom-url', calcom.url, '--json'], `${FAKE_CALCOM_KEY}\n`)
  t.equal(connected.code, 0, connected.err)
  t.match(JSON.parse(connected.out), { accountId, connection: { provider: 'calcom', calendars: [{ id: String(eventType) }] } })
  t.notMatch(connected.out + connected.err, FAKE_CALCOM_KEY, 'the key is never printed')
})
