/**
 * Reading a lead's conversation in the console (issue #44), as given/when/then: `ConversationRead`
 * through the latest text received, with how many were new; nothing when none is new; never what
 * the texts said, in the event or its summary.
 */
import t from 'tap'
import { leadDecider } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { TEXT_SUMMARIES } from '../../../../src/domain/lead/texts/texts.events.ts'
import { deciderSpec } from '../../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const AT = NOW.toISOString()
const spec = deciderSpec(leadDecider, NOW)

const received: LeadEvent = {
  type: 'LeadReceived',
  data: { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', industryFields: {}, extraFields: [] }, receivedAt: AT },
} as LeadEvent
const text = (messageId: string, transcript: string): LeadEvent => ({
  type: 'TextReceived', data: { leadId: 'ld_1', messageId, from: '+13125550142', to: '+13125550100', transcript, keyword: null, carrier: 'twilio', receivedAt: AT },
})
const read = (throughMessageId: string, unread: number): LeadEvent => ({ type: 'ConversationRead', data: { leadId: 'ld_1', throughMessageId, unread, at: AT } })

t.test('reading marks every text received so far, and says how many were new', async (t) => {
  spec([received, text('SM1', 'first'), text('SM2', 'second')]).when({ type: 'MarkConversationRead' }).then(t, [read('SM2', 2)])
  spec([received, text('SM1', 'first'), read('SM1', 1), text('SM2', 'second'), text('SM3', 'third')]).when({ type: 'MarkConversationRead' }).then(t, [read('SM3', 2)])
})

t.test('nothing new, nothing recorded; no such lead, refused', async (t) => {
  spec([received]).when({ type: 'MarkConversationRead' }).then(t, [])
  spec([received, text('SM1', 'first'), read('SM1', 1)]).when({ type: 'MarkConversationRead' }).then(t, [])
  spec([]).when({ type: 'MarkConversationRead' }).thenThrows(t, 'lead_not_found')
})

t.test('the event and its summary never carry what the lead wrote', async (t) => {
  const event = read('SM1', 1)
  t.notMatch(JSON.stringify(event), 'first')
  t.equal(TEXT_SUMMARIES.ConversationRead(event.data as never), 'text conversation read in the console (1 new text)')
})
