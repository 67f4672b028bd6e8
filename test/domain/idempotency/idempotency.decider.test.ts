import t from 'tap'
import { idempotencyDecider, statusOf, type Claim } from '../../../src/domain/idempotency/idempotency.decider.ts'
import type { IdempotencyEvent } from '../../../src/domain/idempotency/idempotency.events.ts'
import { deciderSpec } from '../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const spec = deciderSpec(idempotencyDecider, NOW)
const claim = (claimedAt: string, expiresAt: string): Claim => ({ tool: 'place_call', argsHash: 'h', keyId: 'key_1', claimedAt, expiresAt })
const live = claim('2026-03-10T14:59:00Z', '2026-03-11T14:59:00Z')
const expired = claim('2026-03-09T14:00:00Z', '2026-03-10T14:00:00Z')
const claimed = (data: Claim): IdempotencyEvent => ({ type: 'IdempotencyKeyClaimed', data })
const recorded = (outcome: { result: unknown } | { error: { code: string; message: string } }): IdempotencyEvent => ({
  type: 'IdempotencyResultRecorded',
  data: { recordedAt: '2026-03-10T14:59:30Z', ...outcome },
})

t.test('a free key is claimed; a live claim is not claimed again', async (t) => {
  const fresh = claim('2026-03-10T15:00:00Z', '2026-03-11T15:00:00Z')
  spec([]).when({ type: 'ClaimKey', claim: fresh }).then(t, [claimed(fresh)])
  spec([claimed(live)]).when({ type: 'ClaimKey', claim: fresh }).then(t, [])
  spec([claimed(live), recorded({ result: 1 })]).when({ type: 'ClaimKey', claim: fresh }).then(t, [])
})

t.test('an expired claim, or a call the log refused, leaves the key free', async (t) => {
  const fresh = claim('2026-03-10T15:00:00Z', '2026-03-11T15:00:00Z')
  spec([claimed(expired), recorded({ result: 1 })]).when({ type: 'ClaimKey', claim: fresh }).then(t, [claimed(fresh)])
  spec([claimed(live), recorded({ error: { code: 'store_unavailable', message: 'm' } })]).when({ type: 'ClaimKey', claim: fresh }).then(t, [claimed(fresh)])
  spec([claimed(live), recorded({ error: { code: 'do_not_call', message: 'm' } })]).when({ type: 'ClaimKey', claim: fresh }).then(t, [])
})

t.test('a claim without an outcome is taken over only when the command names it (its call and outcome the log refused here)', async (t) => {
  const fresh = claim('2026-03-10T15:00:00Z', '2026-03-11T15:00:00Z')
  spec([claimed(live)]).when({ type: 'ClaimKey', claim: fresh, retake: 0 }).then(t, [claimed(fresh)])
  spec([claimed(live)]).when({ type: 'ClaimKey', claim: fresh, retake: 3 }).then(t, [])
})

t.test("an outcome is recorded right after its claim, and only there", async (t) => {
  const outcome = { result: { status: 'placed' } }
  spec([claimed(live)]).when({ type: 'RecordOutcome', claimRevision: 0, recordedAt: '2026-03-10T14:59:30Z', outcome }).then(t, [recorded(outcome)])
  spec([claimed(expired), recorded({ result: 1 }), claimed(live)]).when({ type: 'RecordOutcome', claimRevision: 0, recordedAt: 'x', outcome }).then(t, [])
})

t.test('the status folds revisions from the stream', async (t) => {
  const state = [claimed(expired), recorded({ result: 1 }), claimed(live)].reduce(idempotencyDecider.evolve, idempotencyDecider.initialState())
  t.same(statusOf(state, NOW), { kind: 'claimed', claim: live, claimRevision: 2, outcome: null })
  t.same(statusOf(idempotencyDecider.initialState(), NOW), { kind: 'free', revision: -1 })
})
