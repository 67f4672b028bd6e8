/**
 * The assistant books an appointment in the call (issue #45): a model (the official SDK pointed at the
 * fake model server) calls find_appointment_slots and book_appointment; Leadline books through the same
 * command as agents into the simulated calendar. One booking however often the model repeats itself, a
 * slot taken meanwhile refused with the next ones, and no booking tools when booking is off.
 */
import t, { type Test } from 'tap'
import { startFakeModel, type FakeModel } from '../../doubles/fake-model.ts'
import { createOpenAiAssistant } from '../../../src/integrations/assistant/openai/index.ts'
import { SIMULATED_CALENDAR_ID, simulatedCalendarsOf } from '../../../src/integrations/calendar/simulated/index.ts'
import { assistantBooking } from '../../../src/domain/account/assistant-booking.ts'
import { assistantCall, BRIEF, drain, type AssistantCall } from './assistant-call.ts'
import { leadEvents, manualClock, postLead } from '../../helpers/dialing-app.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { assistantOutputOf } from '../../../src/http/mcp/lead-view.ts'
import { outboundEventOf } from '../../../src/domain/outbound-events/outbound-events.ts'

// Monday 9 March 2026, 10:00 in Chicago (CDT, UTC-5); the lead's 312 number is in Chicago too.
const MONDAY_10AM = '2026-03-09T15:00:00Z'
const ESTIMATE = { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 0, bookableHours: 'mon-fri 09:00-12:00', minimumNoticeMinutes: 60, maxPerDay: null, calendarId: SIMULATED_CALENDAR_ID }
const CALL = { ...ESTIMATE, id: 'call', name: 'Quick call', durationMinutes: 30 }
const TUESDAY_SLOTS = 'ok: Tue Mar 10 at 9:00 AM (2026-03-10T14:00:00Z), Tue Mar 10 at 10:00 AM (2026-03-10T15:00:00Z), Tue Mar 10 at 11:00 AM (2026-03-10T16:00:00Z)'

interface Setup { types?: ReadonlyArray<typeof ESTIMATE>; typeId?: string | null }

async function setUp(t: Test, options: Setup = {}) {
  const fake = await startFakeModel()
  t.teardown(() => fake.close())
  const clock = manualClock(MONDAY_10AM)
  const call = await assistantCall(t, { clock: clock.now, provider: createOpenAiAssistant({ apiKey: 'sk-test-fake-model-key-0123456789', baseUrl: fake.openaiUrl, model: 'fake-model' }) })
  const { leadline } = call.t
  await leadline.calendars.connect(call.accountId, { kind: 'simulated' }, operatorContext.actor)
  for (const type of options.types ?? [ESTIMATE]) await leadline.calendars.saveType(call.accountId, type, operatorContext.actor)
  if (options.typeId !== undefined) await leadline.accounts.changeSettings(call.accountId, { assistantBrief: { ...BRIEF, appointmentTypeId: options.typeId } }, operatorContext)
  const opened = await leadline.assistant.open(call.start)
  if (!opened || !('conversation' in opened)) throw new Error(`refused: ${JSON.stringify(opened)}`)
  return { fake, call, c: opened.conversation, calendar: simulatedCalendarsOf(call.accountId) }
}

function toolNames(fake: FakeModel, request: number): string[] {
  return (fake.requests[request]?.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)
}

/** The tool results the model was sent in request `n` (the `ok:`/`refused:` lines), in order. */
function toolResults(fake: FakeModel, n: number): string[] {
  return (fake.requests[n]?.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content)
}

async function outcome(call: AssistantCall) {
  const events = await leadEvents(call.t.leadline, call.accountId, call.phone)
  return { events, ended: events.find((e) => e.type === 'AssistantCallEnded')?.data as Record<string, unknown>, booked: events.filter((e) => e.type === 'AppointmentBooked') }
}

