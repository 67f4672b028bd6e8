/**
 * The assistant books an appointment on the phone line, end to end: the REAL Twilio adapter against the
 * fake Twilio, the answer's TwiML, a ConversationRelay client double on the real relay route, a model
 * (the official OpenAI SDK against the fake model server) calling the booking tools, and the simulated
 * calendar. The lead hears the offered times and the booked one; the call ends `appointment_booked`.
 */
import t from 'tap'
import { twimlAttribute } from '../../doubles/fake-twilio.ts'
import { connectRelay } from '../../doubles/fake-conversation-relay.ts'
import { startFakeModel } from '../../doubles/fake-model.ts'
import { createOpenAiAssistant } from '../../../src/integrations/assistant/openai/index.ts'
import { SIMULATED_CALENDAR_ID, simulatedCalendarsOf } from '../../../src/integrations/calendar/simulated/index.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { DIALING, dialingApp, fakeTwilio, leadEvents, manualClock, postLead, waitForEvent } from '../../helpers/dialing-app.ts'

t.test('on a live call the assistant offers times, books the chosen one into the calendar, and the call ends appointment_booked', async (t) => {
  const model = await startFakeModel()
  t.teardown(() => model.close())
  const fake = await fakeTwilio(t)
  // Monday 9 March 2026, 10:00 in Chicago (CDT).
  const clock = manualClock('2026-03-09T15:00:00Z')
  const s = await dialingApp(t, { fake, clock, assistantProvider: createOpenAiAssistant({ apiKey: 'sk-test-fake-model-key-0123456789', baseUrl: model.openaiUrl, model: 'fake-model' }) })
  const baseUrl = await s.listen()
  const { account, token } = await s.createAccount('Lakeside Roofing', { ...DIALING, callsPerSecond: 100, onAnswer: 'assistant', timeZone: 'America/Chicago', assistantBrief: { assistantName: 'Robin' } })
  await s.leadline.calendars.connect(account.accountId, { kind: 'simulated' }, operatorContext.actor)
  await s.leadline.calendars.saveType(account.accountId, { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bookableHours: 'mon-fri 09:00-12:00', minimumNoticeMinutes: 60, calendarId: SIMULATED_CALENDAR_ID }, operatorContext.actor)

  const phone = '3125550142'
  t.equal((await postLead(s.app, token, { phone, first_name: 'Dana', source: 'roof-form' })).status, 201)
  const placed = (await waitForEvent(s.leadline, account.accountId, phone, 'CallPlaced')).data as { callId: string }
  t.equal((await fake.postAmdCallback(placed.callId, 'human', { via: baseUrl })).status, 204)
  await waitForEvent(s.leadline, account.accountId, phone, 'CallAnswered')
  const answer = await fake.answerCall(placed.callId, { via: baseUrl })
  const relay = await connectRelay({ url: twimlAttribute(answer.body, 'ConversationRelay', 'url') as string, via: baseUrl, authToken: fake.authToken })
  relay.setup(placed.callId)

  model.reply({ tools: [{ name: 'find_appointment_slots', args: { day: '2026-03-10' } }] }, { text: ['I have Tuesday at 9, ', '10 or 11 in the morning. Which suits you?'] })
  relay.prompt('Can someone come out Tuesday?')
  t.equal(await relay.turn(), 'I have Tuesday at 9, 10 or 11 in the morning. Which suits you?')
  model.reply({ tools: [{ name: 'book_appointment', args: { start: '2026-03-10T15:00:00Z' } }] }, { text: ['You are booked for Tuesday at 10 AM. Goodbye.'], tools: [{ name: 'end_call', args: { disposition: 'qualified' } }] })
  relay.prompt('10 works, book it.')
  t.equal(await relay.turn(), 'You are booked for Tuesday at 10 AM. Goodbye.')
  t.same(await relay.ended(), { reason: 'ended' })
  relay.close()
  t.equal(await relay.closed, 1000)

  const ended = (await waitForEvent(s.leadline, account.accountId, phone, 'AssistantCallEnded')).data as Record<string, unknown>
  const booked = (await leadEvents(s.leadline, account.accountId, phone)).filter((e) => e.type === 'AppointmentBooked')
  t.equal(booked.length, 1)
  t.match(booked[0]?.data, { start: '2026-03-10T15:00:00.000Z', by: 'assistant' })
  t.match(ended, { disposition: 'appointment_booked', appointmentId: (booked[0]?.data as { appointmentId: string }).appointmentId })
  t.same(simulatedCalendarsOf(account.accountId).list().map((e) => [e.start, e.summary]), [['2026-03-10T15:00:00.000Z', 'Roof estimate: Dana']])
})
