/**
 * The recordings policy names the events that hold a recording or a transcript; the filter removes
 * that member from each, as the decider records it from a carrier's status callback. (The filter's
 * own properties, and every tool at every scope, are tested in test/http/mcp/recordings.test.ts.)
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import { MEDIA_MEMBERS, isSensitiveName, withoutRecordings } from '../../src/domain/recordings-policy.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const PHONE = '+13125550142'
const ON: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: '+13125550100', leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00' }

function play(commands: readonly LeadCommand[]): LeadEvent[] {
  const events: LeadEvent[] = []
  for (const command of commands) {
    const state = events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
    events.push(...leadDecider.decide(command, state, NOW))
  }
  return events
}

t.test('every event that holds a recording or a transcript loses it to the filter, and keeps the rest', async (t) => {
  const events = play([
    {
      type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', speedToLead: { settings: ON, decisionId: 'dec_1' },
      fields: { phone: PHONE, phoneLast10: PHONE.slice(-10), phoneRaw: PHONE, industryFields: {}, extraFields: [] },
    },
    { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1' },
    { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' },
    {
      type: 'RecordCallStatus', settings: ON,
      update: { callId: 'CA1', status: 'completed', durationSeconds: 30, timestamp: NOW.toISOString(), carrier: 'twilio', recordingUrl: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1', transcript: 'Hi, this is Jane' },
    },
    // Every prompt and reply of a voice assistant call (issue #29).
    {
      type: 'EndAssistantCall', decisionId: 'dec_1', callId: 'CA1', disposition: 'qualified', why: null, provider: 'scripted', settings: ON,
      transcript: [{ speaker: 'assistant', text: 'Is now a good time?', at: NOW.toISOString() }, { speaker: 'lead', text: 'Yes, I own the home', at: NOW.toISOString() }],
    },
    // What the lead texts back is kept like a transcript (issue #27).
    {
      type: 'ReceiveText', accountId: 'acc_1', newLeadId: 'ld_2', messageId: 'SM1', from: PHONE, to: '+13125550100', body: 'Call me after 5', carrier: 'twilio',
      fields: { phone: PHONE, phoneLast10: PHONE.slice(-10), phoneRaw: PHONE, industryFields: {}, extraFields: [] },
    },
  ])
  const media = events.filter((e) => Object.hasOwn(MEDIA_MEMBERS, e.type))
  t.same(media.map((e) => e.type).sort(), Object.keys(MEDIA_MEMBERS).sort(), 'the decider records each kind once')
  for (const event of media) {
    const member = MEDIA_MEMBERS[event.type as keyof typeof MEDIA_MEMBERS]
    t.ok(isSensitiveName(member), `${event.type}.${member} is a name the filter removes`)
    t.ok(Object.hasOwn(event.data as object, member), `${event.type} holds ${member} on the log`)
    const { [member]: _, ...rest } = event.data as Record<string, unknown>
    t.same(withoutRecordings(event.data), event.type === 'TextReceived' ? rest : { decisionId: 'dec_1', callId: 'CA1', at: NOW.toISOString() }, `${event.type} as it leaves`)
  }
})

t.test('a caller\'s voicemail never reaches the log: for any call and any voicemail, the inbound events hold no URL and nothing the filter would remove', async (t) => {
  const fc = (await import('fast-check')).default
  const { MEDIA_FREE_EVENTS } = await import('../../src/domain/recordings-policy.ts')
  const { holdsRecordingUrl } = await import('../../src/domain/recordings-policy.ts')
  const callId = fc.stringMatching(/^CA[0-9a-f]{32}$/)
  const step = fc.oneof(
    fc.record({ type: fc.constant('RecordInboundVoicemail' as const), durationSeconds: fc.option(fc.double({ min: 0, max: 10_000, noNaN: true })) }),
    fc.record({ type: fc.constant('RequestInboundCallback' as const) }),
    fc.record({ type: fc.constant('ConnectInboundCall' as const), leg: fc.integer({ min: 0, max: 4 }) }),
    fc.record({ type: fc.constant('EndInboundCall' as const), status: fc.constantFrom('completed', 'busy', 'no-answer', 'failed', 'canceled'), durationSeconds: fc.option(fc.nat()) }),
  )
  fc.assert(
    fc.property(callId, fc.boolean(), fc.array(step, { maxLength: 6 }), (id, missed, steps) => {
      const commands: LeadCommand[] = [{
        type: 'ReceiveInboundCall', accountId: 'acc_1', newLeadId: 'ld_1', callId: id, from: PHONE, to: '+13125550100', withinBusinessHours: !missed, route: missed ? 'voicemail' : 'owners',
        fields: { phone: PHONE, phoneLast10: PHONE.slice(-10), phoneRaw: PHONE, industryFields: {}, extraFields: [] },
      }]
      if (missed) commands.push({ type: 'MissInboundCall', callId: id, reason: 'outside_business_hours', settings: ON })
      for (const s of steps) {
        if (s.type === 'RecordInboundVoicemail') commands.push({ type: s.type, callId: id, durationSeconds: s.durationSeconds })
        else if (s.type === 'RequestInboundCallback') commands.push({ type: s.type, callId: id })
        else if (s.type === 'ConnectInboundCall') commands.push({ type: s.type, callId: id, by: 'owner', leg: s.leg, ownerNumber: '+13125550171' })
        else commands.push({ type: s.type, callId: id, status: s.status, durationSeconds: s.durationSeconds, settings: ON })
      }
      for (const event of play(commands).filter((e) => e.type.startsWith('Inbound'))) {
        if (!(MEDIA_FREE_EVENTS as readonly string[]).includes(event.type)) return false
        const json = JSON.stringify(event.data)
        if (holdsRecordingUrl(json) || /:\/\//.test(json)) return false
        if (JSON.stringify(withoutRecordings(event.data)) !== json) return false
      }
      return true
    }),
    { numRuns: 200 },
  )
  t.pass('no inbound event carries a recording or a URL')
})
