/**
 * The missed-call text-back on the lead aggregate, as given/when/then: one text a missed call (the
 * template filled, the opt-out line added), decided with MissedCallTextSent in the same append; the
 * same call again decides nothing; at most one a caller in any 24 hours; none outside the texting
 * window, to a do-not-call or suppressed caller, when the account turned it off, or long after the call.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, validateSettingsChange, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { OPT_OUT_LINE } from '../../../../src/domain/lead/texts/text-body.ts'
import { DEFAULT_MISSED_CALL_TEXT } from '../../../../src/domain/lead/texts/missed-call-text.ts'
import { deciderSpec } from '../../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z') // 10:00 in Chicago, 11:00 in New York
const AT = NOW.toISOString()
const spec = deciderSpec(leadDecider, NOW)
const SETTINGS: AccountSettings = { ...DEFAULT_SETTINGS, callerId: '+13125550100', callingHours: 'mon-sun 08:00-20:00' }

const received: LeadEvent = {
  type: 'LeadReceived',
  data: { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', firstName: 'Jane', industryFields: {}, extraFields: [] }, receivedAt: AT },
} as LeadEvent

const textBack = (over: Record<string, unknown> = {}): LeadCommand =>
  ({ type: 'DecideMissedCallText', settings: SETTINGS, business: 'Acme Plumbing', callId: 'CA1', missedAt: AT, textId: 'txt_1', ...over }) as LeadCommand

function play(commands: ReadonlyArray<readonly [Date, LeadCommand]>, start: readonly LeadEvent[] = [received]): LeadEvent[] {
  const events = [...start]
  for (const [now, command] of commands) {
    const state = events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
    events.push(...leadDecider.decide(command, state, now))
  }
  return events
}

t.test('a missed call is texted back once: the template filled, the opt-out line, MissedCallTextSent in the same append', async (t) => {
  spec([received]).when(textBack()).then(t, [
    {
      type: 'TextDecided',
      data: {
        leadId: 'ld_1', textId: 'txt_1', reason: 'missed_call', from: '+13125550100', to: '+13125550142',
        body: `Hi Jane, sorry we missed your call at Acme Plumbing. We'll call you back shortly; reply here if there's anything we should know.\n${OPT_OUT_LINE}`,
        messagingService: null, segments: 1, idempotencyKey: null, at: AT,
      },
    },
    { type: 'MissedCallTextSent', data: { callId: 'CA1', textId: 'txt_1', missedAt: AT, at: AT } },
  ] as LeadEvent[])
  // The process reacting to the same missed call again (a redelivery after a crash): nothing more.
  const once = play([[NOW, textBack()]])
  spec(once).when(textBack({ textId: 'txt_2' })).then(t, [])
  t.same(spec(once).when(textBack()).state.texts.textBacks, { CA1: 'txt_1' })
})

t.test('at most one a caller in any 24 hours (rolling): a second missed call the same day is skipped, the next day texted', async (t) => {
  const once = play([[NOW, textBack()]])
  const later = new Date(NOW.getTime() + 5 * 60 * 60 * 1000)
  const second = play([[later, textBack({ callId: 'CA2', textId: 'txt_2', missedAt: later.toISOString() })]], once)
  t.match(second.slice(-1), [{ type: 'MissedCallTextSkipped', data: { callId: 'CA2', reason: 'already_texted_back' } }])
  const nextDay = new Date(NOW.getTime() + 24 * 60 * 60 * 1000)
  const third = play([[nextDay, textBack({ callId: 'CA3', textId: 'txt_3', missedAt: nextDay.toISOString() })]], second)
  t.same(third.slice(-2).map((e) => e.type), ['TextDecided', 'MissedCallTextSent'], '24 hours after the first text-back')
  // A skipped call is decided too: its redelivery decides nothing.
  spec(second).when(textBack({ callId: 'CA2', textId: 'txt_9', missedAt: later.toISOString() })).then(t, [])
})

t.test('none outside the texting window, to a do-not-call or suppressed caller, when off, or long after the call; each says why', async (t) => {
  const night = new Date('2026-03-10T03:00:00Z') // 22:00 in Chicago, 23:00 in New York
  const outside = deciderSpec(leadDecider, night)([received]).when(textBack({ missedAt: night.toISOString() }))
  outside.then(t, (events) => t.match(events, [{ type: 'MissedCallTextSkipped', data: { reason: 'outside_calling_hours', message: /calling hours/ } }]))

  const dnc: LeadEvent = { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', source: 'operator', markedAt: AT } } as LeadEvent
  spec([received, dnc]).when(textBack()).then(t, (events) => t.match(events, [{ type: 'MissedCallTextSkipped', data: { reason: 'do_not_call' } }]))
  const suppressed: LeadEvent = { type: 'NumberSuppressed', data: { leadId: 'ld_1', phone: '+13125550142', source: 'sms_keyword', at: AT } } as LeadEvent
  spec([received, suppressed]).when(textBack()).then(t, (events) => t.match(events, [{ type: 'MissedCallTextSkipped', data: { reason: 'suppressed' } }]))
  spec([received]).when(textBack({ settings: { ...SETTINGS, missedCallText: null } })).then(t, (events) => t.match(events, [{ type: 'MissedCallTextSkipped', data: { reason: 'text_back_off' } }]))
  spec([received]).when(textBack({ settings: { ...SETTINGS, callerId: null } })).then(t, (events) => t.match(events, [{ type: 'MissedCallTextSkipped', data: { reason: 'no_caller_id' } }]))
  const longAgo = new Date(NOW.getTime() - 16 * 60 * 1000).toISOString()
  spec([received]).when(textBack({ missedAt: longAgo })).then(t, (events) => t.match(events, [{ type: 'MissedCallTextSkipped', data: { reason: 'too_late' } }]))
})

t.test('a caller with no name is "there"; a hostile name is cut, and a placeholder in it stays as written', async (t) => {
  const noName = { ...received, data: { ...(received.data as object), fields: { ...(received.data as { fields: object }).fields, firstName: undefined } } } as LeadEvent
  spec([noName]).when(textBack()).then(t, (events) => t.match(events[0], { data: { body: /^Hi there, sorry/ } }))
  const hostile = { ...received, data: { ...(received.data as object), fields: { ...(received.data as { fields: object }).fields, firstName: `{business}${'x'.repeat(500)}` } } } as LeadEvent
  spec([hostile]).when(textBack()).then(t, (events) => {
    t.equal(events[0]?.type, 'TextDecided')
    t.match(events[0], { data: { body: /^Hi \{business\}x{50} sorry|^Hi \{business\}x+, sorry/ } })
    t.ok(((events[0]?.data as { body: string }).body.match(/x/g) ?? []).length <= 60, 'the name is cut to 60 characters')
  })
})

t.test('the setting: on by default, a template with {business} and {first_name}, off with "off"', async (t) => {
  t.equal(DEFAULT_SETTINGS.missedCallText, DEFAULT_MISSED_CALL_TEXT)
  t.same(validateSettingsChange({ missedCallText: 'off' }), { missedCallText: null })
  t.same(validateSettingsChange({ missedCallText: 'OFF ' }), { missedCallText: null })
  t.same(validateSettingsChange({ missedCallText: 'Missed you, {first_name}! {business}' }), { missedCallText: 'Missed you, {first_name}! {business}' })
  t.throws(() => validateSettingsChange({ missedCallText: 'Call {callback_number}' }), { code: 'invalid_setting', message: /unknown placeholder \{callback_number\}/ })
  t.throws(() => validateSettingsChange({ missedCallText: 'x'.repeat(241) }), { code: 'invalid_setting', message: /at most 240/ })
  t.throws(() => validateSettingsChange({ missedCallText: ' ' }), { code: 'invalid_setting', message: /empty/ })
})
