/**
 * The claims read model, from histories the deciders make (through the command handler, on the
 * in-memory log): for each declared effect, a decision is listed unclaimed until it is claimed or
 * ended without a claim, a claim is listed without an outcome until one is recorded, and effects and
 * accounts never mix. A wrong event type in an effect's declaration fails here.
 */
import t from 'tap'
import type { Test } from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../src/domain/account/account-settings.ts'
import { CALL_EFFECT } from '../../../src/domain/lead/calls/calls.events.ts'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { PAY_LINK_EFFECT } from '../../../src/domain/lead/payments/payments.events.ts'
import { CommandHandler } from '../../../src/eventstore/command-handler.ts'
import { openMemoryEventStore } from '../../../src/eventstore/memory/index.ts'
import { ProjectionRunner } from '../../../src/read-models/projection-runner.ts'
import { openViewsDatabase } from '../../../src/read-models/views-database.ts'
import { claimsProjection } from '../../../projections/claims/claims.projection.ts'
import { ClaimsQueries } from '../../../projections/claims/claims.queries.ts'

const T0 = new Date('2026-03-10T15:00:00Z')
const MIN = 60_000
const SETTINGS: AccountSettings = { ...DEFAULT_SETTINGS, callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false }
const DIALER = CALL_EFFECT.name
const SENDER = PAY_LINK_EFFECT.name

function setup(t: Test) {
  let now = T0.getTime()
  const store = openMemoryEventStore({ clock: () => new Date(now) })
  const commands = new CommandHandler(store, { clock: () => new Date(now) })
  const views = openViewsDatabase(':memory:')
  t.teardown(() => views.close())
  const runner = new ProjectionRunner(store, views, [claimsProjection])
  const claims = new ClaimsQueries(views)
  let leads = 0
  /** A new lead of `accountId`, then each command on it in turn. */
  const lead = async (accountId: string, ...steps: LeadCommand[]) => {
    const n = ++leads
    const phone = `+1312555${String(n).padStart(4, '0')}`
    const stream = leadStream(accountId, phone.slice(-10))
    const fields = { phone, phoneLast10: phone.slice(-10), phoneRaw: phone, fullName: `Person ${n}`, industryFields: {}, extraFields: [] }
    for (const command of [{ type: 'ReceiveLead', accountId, newLeadId: `ld_${n}`, fields } as LeadCommand, ...steps]) {
      await commands.handle(stream, leadDecider, command, { actor: { kind: 'process', id: 'test' } })
    }
    return stream
  }
  const on = async (stream: string, ...steps: LeadCommand[]) => {
    for (const command of steps) await commands.handle(stream, leadDecider, command, { actor: { kind: 'process', id: 'test' } })
  }
  const caughtUp = async () => (await runner.catchUp(), claims)
  return { lead, on, caughtUp, advance: (ms: number) => (now += ms) }
}

const decide = (decisionId: string): LeadCommand => ({ type: 'DecidePlaceCall', settings: SETTINGS, decisionId, idempotencyKey: decisionId })
const start = (decisionId: string): LeadCommand => ({ type: 'StartCallAttempt', decisionId, node: 'node-1', settings: SETTINGS })
const request = (requestId: string): LeadCommand => ({
  type: 'RequestPayment', requestId, amountCents: 5000, currency: 'usd', description: 'Deposit', connectedAccount: null, provider: 'simulated',
  idempotencyKey: requestId, providerIdempotencyKey: `pk_${requestId}`, from: '+13125550100',
})
const linked = (requestId: string): LeadCommand => ({
  type: 'RecordPayLinkCreated', requestId, sessionId: `cs_${requestId}`, url: `https://pay.example/${requestId}`, expiresAt: '2026-03-11T15:00:00.000Z', provider: 'simulated',
})
const text = (requestId: string): LeadCommand => ({ type: 'StartPayLinkText', requestId, node: 'node-1', body: 'Pay here' })
const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id)

t.test("the dialer's decisions: unclaimed until claimed or refused, claimed until the carrier's answer is recorded", async (t) => {
  const { lead, on, caughtUp, advance } = setup(t)
  await lead('acca', decide('dec_open'))
  const claimed = await lead('acca', decide('dec_claimed'), start('dec_claimed'))
  await lead('acca', decide('dec_placed'), start('dec_placed'), { type: 'RecordCallPlaced', decisionId: 'dec_placed', callId: 'CA1', carrier: 'simulated' })
  await lead('acca', decide('dec_failed'), start('dec_failed'), { type: 'RecordCallFailed', decisionId: 'dec_failed', failure: 'rejected', message: 'no', carrierCode: 21211 })
  await lead('acca', decide('dec_unknown'), start('dec_unknown'), { type: 'RecordOutcomeUnknown', decisionId: 'dec_unknown', reason: 'timeout' })
  // Do-not-call before its turn came: the claim is refused (CallFailed, no CallAttemptStarted).
  await lead('acca', decide('dec_refused'), { type: 'MarkDoNotCall' }, start('dec_refused'))
  await lead('accb', decide('dec_b'))

  let claims = await caughtUp()
  t.same(claims.accountsWithUnclaimed(DIALER).sort(), ['acca', 'accb'])
  t.same(ids(claims.unclaimed(DIALER, 'acca', -1, 100)), ['dec_open'], 'claimed, performed and refused decisions are not unclaimed')
  t.same(ids(claims.unclaimed(DIALER, 'accb', -1, 100)), ['dec_b'], 'each account its own')
  t.same(claims.claimedBefore(DIALER, T0.toISOString()), [], 'a claim is stuck only once it is older than `before`')
  advance(MIN)
  t.same(claims.claimedBefore(DIALER, new Date(T0.getTime() + MIN).toISOString()), [{ id: 'dec_claimed', stream: claimed }], 'only the claim without an outcome')
  t.ok(claims.hasClaimsInFlight(DIALER))
  t.same(claims.claimedBefore(SENDER, new Date(T0.getTime() + MIN).toISOString()), [], "another effect's claims are not the dialer's")
  t.same(claims.unclaimedSince(SENDER, T0.toISOString()), [])

  await on(claimed, { type: 'RecordOutcomeUnknown', decisionId: 'dec_claimed', reason: 'swept' })
  claims = await caughtUp()
  t.same(claims.claimedBefore(DIALER, new Date(T0.getTime() + MIN).toISOString()), [], 'an outcome ends the claim')
  t.notOk(claims.hasClaimsInFlight(DIALER))
})