t.test('the assistant offers times, books the one the lead chose, and the call ends appointment_booked', async (t) => {
  const { fake, call, c, calendar } = await setUp(t)
  fake.reply({ tools: [{ name: 'find_appointment_slots', args: { day: '2026-03-10' } }] }, { text: ['I have Tuesday at 9, 10 or 11 in the morning. Which suits you?'] })
  t.equal((await drain(c.prompt('Can someone come out Tuesday?'))).text, 'I have Tuesday at 9, 10 or 11 in the morning. Which suits you?')
  t.same(toolNames(fake, 0), ['record_answer', 'book_callback', 'find_appointment_slots', 'book_appointment', 'transfer_to_person', 'mark_do_not_call', 'end_call'], 'booking is on: the model gets both booking tools')
  t.match(JSON.stringify(fake.requests[0]?.body), /a Roof estimate \(60 minutes\)[^"]*Offer two or three[^"]*Never invent/, 'the prompt tells the model how to book')
  t.same(toolResults(fake, 1), [TUESDAY_SLOTS], 'times on the lead\'s clock with their ISO starts, nothing else')

  // The model said end_call `qualified`: a call in which an appointment was booked ends appointment_booked.
  fake.reply({ tools: [{ name: 'book_appointment', args: { start: '2026-03-10T15:00:00Z' } }] }, { text: ['You are booked for Tuesday at 10 AM. Goodbye.'], tools: [{ name: 'end_call', args: { disposition: 'qualified' } }] })
  const out = await drain(c.prompt('10 works, yes please book it.'))
  t.equal(out.text, 'You are booked for Tuesday at 10 AM. Goodbye.')
  t.same(out.end, { type: 'end', handoff: null })
  t.same(toolResults(fake, 3).slice(-1), ['ok: booked Tue Mar 10 at 10:00 AM'])
  await c.close('ended')

  const { ended, booked } = await outcome(call)
  t.equal(booked.length, 1, 'the lead has one appointment')
  t.match(booked[0]?.data, { appointmentTypeId: 'estimate', start: '2026-03-10T15:00:00.000Z', end: '2026-03-10T16:00:00.000Z', by: 'assistant', leadZone: 'America/Chicago' })
  const appointmentId = (booked[0]?.data as { appointmentId: string }).appointmentId
  t.match(ended, { disposition: 'appointment_booked', appointmentId })
  const { state } = await call.t.leadline.commands.load(leadStream(call.accountId, call.phone.slice(-10)), leadDecider)
  t.match(assistantOutputOf(state).last, { disposition: 'appointment_booked', appointment_id: appointmentId }, "get_lead's assistant outcome names it")
  const recorded = (await leadEvents(call.t.leadline, call.accountId, call.phone)).find((e) => e.type === 'AssistantCallEnded')!
  t.match(outboundEventOf(recorded)?.event.data, { disposition: 'appointment_booked', appointment_id: appointmentId }, 'and the assistant.call_ended event')
  const events = calendar.list()
  t.equal(events.length, 1, 'the calendar holds one event')
  t.equal(events[0]?.start, '2026-03-10T15:00:00.000Z')
  t.notMatch(events[0]?.description ?? '', /Tuesday|book it/, 'never the transcript in the event')
})

