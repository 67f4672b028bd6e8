/**
 * The missed-call text-back through the real Twilio adapter (the official SDK) against the fake
 * Twilio: a missed inbound call texts the caller once (the account's template, the opt-out line),
 * alerts the owner (`missed_call`) and puts the caller at the top of get_next_actions as `call_back`
 * with the time they called, until a call goes out to them. Across crashes (close and reopen on the same files): a missed call the
 * process never reacted to is texted back after the restart, once; a text-back decided but not sent
 * is sent once; a redelivered missed call decides nothing more. One text, never two.
 */
import t from 'tap'
import { receiveLead } from '../../../src/commands/receive-lead.command.ts'
import { placeCall } from '../../../src/commands/place-call.command.ts'
import type { Leadline } from '../../../src/leadline.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import type { LeadFields } from '../../../src/domain/lead/intake/normalize-lead-input.ts'
import { newLeadId } from '../../../src/domain/shared/ids.ts'
import type { RecordedEvent } from '../../../src/domain/event.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { ALWAYS, CALLER_ID, dialingApp, type ManualClock, fakeTwilio, leadEvents, leadEventTypes, manualClock, reopen, sleep, waitFor, waitForEvent } from '../../helpers/dialing-app.ts'

const PHONE = '+13125550142'
const OWNER = '+13125550199'
const SETTINGS = { callerId: CALLER_ID, callingHours: ALWAYS, alertTo: OWNER, alerts: 'missed_call' }

/** What the inbound voice route decides for a call nobody took: received when it comes in, then missed (the inbound slice's commands). */
async function missCall(leadline: Pick<Leadline, 'store' | 'commands' | 'accounts'>, accountId: string, callId: string, clock: ManualClock, ringMs = 40_000, phone = PHONE): Promise<RecordedEvent> {
  const stream = leadStream(accountId, phone.slice(-10))
  const fields = { phone, phoneLast10: phone.slice(-10), phoneRaw: phone, industryFields: {}, extraFields: [] } as unknown as LeadFields
  const context = { actor: { kind: 'carrier', id: 'twilio' } } as const
  await leadline.commands.handle(stream, leadDecider, { type: 'ReceiveInboundCall', accountId, newLeadId: newLeadId(clock.now().getTime()), fields, callId, from: phone, to: CALLER_ID, withinBusinessHours: true, route: 'owners' }, context)
  clock.advance(ringMs)
  const settings = (await leadline.accounts.get(accountId))!.settings
  await leadline.commands.handle(stream, leadDecider, { type: 'MissInboundCall', callId, reason: 'no_owner_answered', settings }, context)
  return (await leadline.store.readStream(stream)).find((e) => e.type === 'InboundCallMissed' && (e.data as { callId: string }).callId === callId) as RecordedEvent
}

const textsTo = (fake: Awaited<ReturnType<typeof fakeTwilio>>, to: string) => fake.messageRequests().filter((r) => r.form.To === to)

t.test('a missed call: one text back, an owner alert, and call_back at the top of get_next_actions with the time they called', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const built = await dialingApp(t, { fake, clock })
  const { account } = await built.createAccount('Acme Plumbing', { ...SETTINGS, speedToLead: false })
  await receiveLead(built.leadline, (await built.leadline.accounts.get(account.accountId))!, { phone: PHONE, name: 'Jane Doe' }, operatorContext)
  // Another lead, older business: the caller goes above it.
  await receiveLead(built.leadline, (await built.leadline.accounts.get(account.accountId))!, { phone: '+13125550143', name: 'Bo Diaz' }, operatorContext)
  clock.advance(30 * 60_000)
  const calledAt = clock.now()
  await missCall(built.leadline, account.accountId, 'CA100', clock)

  const sent = await waitForEvent(built.leadline, account.accountId, PHONE, 'TextSent')
  const texts = textsTo(fake, PHONE)
  t.equal(texts.length, 1)
  t.match(texts[0]?.form, { From: CALLER_ID, Body: "Hi Jane, sorry we missed your call at Acme Plumbing. We'll call you back shortly; reply here if there's anything we should know.\nReply STOP to opt out." })
  const types = await leadEventTypes(built.leadline, account.accountId, PHONE)
  t.same(types.slice(-5), ['InboundCallMissed', 'TextDecided', 'MissedCallTextSent', 'TextAttemptStarted', 'TextSent'])
  const decision = (await leadEvents(built.leadline, account.accountId, PHONE)).find((e) => e.type === 'MissedCallTextSent')
  t.match(decision?.data, { callId: 'CA100', textId: (sent.data as { textId: string }).textId })
  t.match(decision?.metadata, { actor: { kind: 'process', id: 'missed-call-text' } })

  await waitFor('the owner alert', () => textsTo(fake, OWNER).length === 1)
  t.equal(textsTo(fake, OWNER)[0]?.form.Body, 'Leadline: missed call from Jane Doe +13125550142 (Tue 10 Mar, 11:30 AM America/New_York)')

  await built.leadline.runner.catchUp()
  const next = await built.leadline.nextActions.getNextActions((await built.leadline.accounts.get(account.accountId))!)
  t.match(next.stale_leads[0], { phone: PHONE, why: 'call_back', called_at: calledAt.toISOString(), suggested_action: `call back: the lead called at ${calledAt.toISOString()} and nobody took the call` })
  t.match(next.stale_leads[1], { phone: '+13125550143', why: 'never_contacted' })
  t.match(next.summary, /^1 lead called and was not answered\. /)
  t.notOk(next.stale_leads[1] && 'called_at' in next.stale_leads[1], 'called_at only with call_back')

  // A second missed call the same day: no second text (at most one a caller in any 24 hours); still listed, at the later time.
  clock.advance(60 * 60_000)
  const again = clock.now()
  await missCall(built.leadline, account.accountId, 'CA101', clock)
  const skipped = await waitForEvent(built.leadline, account.accountId, PHONE, 'MissedCallTextSkipped')
  t.match(skipped.data, { callId: 'CA101', reason: 'already_texted_back' })
  await built.leadline.runner.catchUp()
  t.match((await built.leadline.nextActions.getNextActions((await built.leadline.accounts.get(account.accountId))!)).stale_leads[0], { why: 'call_back', called_at: again.toISOString() })
  await sleep(200)
  t.equal(textsTo(fake, PHONE).length, 1, 'one text back in all')

  // The owner calls them back: off the list.
  await placeCall(built.leadline, (await built.leadline.accounts.get(account.accountId))!, { phone: PHONE, name: 'Jane Doe', idempotencyKey: 'back-1', dryRun: false }, { actor: { kind: 'api_key', id: 'key_test' } })
  await waitForEvent(built.leadline, account.accountId, PHONE, 'CallPlaced')
  await built.leadline.runner.catchUp()
  const after = await built.leadline.nextActions.getNextActions((await built.leadline.accounts.get(account.accountId))!)
  t.notOk(after.stale_leads.some((lead) => lead.why === 'call_back'), 'called back: no longer call_back')
})

