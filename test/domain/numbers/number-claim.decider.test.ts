/** One sender, one account: the claim decider, given/when/then. */
import t from 'tap'
import { deciderSpec } from '../../helpers/decider-spec.ts'
import { numberClaimDecider } from '../../../src/domain/numbers/number-claim.decider.ts'
import type { NumberClaimEvent } from '../../../src/domain/numbers/number-claim.events.ts'

const NOW = '2026-03-10T15:00:00.000Z'
const given = deciderSpec(numberClaimDecider)
const X = '+13125550100'
const MG = `MG${'ab'.repeat(16)}`
const claimedByA: NumberClaimEvent[] = [{ type: 'NumberClaimed', data: { sender: X, kind: 'phone_number', accountId: 'acc_A', use: 'caller_id', carrierHolds: 'incoming_number', claimedAt: NOW } }]

t.test('a free number is claimed; its holder claiming it again changes nothing', async (t) => {
  given().when({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_A', use: 'caller_id', carrierHolds: 'incoming_number' }).then(t, claimedByA)
  given(claimedByA).when({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_A', use: 'caller_id', carrierHolds: 'incoming_number' }).then(t, [])
})

t.test("another account's claim is refused with number_in_use, naming no account", async (t) => {
  const spec = given(claimedByA).when({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_B', use: 'caller_id', carrierHolds: 'incoming_number' })
  spec.thenThrows(t, 'number_in_use')
  t.throws(() => numberClaimDecider.decide({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_B', use: 'caller_id', carrierHolds: null }, spec.state, new Date(NOW)), { message: /in use by another account/ })
  const message = (() => {
    try {
      numberClaimDecider.decide({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_B', use: 'caller_id', carrierHolds: null }, spec.state, new Date(NOW))
    } catch (error) {
      return (error as Error).message
    }
    return ''
  })()
  t.notMatch(message, /acc_A/, "the holder's id is not told")
})

t.test('only the holder releases it; then anyone may claim it', async (t) => {
  given(claimedByA).when({ type: 'ReleaseNumber', sender: X, accountId: 'acc_B', reason: 'replaced' }).then(t, [])
  const released: NumberClaimEvent[] = [...claimedByA, { type: 'NumberReleased', data: { sender: X, accountId: 'acc_A', reason: 'replaced', releasedAt: NOW } }]
  given(claimedByA).when({ type: 'ReleaseNumber', sender: X, accountId: 'acc_A', reason: 'replaced' }).then(t, released.slice(1))
  given(released).when({ type: 'ReleaseNumber', sender: X, accountId: 'acc_A', reason: 'replaced' }).then(t, [])
  given(released).when({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_B', use: 'caller_id', carrierHolds: null }).then(t, (events, after) => {
    t.match(events, [{ type: 'NumberClaimed', data: { accountId: 'acc_B' } }])
    t.equal(after.accountId, 'acc_B')
  })
})

t.test('a Messaging Service SID is claimed the same way; a sender of the wrong shape is refused', async (t) => {
  given().when({ type: 'ClaimNumber', sender: MG, kind: 'messaging_service', accountId: 'acc_A', use: 'messaging_service', carrierHolds: null }).then(t, (events) => t.match(events, [{ type: 'NumberClaimed', data: { sender: MG, kind: 'messaging_service' } }]))
  given().when({ type: 'ClaimNumber', sender: MG, kind: 'phone_number', accountId: 'acc_A', use: 'caller_id', carrierHolds: null }).thenThrows(t, 'invalid_setting')
  given().when({ type: 'ClaimNumber', sender: '3125550100', kind: 'phone_number', accountId: 'acc_A', use: 'caller_id', carrierHolds: null }).thenThrows(t, 'invalid_setting')
})

t.test('a number held for a setting is claimed again when put in use; put in use, a setting\'s claim changes nothing', async (t) => {
  const inUse: NumberClaimEvent = { type: 'NumberClaimed', data: { sender: X, kind: 'phone_number', accountId: 'acc_A', use: 'inbound', carrierHolds: 'incoming_number', claimedAt: NOW } }
  given(claimedByA).when({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_A', use: 'inbound', carrierHolds: 'incoming_number' }).then(t, (events, after) => {
    t.same(events, [inUse])
    t.equal(after.use, 'inbound')
  })
  given([inUse]).when({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_A', use: 'caller_id', carrierHolds: 'incoming_number' }).then(t, [])
  given([inUse]).when({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_A', use: 'inbound', carrierHolds: 'incoming_number' }).then(t, [])
  given(claimedByA).when({ type: 'ClaimNumber', sender: X, kind: 'phone_number', accountId: 'acc_B', use: 'inbound', carrierHolds: 'incoming_number' }).thenThrows(t, 'number_in_use')
})