t.test("an account's unclaimed decisions page oldest first, by the position they were decided at", async (t) => {
  const { lead, on, caughtUp } = setup(t)
  const streams = []
  for (let i = 0; i < 5; i++) streams.push(await lead('acca', decide(`dec_${i}`)))
  await lead('accb', decide('dec_other'))
  await on(streams[2] as string, start('dec_2'))
  const claims = await caughtUp()
  const first = claims.unclaimed(DIALER, 'acca', -1, 2)
  t.same(ids(first), ['dec_0', 'dec_1'])
  t.ok((first[0]?.decidedPosition ?? 0) < (first[1]?.decidedPosition ?? 0))
  t.match(first[0], { stream: streams[0], accountId: 'acca' })
  const second = claims.unclaimed(DIALER, 'acca', first[1]?.decidedPosition as number, 2)
  t.same(ids(second), ['dec_3', 'dec_4'], 'the claimed one is left out, the next page starts after the last row')
  t.same(claims.unclaimed(DIALER, 'acca', second[1]?.decidedPosition as number, 2), [])
})

t.test("the pay-link sender's requests: unclaimed until texted or ended, a text claimed until its outcome", async (t) => {
  const { lead, on, caughtUp, advance } = setup(t)
  const stream = await lead('acca', request('req_open'))
  await on(stream, request('req_linked'), linked('req_linked'))
  await on(stream, request('req_nolink'), { type: 'RecordPayLinkFailed', requestId: 'req_nolink', failure: 'rejected', message: 'no', providerCode: null })
  await on(stream, request('req_texting'), linked('req_texting'), text('req_texting'))
  await on(stream, request('req_texted'), linked('req_texted'), text('req_texted'), { type: 'RecordPayLinkTexted', requestId: 'req_texted', messageId: 'SM1', carrier: 'simulated' })
  await on(stream, request('req_textfail'), linked('req_textfail'), text('req_textfail'), {
    type: 'RecordPayLinkTextFailed', requestId: 'req_textfail', failure: 'rejected', message: 'no', carrierCode: null,
  })
  await on(stream, request('req_unknown'), linked('req_unknown'), text('req_unknown'), { type: 'RecordPayLinkTextUnknown', requestId: 'req_unknown', reason: 'timeout' })
  // Do-not-call between the link and the text: the text is refused without a claim.
  const dnc = await lead('acca', request('req_dnc'), linked('req_dnc'), { type: 'MarkDoNotCall' }, text('req_dnc'))
  advance(10 * MIN)
  await on(dnc, { type: 'ClearDoNotCall' }, request('req_later'))

  let claims = await caughtUp()
  const since = T0.toISOString()
  t.same(ids(claims.unclaimedSince(SENDER, since)), ['req_open', 'req_linked', 'req_later'], 'a link made is not a claim; a failed link and a refused text end the request')
  t.same(ids(claims.unclaimedSince(SENDER, new Date(T0.getTime() + MIN).toISOString())), ['req_later'], 'by the time the request was decided')
  t.match(claims.unclaimedSince(SENDER, since)[0], { stream, accountId: 'acca' })
  t.same(claims.claimedBefore(SENDER, new Date(T0.getTime() + MIN).toISOString()), [{ id: 'req_texting', stream }])
  t.same(claims.unclaimed(DIALER, 'acca', -1, 100), [], "no request is the dialer's")
  t.notOk(claims.hasClaimsInFlight(DIALER))

  await on(stream, text('req_linked'), { type: 'RecordPayLinkTexted', requestId: 'req_texting', messageId: 'SM2', carrier: 'simulated' })
  claims = await caughtUp()
  t.same(ids(claims.unclaimedSince(SENDER, since)), ['req_open', 'req_later'], 'claimed: no longer unclaimed')
  t.same(ids(claims.claimedBefore(SENDER, new Date(T0.getTime() + 11 * MIN).toISOString())), ['req_linked'], 'texted: no longer stuck; the new claim is')
})