t.test('the model calling book_appointment twice books once', async (t) => {
  const { fake, call, c, calendar } = await setUp(t, { typeId: 'estimate' })
  fake.reply({ tools: [{ name: 'find_appointment_slots', args: {} }] }, { text: ['Tomorrow at 9 or 10?'] })
  await drain(c.prompt('When can you come?'))
  // First open times from now: Monday 11:00 (an hour's notice), then Tuesday.
  t.same(toolResults(fake, 1), ['ok: Mon Mar 9 at 11:00 AM (2026-03-09T16:00:00Z), Tue Mar 10 at 9:00 AM (2026-03-10T14:00:00Z), Tue Mar 10 at 10:00 AM (2026-03-10T15:00:00Z)'])
  const start = { start: '2026-03-10T09:00:00-05:00' }
  fake.reply({ tools: [{ name: 'book_appointment', args: start }, { name: 'book_appointment', args: start }] }, { text: ['Booked.'] })
  await drain(c.prompt('9 tomorrow'))
  fake.reply({ tools: [{ name: 'book_appointment', args: { start: '2026-03-10T14:00:00Z' } }] }, { text: ['All set for Tuesday at 9.'] })
  await drain(c.prompt('So it is booked?'))
  const results = [...toolResults(fake, 3).slice(-2), ...toolResults(fake, 5).slice(-1)]
  t.same(results, ['ok: booked Tue Mar 10 at 9:00 AM', 'ok: booked Tue Mar 10 at 9:00 AM', 'ok: booked Tue Mar 10 at 9:00 AM'], 'the same answer each time')
  fake.reply({ tools: [{ name: 'book_appointment', args: { start: '2026-03-10T15:00:00Z' } }] }, { text: ['It stays at 9.'] })
  await drain(c.prompt('Actually, make that 10 as well'))
  t.match(toolResults(fake, 7).slice(-1)[0], /^refused: this call already booked Tue Mar 10 at 9:00 AM/, 'one appointment per call')
  await c.close('socket_dropped')
  const { ended, booked, events } = await outcome(call)
  t.equal(booked.length, 1, 'one appointment')
  t.equal(calendar.list().length, 1, 'one event')
  t.match(ended, { disposition: 'appointment_booked', why: /the call dropped/ })
  t.notOk(events.some((e) => e.type === 'FollowUpScheduled'), 'a lead with an appointment is not put back to follow-up')
})

t.test('a slot taken meanwhile is refused with the next times; the model books the next', async (t) => {
  const { fake, call, c, calendar } = await setUp(t)
  fake.reply({ tools: [{ name: 'find_appointment_slots', args: { day: '2026-03-10' } }] }, { text: ['Tuesday at 9, 10 or 11?'] })
  await drain(c.prompt('Tuesday please'))
  // Meanwhile an agent books Tuesday 10:00 for another lead, through the same command.
  t.equal((await postLead(call.t.app, call.token, { phone: '+13125550199', first_name: 'Sam' })).status, 201)
  await call.t.leadline.appointments.book({ accountId: call.accountId, phoneLast10: '3125550199', typeId: 'estimate', start: '2026-03-10T15:00:00Z', by: 'agent', actor: operatorContext.actor, idempotencyKey: 'agent-sam', dryRun: false })
  fake.reply({ tools: [{ name: 'book_appointment', args: { start: '2026-03-10T15:00:00Z' } }] }, { text: ['Sorry, 10 was just taken. Is 11 good?'] })
  await drain(c.prompt('10 please'))
  const refused = toolResults(fake, 3).at(-1) ?? ''
  t.match(refused, /^refused: that time was just taken\. next: Tue Mar 10 at 11:00 AM \(2026-03-10T16:00:00Z\)/, 'the refusal offers the next times')
  t.notMatch(refused, /3125550199|Sam|agent|simulated/, 'times only')
  fake.reply({ tools: [{ name: 'book_appointment', args: { start: '2026-03-10T16:00:00Z' } }] }, { text: ['Booked for 11. Goodbye.'], tools: [{ name: 'end_call', args: { disposition: 'appointment_booked' } }] })
  await drain(c.prompt('11 is fine'))
  t.same(toolResults(fake, 5).slice(-1), ['ok: booked Tue Mar 10 at 11:00 AM'])
  await c.close('ended')
  const { ended, booked } = await outcome(call)
  t.equal(booked.length, 1)
  t.match(booked[0]?.data, { start: '2026-03-10T16:00:00.000Z', by: 'assistant' })
  t.equal(ended.disposition, 'appointment_booked')
  t.same(calendar.list().map((e) => e.start), ['2026-03-10T15:00:00.000Z', '2026-03-10T16:00:00.000Z'], "the agent's event and the assistant's, one each")
})

