/**
 * Booking an appointment (src/commands/book-appointment.command.ts) against a real CalDAV server
 * (Radicale on 127.0.0.1) and the in-memory log: two bookings of one slot at once make one event, a
 * crash between the claim and the calendar write is retried into one event, and a slot the owner's own
 * event blocks is refused and released.
 */
import t from 'tap'
import { bookAppointment, type BookAppointmentInput } from '../../src/commands/book-appointment.command.ts'
import { appointmentType } from '../../src/domain/appointments/appointment-type.ts'
import { slotClaimDecider } from '../../src/domain/appointments/slot-claim.decider.ts'
import { slotClaimStream } from '../../src/domain/appointments/slot-claim.events.ts'
import { DomainError } from '../../src/domain/shared/decider.ts'
import { CommandHandler } from '../../src/eventstore/command-handler.ts'
import { openMemoryEventStore } from '../../src/eventstore/memory/index.ts'
import { createCalDavCalendar } from '../../src/integrations/calendar/caldav/index.ts'
import { startRadicale } from '../support/radicale.ts'
import { ownerCalendarApp } from '../support/radicale-calendars.ts'

const radicale = await startRadicale()
t.teardown(() => radicale.stop())
const owner = ownerCalendarApp(radicale)
const credentials = { kind: 'caldav' as const, serverUrl: radicale.url, username: radicale.username, password: radicale.password }
const clock = () => new Date('2026-03-01T12:00:00Z')
const actor = { kind: 'api_key' as const, id: 'key-1' }
// Tuesday 10 March 2026, 10:00 in New York (EDT).
const slot = '2026-03-10T14:00:00.000Z'

async function setUp() {
  const calendarId = await owner.newCalendar()
  const store = openMemoryEventStore({ clock })
  const type = appointmentType({ id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 15, bookableHours: 'mon-fri 09:00-17:00', minimumNoticeMinutes: 60, calendarId })
  const input = (bookingId: string): BookAppointmentInput => ({
    accountId: 'acct1',
    accountZone: 'America/New_York',
    accountHours: 'mon-fri 09:00-18:00',
    bookingId,
    type,
    start: slot,
    lead: { name: 'Ann Lee', phone: '+15551230000', source: 'webhook', link: 'https://leadline.example/console/leads/1', zone: 'America/Chicago' },
    actor,
  })
  /** One node: its own command handler and its own calendar connection, on the shared log. */
  const node = async () => ({ handler: new CommandHandler(store, { clock }), calendar: await createCalDavCalendar().connect(credentials), clock })
  return { calendarId, store, input, node }
}

const code = (error: unknown) => (error instanceof DomainError ? error.code : String(error))

t.test('two bookings of one slot at once: one wins, the other is refused slot_taken, one event', async (t) => {
  const { calendarId, store, input, node } = await setUp()
  const [a, b] = [await node(), await node()]
  const results = await Promise.allSettled([bookAppointment(a, input('booking-a')), bookAppointment(b, input('booking-b'))])
  const won = results.filter((r) => r.status === 'fulfilled')
  const lost = results.filter((r) => r.status === 'rejected')
  t.equal(won.length, 1, 'one booking wins')
  t.same(lost.map((r) => code(r.reason)), ['slot_taken'], 'the other is told to offer the next slot')
  const winner = won[0]!.value
  t.same(await owner.filesIn(calendarId), [`${winner.eventUid}.ics`], 'one event in the calendar')
  const types = (await store.readStream(slotClaimStream('acct1', slot))).map((e) => e.type)
  t.same(types, ['SlotClaimed', 'SlotEventWritten'])
})

t.test('a crash between the claim and the calendar write: the retry writes one event, a second retry finds it', async (t) => {
  const { calendarId, store, input, node } = await setUp()
  const first = await node()
  // The claim landed, then the process died before the calendar was asked.
  await first.handler.handle(slotClaimStream('acct1', slot), slotClaimDecider, { type: 'ClaimSlot', accountId: 'acct1', start: slot, end: '2026-03-10T15:00:00.000Z', bookingId: 'booking-c', appointmentTypeId: 'estimate', calendarId }, { actor })
  t.same(await owner.filesIn(calendarId), [])

  const restarted = await node()
  const retry = await bookAppointment(restarted, input('booking-c'))
  t.same(retry, { bookingId: 'booking-c', start: slot, end: '2026-03-10T15:00:00.000Z', eventUid: 'leadline-booking-c', alreadyThere: false })
  const again = await bookAppointment(await node(), input('booking-c'))
  t.equal(again.alreadyThere, true, 'a retry after the write finds the event by its UID')
  t.same(await owner.filesIn(calendarId), ['leadline-booking-c.ics'], 'one event')
  const types = (await store.readStream(slotClaimStream('acct1', slot))).map((e) => e.type)
  t.same(types, ['SlotClaimed', 'SlotEventWritten'], 'recorded once')
  await t.rejects(bookAppointment(await node(), input('booking-d')), { code: 'slot_taken' }, 'and the slot stays taken')
})

t.test("a slot the owner's own event (or its buffer) blocks is refused and released; nothing is written", async (t) => {
  const { calendarId, store, input, node } = await setUp()
  // 11:10 EDT: inside the 15-minute buffer after a 10:00-11:00 appointment.
  await owner.ownerEvent(calendarId, 'supplier', ['DTSTART;TZID=America/New_York:20260310T111000', 'DTEND;TZID=America/New_York:20260310T120000'])
  await t.rejects(bookAppointment(await node(), input('booking-e')), { code: 'slot_unavailable' })
  t.same(await owner.filesIn(calendarId), ['supplier.ics'])
  const types = (await store.readStream(slotClaimStream('acct1', slot))).map((e) => e.type)
  t.same(types, ['SlotClaimed', 'SlotReleased'], 'released for the next booking')

  await t.rejects(bookAppointment(await node(), { ...input('booking-f'), start: '2026-03-10T21:00:00.000Z' }), { code: 'slot_unavailable' }, '17:00 EDT is past the bookable hours')
  await t.rejects(bookAppointment(await node(), { ...input('../x') }), { code: 'invalid_booking_id' })
})
