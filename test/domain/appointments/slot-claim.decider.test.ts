/** One slot, one booking (src/domain/appointments/slot-claim.decider.ts). */
import t from 'tap'
import { slotClaimDecider, type SlotClaimCommand } from '../../../src/domain/appointments/slot-claim.decider.ts'
import type { SlotClaimEvent } from '../../../src/domain/appointments/slot-claim.events.ts'
import { deciderSpec } from '../../helpers/decider-spec.ts'

const spec = deciderSpec(slotClaimDecider, new Date('2026-03-01T12:00:00Z'))
const at = '2026-03-01T12:00:00.000Z'
const slot = { accountId: 'acct1', start: '2026-03-10T14:00:00.000Z' }
const claim = (bookingId: string): SlotClaimCommand => ({ type: 'ClaimSlot', ...slot, end: '2026-03-10T15:00:00.000Z', bookingId, appointmentTypeId: 'estimate', calendarId: 'cal' })
const claimed = (bookingId: string): SlotClaimEvent => ({ type: 'SlotClaimed', data: { ...slot, end: '2026-03-10T15:00:00.000Z', bookingId, appointmentTypeId: 'estimate', calendarId: 'cal', claimedAt: at } })
const released = (bookingId: string): SlotClaimEvent => ({ type: 'SlotReleased', data: { ...slot, bookingId, reason: 'cancelled', releasedAt: at } })
const written = (bookingId: string): SlotClaimEvent => ({ type: 'SlotEventWritten', data: { ...slot, bookingId, eventUid: `leadline-${bookingId}`, etag: '"1"', alreadyThere: false, writtenAt: at } })
const record = (bookingId: string): SlotClaimCommand => ({ type: 'RecordSlotEvent', ...slot, bookingId, eventUid: `leadline-${bookingId}`, etag: '"1"', alreadyThere: false })

t.test('a free slot is claimed', async (t) => spec().when(claim('b1')).then(t, [claimed('b1')]))
t.test("the holder's claim again changes nothing (a retry)", async (t) => spec([claimed('b1')]).when(claim('b1')).then(t, []))
t.test('another booking is refused slot_taken', async (t) => spec([claimed('b1')]).when(claim('b2')).thenThrows(t, 'slot_taken'))
t.test('a released slot can be claimed by the next booking', async (t) => spec([claimed('b1'), released('b1')]).when(claim('b2')).then(t, [claimed('b2')]))
t.test("a release by a booking that does not hold the slot changes nothing", async (t) =>
  spec([claimed('b1')]).when({ type: 'ReleaseSlot', ...slot, bookingId: 'b2', reason: 'cancelled' }).then(t, []))
t.test('the calendar event is recorded once, by the holder only', async (t) => {
  spec([claimed('b1')]).when(record('b1')).then(t, [written('b1')])
  spec([claimed('b1'), written('b1')]).when(record('b1')).then(t, [])
  spec([claimed('b1')]).when(record('b2')).thenThrows(t, 'slot_not_held')
})
