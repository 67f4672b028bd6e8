/** At most N of a type a day (src/domain/appointments/day-claim.decider.ts). */
import t from 'tap'
import { dayClaimDecider, type DayClaimCommand } from '../../../src/domain/appointments/day-claim.decider.ts'
import type { DayClaimEvent } from '../../../src/domain/appointments/day-claim.events.ts'
import { deciderSpec } from '../../helpers/decider-spec.ts'

const spec = deciderSpec(dayClaimDecider, new Date('2026-03-01T12:00:00Z'))
const at = '2026-03-01T12:00:00.000Z'
const day = { accountId: 'acct1', appointmentTypeId: 'estimate', day: '2026-03-10' }
const claim = (bookingId: string, maxPerDay: number | null = 2): DayClaimCommand => ({ type: 'ClaimDayPlace', ...day, bookingId, maxPerDay })
const claimed = (bookingId: string, maxPerDay: number | null = 2): DayClaimEvent => ({ type: 'DayPlaceClaimed', data: { ...day, bookingId, maxPerDay, claimedAt: at } })
const released = (bookingId: string): DayClaimEvent => ({ type: 'DayPlaceReleased', data: { ...day, bookingId, reason: 'cancelled', releasedAt: at } })

t.test('places are taken up to the limit; the next is day_full', async (t) => {
  spec([claimed('b1')]).when(claim('b2')).then(t, [claimed('b2')])
  spec([claimed('b1'), claimed('b2')]).when(claim('b3')).thenThrows(t, 'day_full')
})
t.test("the holder's claim again changes nothing, even on a full day", async (t) => spec([claimed('b1'), claimed('b2')]).when(claim('b2')).then(t, []))
t.test('a place given back can be taken', async (t) => spec([claimed('b1'), claimed('b2'), released('b1')]).when(claim('b3')).then(t, [claimed('b3')]))
t.test('no limit: every booking takes a place (counted, should a limit come later)', async (t) => spec([claimed('b1', null)]).when(claim('b2', null)).then(t, [claimed('b2', null)]))
t.test('a release by a booking without a place changes nothing', async (t) =>
  spec([claimed('b1')]).when({ type: 'ReleaseDayPlace', ...day, bookingId: 'b2', reason: 'cancelled' }).then(t, []))