t.test('a do-not-call caller is neither texted back nor listed (they were answered: they called)', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const built = await dialingApp(t, { fake, clock })
  const { account } = await built.createAccount('Acme Plumbing', { ...SETTINGS, speedToLead: false })
  const acct = (await built.leadline.accounts.get(account.accountId))!
  await receiveLead(built.leadline, acct, { phone: PHONE, name: 'Jane Doe', dnc: 'yes' }, operatorContext)
  await missCall(built.leadline, account.accountId, 'CA200', clock)
  const skipped = await waitForEvent(built.leadline, account.accountId, PHONE, 'MissedCallTextSkipped')
  t.match(skipped.data, { callId: 'CA200', reason: 'do_not_call' })
  await built.leadline.runner.catchUp()
  t.same((await built.leadline.nextActions.getNextActions(acct)).stale_leads, [], 'never suggested: they are do-not-call')
  await sleep(200)
  t.equal(textsTo(fake, PHONE).length, 0)
})

t.test('a crash between the missed call and its text-back: one text after the restart, never two', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  // A first run leaves the process runner a checkpoint, as a server that has run does.
  const first = await dialingApp(t, { fake, clock, store: 'sqlite' })
  const { account } = await first.createAccount('Acme Plumbing', { ...SETTINGS, speedToLead: false, alerts: 'none' })
  await receiveLead(first.leadline, (await first.leadline.accounts.get(account.accountId))!, { phone: PHONE, name: 'Jane Doe' }, operatorContext)
  await first.app.close()
  await first.leadline.close()

  // The node that took the call appends the missed call and dies before any process reacts to it.
  const crashed = await reopen(t, first, { fake, clock, start: false })
  await missCall(crashed.leadline, account.accountId, 'CA300', clock)
  await crashed.app.close()
  await crashed.leadline.close()

  clock.advance(60_000)
  const restarted = await reopen(t, first, { fake, clock })
  await waitForEvent(restarted.leadline, account.accountId, PHONE, 'TextSent')
  t.equal(textsTo(fake, PHONE).length, 1)
  // The same missed call reacted to again (a redelivery): decided before, nothing more.
  const missed = (await leadEvents(restarted.leadline, account.accountId, PHONE)).find((e) => e.type === 'InboundCallMissed')!
  t.same(await restarted.leadline.missedCallText.decide(missed), { kind: 'decided_before' })
  await restarted.app.close()
  await restarted.leadline.close()

  // A text-back decided on a node that died before its texter claimed it: sent once by the next start.
  const dying = await reopen(t, first, { fake, clock, start: false })
  clock.advance(25 * 60 * 60_000)
  const second = await missCall(dying.leadline, account.accountId, 'CA301', clock)
  t.match(await dying.leadline.missedCallText.decide(second), { kind: 'texted' })
  await dying.app.close()
  await dying.leadline.close()
  clock.advance(60_000)
  const again = await reopen(t, first, { fake, clock })
  await waitForEvent(again.leadline, account.accountId, PHONE, 'TextSent', 2)
  await sleep(300)
  t.equal(textsTo(fake, PHONE).length, 2, 'one text for each missed call, a day apart')
  const types = await leadEventTypes(again.leadline, account.accountId, PHONE)
  t.equal(types.filter((type) => type === 'MissedCallTextSent').length, 2)
  t.equal(types.filter((type) => type === 'TextDecided').length, 2, 'never a second decision for one call')
})

t.test('a caller Leadline had not met becomes a lead, is texted back as "there", and is listed as call_back', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const built = await dialingApp(t, { fake, clock })
  const { account } = await built.createAccount('Acme Plumbing', { ...SETTINGS, speedToLead: true, alerts: 'none' })
  const stranger = '+13125550177'
  await missCall(built.leadline, account.accountId, 'CA400', clock, 30_000, stranger)
  await waitForEvent(built.leadline, account.accountId, stranger, 'TextSent')
  t.match(textsTo(fake, stranger)[0]?.form, { Body: /^Hi there, sorry we missed your call at Acme Plumbing\./ })
  t.equal(fake.callRequests().length, 0, 'nobody dials a person who called in')
  await built.leadline.runner.catchUp()
  const next = await built.leadline.nextActions.getNextActions((await built.leadline.accounts.get(account.accountId))!)
  t.match(next.stale_leads, [{ phone: stranger, why: 'call_back', called_at: '2026-03-10T15:00:00.000Z' }])
})