t.test('a lead who opts out after booking: opted_out (the do-not-call mark is made), the appointment recorded on the outcome', async (t) => {
  const { fake, call, c } = await setUp(t)
  fake.reply({ tools: [{ name: 'find_appointment_slots', args: { day: '2026-03-10' } }] }, { text: ['Tuesday at 9, 10 or 11?'] })
  await drain(c.prompt('Tuesday'))
  fake.reply({ tools: [{ name: 'book_appointment', args: { start: '2026-03-10T14:00:00Z' } }] }, { text: ['Booked for 9.'] })
  await drain(c.prompt('9'))
  const out = await drain(c.prompt('Actually, stop calling me.'))
  t.ok(out.end, 'the opt-out ends the call')
  await c.close('ended')
  const { ended, booked, events } = await outcome(call)
  t.equal(booked.length, 1)
  t.match(ended, { disposition: 'opted_out', appointmentId: (booked[0]?.data as { appointmentId: string }).appointmentId })
  t.ok(events.some((e) => e.type === 'LeadMarkedDoNotCall'), 'marked do-not-call')
})

t.test('only offered times are booked, and end_call appointment_booked needs a booking', async (t) => {
  const { fake, call, c, calendar } = await setUp(t)
  fake.reply({ tools: [{ name: 'book_appointment', args: { start: '2026-03-10T15:00:00Z' } }, { name: 'end_call', args: { disposition: 'appointment_booked' } }] }, { text: ['Let me find a time.'] })
  await drain(c.prompt('Book me Tuesday at 10'))
  t.same(toolResults(fake, 1), [
    'refused: that time was not offered in this call: call find_appointment_slots and offer one of its times',
    'refused: no appointment is booked; call book_appointment first',
  ])
  await c.close('ended')
  t.equal(calendar.list().length, 0)
  t.equal((await outcome(call)).booked.length, 0)
})

t.test('booking off: several types and none named, or none at all; the model is not given the tools', async (t) => {
  for (const types of [[ESTIMATE, CALL], []]) {
    const { fake, c } = await setUp(t, { types })
    fake.reply({ tools: [{ name: 'find_appointment_slots', args: {} }] }, { text: ['We can call you back.'] })
    await drain(c.prompt('Can I book a visit?'))
    t.same(toolNames(fake, 0), ['record_answer', 'book_callback', 'transfer_to_person', 'mark_do_not_call', 'end_call'], `${types.length} types: no booking tools`)
    t.notMatch(JSON.stringify(fake.requests[0]?.body.messages), /find_appointment_slots|book_appointment/, 'nor a word of them in the prompt')
    t.same(toolResults(fake, 1), ['refused: there is no tool find_appointment_slots'], 'a booking tool asked for anyway is no tool')
    await c.close('ended')
  }
})

t.test("the brief naming a type the account does not have: refused when set; a type removed later turns booking off, saying why", async (t) => {
  const { fake, call, c } = await setUp(t, { types: [ESTIMATE, CALL], typeId: 'call' })
  const { leadline } = call.t
  await t.rejects(leadline.accounts.changeSettings(call.accountId, { assistantBrief: { ...BRIEF, appointmentTypeId: 'massage' } }, operatorContext), {
    code: 'invalid_setting', message: 'invalid assistantBrief.appointmentTypeId: no appointment type "massage" in this account (one of estimate, call, or none)',
  })
  fake.reply({ text: ['Hello.'] })
  await drain(c.prompt('hi'))
  t.ok(toolNames(fake, 0).includes('book_appointment'), 'the named type is booked')
  await c.close('ended')

  await leadline.calendars.removeType(call.accountId, 'call', operatorContext.actor)
  const account = await leadline.accounts.require(call.accountId)
  t.same(assistantBooking(account), {
    on: false, problem: true, why: 'the brief\'s appointmentTypeId names appointment type "call", which this account does not have (name one of estimate, or none)',
  })
  t.equal(account.settings.assistantBrief.appointmentTypeId, 'call', 'the brief keeps what the owner set until they change it')
})
