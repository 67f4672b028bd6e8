/** The Facebook lead decider and the page decider, given/when/then; and Facebook's webhook body read into notices. */
import t from 'tap'
import { deciderSpec } from '../../helpers/decider-spec.ts'
import { facebookLeadDecider, type LeadgenNotice } from '../../../src/domain/facebook-lead-ads/facebook-lead.decider.ts'
import type { FacebookLeadEvent } from '../../../src/domain/facebook-lead-ads/facebook-lead.events.ts'
import { facebookPageDecider } from '../../../src/domain/facebook-lead-ads/facebook-page.decider.ts'
import { readLeadgenNotification } from '../../../src/domain/facebook-lead-ads/leadgen-notification.ts'

const NOW = '2026-03-10T15:00:00.000Z'
const given = deciderSpec(facebookLeadDecider)
const notice: LeadgenNotice = { leadgenId: '9001', pageId: '1040', formId: '1200', adId: '2385', createdTime: '2026-03-10T14:59:00.000Z' }
const notified: FacebookLeadEvent[] = [
  { type: 'FacebookLeadNotified', data: { accountId: 'acc_1', ...notice, notifiedAt: NOW } },
  { type: 'FacebookLeadFetchDue', data: { leadgenId: '9001', fetchId: 'fbf_1', attempt: 1, reason: 'notified', dueAt: NOW } },
]
const claimed: FacebookLeadEvent[] = [...notified, { type: 'FacebookLeadFetchStarted', data: { leadgenId: '9001', fetchId: 'fbf_1', node: 'n1', startedAt: NOW } }]

t.test('a notification is recorded once, with the decision to fetch it now; a redelivery records nothing', async (t) => {
  given().when({ type: 'NotifyFacebookLead', accountId: 'acc_1', notice, fetchId: 'fbf_1' }).then(t, notified)
  given(notified).when({ type: 'NotifyFacebookLead', accountId: 'acc_1', notice, fetchId: 'fbf_2' }).then(t, [])
})

t.test('one claim per decision: a second claim, or a claim of an older decision, is nothing', async (t) => {
  given(notified).when({ type: 'StartFacebookLeadFetch', fetchId: 'fbf_1', node: 'n1' }).then(t, claimed.slice(2))
  given(claimed).when({ type: 'StartFacebookLeadFetch', fetchId: 'fbf_1', node: 'n2' }).then(t, [])
  given(notified).when({ type: 'StartFacebookLeadFetch', fetchId: 'fbf_0', node: 'n1' }).then(t, [])
})

t.test('a passing failure is recorded with the next decision; one for a person is not, and waits for a retry by hand', async (t) => {
  const failure = { type: 'RecordFacebookLeadFetchFailed', fetchId: 'fbf_1', failure: 'graph_unavailable', message: 'HTTP 500', httpStatus: 500, graphCode: 2 } as const
  given(claimed).when({ ...failure, retry: { fetchId: 'fbf_2', dueAt: '2026-03-10T15:00:01.000Z' } }).then(t, [
    { type: 'FacebookLeadFetchFailed', data: { leadgenId: '9001', fetchId: 'fbf_1', failure: 'graph_unavailable', message: 'HTTP 500', httpStatus: 500, graphCode: 2, willRetry: true, at: NOW } },
    { type: 'FacebookLeadFetchDue', data: { leadgenId: '9001', fetchId: 'fbf_2', attempt: 2, reason: 'retry', dueAt: '2026-03-10T15:00:01.000Z' } },
  ])
  given(notified).when({ ...failure, retry: null }).then(t, [])
  const refused: FacebookLeadEvent = { type: 'FacebookLeadFetchFailed', data: { leadgenId: '9001', fetchId: 'fbf_1', failure: 'graph_refused', message: 'expired', httpStatus: 400, graphCode: 190, willRetry: false, at: NOW } }
  given([...claimed, refused]).when({ type: 'RetryFacebookLeadFetch', fetchId: 'fbf_3' }).then(t, [
    { type: 'FacebookLeadFetchDue', data: { leadgenId: '9001', fetchId: 'fbf_3', attempt: 1, reason: 'by_hand', dueAt: NOW } },
  ])
  given(claimed).when({ type: 'RetryFacebookLeadFetch', fetchId: 'fbf_3' }).thenThrows(t, 'facebook_lead_not_failed')
  given().when({ type: 'RetryFacebookLeadFetch', fetchId: 'fbf_3' }).thenThrows(t, 'facebook_lead_not_found')
})

t.test('the lead received ends the claim, once', async (t) => {
  const received: FacebookLeadEvent = { type: 'FacebookLeadReceived', data: { leadgenId: '9001', fetchId: 'fbf_1', leadId: 'ld_1', created: true, at: NOW } }
  given(claimed).when({ type: 'RecordFacebookLeadReceived', fetchId: 'fbf_1', leadId: 'ld_1', created: true }).then(t, [received])
  given([...claimed, received]).when({ type: 'RecordFacebookLeadReceived', fetchId: 'fbf_1', leadId: 'ld_1', created: true }).then(t, [])
})

t.test('a page is connected to one account; the same account may give it a new token', async (t) => {
  const page = deciderSpec(facebookPageDecider)
  const connected = { type: 'FacebookPageConnected', data: { pageId: '1040', accountId: 'acc_1', pageTokenSealed: 'llsealed1.x', replaced: false, connectedAt: NOW } } as const
  page().when({ type: 'ConnectFacebookPage', pageId: '1040', accountId: 'acc_1', pageTokenSealed: 'llsealed1.x' }).then(t, [connected])
  page([connected]).when({ type: 'ConnectFacebookPage', pageId: '1040', accountId: 'acc_1', pageTokenSealed: 'llsealed1.y' }).then(t, (events) => t.match(events, [{ type: 'FacebookPageConnected', data: { replaced: true } }]))
  page([connected]).when({ type: 'ConnectFacebookPage', pageId: '1040', accountId: 'acc_2', pageTokenSealed: 'llsealed1.z' }).thenThrows(t, 'facebook_page_connected_elsewhere')
  page([connected]).when({ type: 'DisconnectFacebookPage', pageId: '1040', accountId: 'acc_2' }).thenThrows(t, 'facebook_page_not_connected')
})

t.test("Facebook's webhook body read into notices: leadgen changes only, ids as digits", async (t) => {
  const read = readLeadgenNotification({
    object: 'page',
    entry: [
      { id: '1040', time: 1773154740, changes: [{ field: 'leadgen', value: { leadgen_id: '9001', page_id: '1040', form_id: '1200', ad_id: '2385', created_time: 1773154740 } }] },
      { id: '1041', changes: [{ field: 'leadgen', value: { leadgen_id: 9002, created_time: '2026-03-10T14:59:00+0000' } }, { field: 'feed', value: { item: 'post' } }] },
      { id: '1042', changes: [{ field: 'leadgen', value: { leadgen_id: '../../x' } }] },
    ],
  })
  t.equal(read.object, 'page')
  t.same(read.notices, [
    { leadgenId: '9001', pageId: '1040', formId: '1200', adId: '2385', createdTime: '2026-03-10T14:59:00.000Z' },
    { leadgenId: '9002', pageId: '1041', formId: null, adId: null, createdTime: '2026-03-10T14:59:00.000Z' },
  ])
  t.equal(read.skipped, 2, 'a feed change and an id Facebook could not have made')
  t.same(readLeadgenNotification(null), { object: null, notices: [], skipped: 0 })
})
