/**
 * Texts on the lead aggregate, as given/when/then: the decision (the final body with its opt-out
 * line, its segments, the Messaging Service; once per idempotency key; refused for a do-not-call
 * lead, outside the lead's hours with the rule named, to a number outside the allow-list, past a
 * state's cap counted with the calls), the claim before the carrier (at most once), and its outcome.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import { LEAD_EFFECTS, LEAD_SUMMARIES, type LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { OPT_OUT_LINE, endsWithOptOutLine, textSegments, withOptOutLine } from '../../../../src/domain/lead/texts/text-body.ts'
import { TEXT_EFFECT, TEXT_SUMMARIES } from '../../../../src/domain/lead/texts/texts.events.ts'
import type { TextCommand } from '../../../../src/domain/lead/texts/texts.decider.ts'
import { deciderSpec } from '../../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z') // 10:00 in Chicago, 11:00 in New York
const AT = NOW.toISOString()
const spec = deciderSpec(leadDecider, NOW)
const SETTINGS: AccountSettings = { ...DEFAULT_SETTINGS, callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00' }
const MG = `MG${'0123456789abcdef'.repeat(2)}`

function received(fields: Record<string, unknown> = {}): LeadEvent {
  return {
    type: 'LeadReceived',
    data: { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', firstName: 'Jane', industryFields: {}, extraFields: [], ...fields }, receivedAt: AT },
  } as LeadEvent
}

const dnc: LeadEvent = { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', source: 'sms_keyword', markedAt: AT } }

const decide = (over: Partial<Extract<TextCommand, { type: 'DecideText' }>> = {}): TextCommand => ({
  type: 'DecideText', settings: SETTINGS, textId: 'txt_1', reason: 'send_sms', body: 'Hi Jane, your quote is ready.', idempotencyKey: 'k-1', ...over,
})

function play(commands: ReadonlyArray<readonly [Date, LeadCommand]>, start: readonly LeadEvent[] = [received()]): LeadEvent[] {
  const events = [...start]
  for (const [now, command] of commands) {
    const state = events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
    events.push(...leadDecider.decide(command, state, now))
  }
  return events
}

t.test('the decision: the final body with the opt-out line, its segments, once per idempotency key', async (t) => {
  spec([received()]).when(decide()).then(t, [
    {
      type: 'TextDecided',
      data: {
        leadId: 'ld_1', textId: 'txt_1', reason: 'send_sms', from: '+13125550100', to: '+13125550142', body: `Hi Jane, your quote is ready.\n${OPT_OUT_LINE}`,
        messagingService: null, segments: 1, idempotencyKey: 'k-1', at: AT,
      },
    },
  ])
  const decided = play([[NOW, decide()]])
  spec(decided).when(decide({ textId: 'txt_2' })).then(t, [])
  spec(decided).when(decide({ textId: 'txt_2', idempotencyKey: 'k-2' })).then(t, (events) => t.equal(events[0]?.type, 'TextDecided', 'another key is another text'))
  spec([received()]).when(decide({ settings: { ...SETTINGS, messagingService: MG }, reason: 'follow_up', step: 2, idempotencyKey: null })).then(t, (events) => {
    t.match(events, [{ type: 'TextDecided', data: { messagingService: MG, reason: 'follow_up', step: 2, idempotencyKey: null } }])
  })
  spec([received()]).when(decide({ body: '   ' })).thenThrows(t, 'body_required')
  spec([received()]).when(decide({ body: 'x'.repeat(1600) })).thenThrows(t, 'text_too_long')
  spec([]).when(decide()).thenThrows(t, 'lead_not_found')
})

t.test('refused as a call would be: do-not-call, the lead\'s hours with the rule named, the allow-list', async (t) => {
  spec([received(), dnc]).when(decide()).thenThrows(t, 'do_not_call')
  // A Florida lead at 20:30 Eastern: FL 501.616's 20:00, and 08:00 the next morning.
  const late = new Date('2026-03-11T00:30:00Z')
  try {
    leadDecider.decide(decide(), play([], [received({ state: 'FL' })]).reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState()), late)
    t.fail('a text at 20:30 Eastern to a Florida lead was decided')
  } catch (error) {
    t.match(error, { code: 'outside_lead_hours', details: { rule: 'FL 501.616', next_allowed_at: '2026-03-11T13:00:00.000Z' } })
  }
  // Texas at 20:30 Central is inside the federal 21:00.
  deciderSpec(leadDecider, new Date('2026-03-11T01:30:00Z'))([received({ state: 'TX', phone: '+12145550142', phoneLast10: '2145550142' })]).when(decide()).then(t, (events) => t.equal(events.length, 1))
  spec([received({ phone: '+442079460000', phoneLast10: '2079460000' })]).when(decide()).thenThrows(t, 'country_not_allowed')
  spec([received()]).when(decide({ settings: { ...SETTINGS, callerId: null } })).thenThrows(t, 'no_caller_id')
})

t.test('daily limits: the account\'s call limit does not count texts; a state\'s cap counts texts with calls', async (t) => {
  const tight = { ...SETTINGS, followUp: '30s; max 1 per 24h' }
  const texts = play([[NOW, decide({ settings: tight })], [NOW, decide({ settings: tight, textId: 'txt_2', idempotencyKey: 'k-2' })]])
  spec(texts).when(decide({ settings: tight, textId: 'txt_3', idempotencyKey: 'k-3' })).then(t, (events) => t.equal(events.length, 1, 'a third text under "max 1 per 24h"'))
  // Florida: three solicitations in 24 hours, a call and two texts.
  const florida = play([
    [NOW, { type: 'DecidePlaceCall', settings: SETTINGS, decisionId: 'dec_1', idempotencyKey: 'c-1' }],
    [NOW, decide()],
    [NOW, decide({ textId: 'txt_2', idempotencyKey: 'k-2' })],
  ], [received({ state: 'FL' })])
  t.equal(florida.length, 4)
  try {
    leadDecider.decide(decide({ textId: 'txt_3', idempotencyKey: 'k-3' }), florida.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState()), NOW)
    t.fail('a fourth contact in 24 hours to a Florida lead was decided')
  } catch (error) {
    t.match(error, { code: 'daily_limit', details: { rule: 'FL 501.616', daily_limit: 3 } })
  }
  // The same holds for a call: two texts and a call, and a second call is refused by Florida's cap.
  const stateOf = (events: readonly LeadEvent[]) => events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
  try {
    leadDecider.decide({ type: 'DecidePlaceCall', settings: SETTINGS, decisionId: 'dec_2', idempotencyKey: 'c-2' }, stateOf(florida), NOW)
    t.fail('a fourth contact in 24 hours to a Florida lead was dialed')
  } catch (error) {
    t.match(error, { code: 'daily_limit', details: { rule: 'FL 501.616', daily_limit: 3 }, message: /at most 3 calls and texts/ })
  }
  // Elsewhere texts never count toward the account's call limit: two texts, then a call under "max 1 per 24h".
  const illinois = play([[NOW, decide({ settings: tight })], [NOW, decide({ settings: tight, textId: 'txt_2', idempotencyKey: 'k-2' })]])
  t.match(leadDecider.decide({ type: 'DecidePlaceCall', settings: tight, decisionId: 'dec_1', idempotencyKey: 'c-1' }, stateOf(illinois), NOW), [{ type: 'CallDecided' }])
})

t.test('the claim: once, checked again as it goes out, then the carrier\'s outcome', async (t) => {
  const decided = play([[NOW, decide()]])
  const claim: TextCommand = { type: 'StartTextAttempt', textId: 'txt_1', node: 'n1', settings: SETTINGS }
  spec(decided).when(claim).then(t, [{ type: 'TextAttemptStarted', data: { textId: 'txt_1', node: 'n1', at: AT } }])
  const claimed = play([[NOW, claim]], decided)
  spec(claimed).when({ ...claim, node: 'n2' }).then(t, [])
  spec(claimed).when({ type: 'RecordTextSent', textId: 'txt_1', messageId: 'SM1', carrier: 'twilio' }).then(t, (events, after) => {
    t.same(events, [{ type: 'TextSent', data: { textId: 'txt_1', messageId: 'SM1', carrier: 'twilio', at: AT } }])
    t.match(after.texts.texts.txt_1, { stage: 'sent', messageId: 'SM1' })
  })
  const unknown = play([[NOW, { type: 'RecordTextUnknown', textId: 'txt_1', reason: 'no answer' }]], claimed)
  t.match(unknown.at(-1), { type: 'TextOutcomeUnknown' })
  spec(unknown).when({ type: 'RecordTextSent', textId: 'txt_1', messageId: 'SM1', carrier: 'twilio' }).then(t, [])
  spec(unknown).when(claim).then(t, [])
  // The lead opted out between the decision and the claim: refused, never claimed.
  spec([...decided, dnc]).when(claim).then(t, (events) => t.match(events, [{ type: 'TextFailed', data: { failure: 'do_not_call', carrierCode: null } }]))
  spec(decided).when({ type: 'StartTextAttempt', textId: 'nope', node: 'n1' }).thenThrows(t, 'text_not_found')
})

t.test('the delivery receipt: a final status once a text, even before TextSent is on the log; never for a text not handed over', async (t) => {
  const decided = play([[NOW, decide()]])
  const receipt = (over: Partial<Extract<TextCommand, { type: 'RecordTextDelivery' }>> = {}): TextCommand => ({
    type: 'RecordTextDelivery', textId: 'txt_1', messageId: 'SM1', status: 'delivered', errorCode: null, ...over,
  })
  spec(decided).when(receipt()).then(t, [])
  const claimed = play([[NOW, { type: 'StartTextAttempt', textId: 'txt_1', node: 'n1' }]], decided)
  const sent = play([[NOW, { type: 'RecordTextSent', textId: 'txt_1', messageId: 'SM1', carrier: 'twilio' }]], claimed)
  spec(sent).when(receipt({ status: 'undelivered', errorCode: 30003 })).then(t, (events, after) => {
    t.same(events, [{ type: 'TextDelivered', data: { textId: 'txt_1', messageId: 'SM1', status: 'undelivered', errorCode: 30003, at: AT } }])
    t.match(after.texts.texts.txt_1, { stage: 'sent', delivery: 'undelivered', deliveryErrorCode: 30003 })
    t.equal(TEXT_SUMMARIES.TextDelivered((events[0] as Extract<LeadEvent, { type: 'TextDelivered' }>).data), 'text not delivered (undelivered) by the carrier (message SM1) (carrier error 30003)')
  })
  spec(sent).when(receipt({ messageId: 'SM2' })).then(t, [])
  const delivered = play([[NOW, receipt()]], sent)
  spec(delivered).when(receipt()).then(t, [])
  spec(delivered).when(receipt({ status: 'failed', errorCode: 30008 })).then(t, [])
  // The carrier's receipt can come before the texter records TextSent: recorded, and TextSent still follows.
  const early = play([[NOW, receipt()]], claimed)
  t.match(early.at(-1), { type: 'TextDelivered' })
  spec(early).when({ type: 'RecordTextSent', textId: 'txt_1', messageId: 'SM1', carrier: 'twilio' }).then(t, (events) => t.match(events, [{ type: 'TextSent' }]))
  spec(decided).when(receipt({ textId: 'nope' })).thenThrows(t, 'text_not_found')
})

t.test('declared once: summaries for auditors and the texter\'s effect', async (t) => {
  t.equal(LEAD_SUMMARIES.TextDecided, TEXT_SUMMARIES.TextDecided)
  t.ok(LEAD_EFFECTS.includes(TEXT_EFFECT))
  const [event] = play([[NOW, decide({ settings: { ...SETTINGS, messagingService: MG } })]]).slice(1)
  const line = TEXT_SUMMARIES.TextDecided((event as Extract<LeadEvent, { type: 'TextDecided' }>).data)
  t.match(line, /^text decided: send_sms tool, 1 segment, \+13125550100 → \+13125550142 through Messaging Service MG0123/)
  t.notMatch(line, /\n/, 'one line')
})

t.test('the opt-out line and segments', async (t) => {
  t.equal(withOptOutLine('Hi  '), `Hi\n${OPT_OUT_LINE}`)
  for (const has of ['Reply STOP to opt out.', 'text stop to end', 'Respond with "STOP" to unsubscribe']) t.ok(endsWithOptOutLine(has), has)
  for (const lacks of ["Don't stop now", 'Stopping by at 3', 'nonstop deals']) t.notOk(endsWithOptOutLine(lacks), lacks)
  t.same(textSegments('a'.repeat(160)), { segments: 1, encoding: 'GSM-7', characters: 160 })
  t.equal(textSegments('a'.repeat(161)).segments, 2)
  // One character outside GSM-7 makes the whole text UCS-2: 70 a segment, 67 once split.
  t.match(textSegments(`${'a'.repeat(69)}é`), { segments: 1, encoding: 'GSM-7' })
  t.match(textSegments(`${'a'.repeat(70)}ō`), { segments: 2, encoding: 'UCS-2' })
  // An emoji is two UTF-16 code units: 35 fill one segment, 36 need two.
  t.match(textSegments('🙂'.repeat(35)), { segments: 1, encoding: 'UCS-2' })
  t.match(textSegments('🙂'.repeat(36)), { segments: 2, encoding: 'UCS-2' })
})
