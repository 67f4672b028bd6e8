import t from 'tap'
import { newEventId, newId, newLeadId, newSecret, WEBHOOK_TOKEN_PREFIX } from '../../../src/domain/shared/ids.ts'

t.test('ids: prefix, 80 random bits in Crockford base32, never repeated (across pool refills)', async (t) => {
  const seen = new Set<string>()
  for (let i = 0; i < 5000; i++) {
    const id = newId('ld')
    if (!/^ld_[0-9a-hjkmnp-tv-z]{16}$/.test(id)) t.fail(`malformed id ${id}`)
    seen.add(id)
  }
  t.equal(seen.size, 5000)
  const firstChars = new Set([...seen].map((id) => id[3]))
  t.equal(firstChars.size, 32, 'every base32 digit occurs in the first position')
  t.match(newSecret(WEBHOOK_TOKEN_PREFIX), /^llwh_[0-9a-hjkmnp-tv-z]{32}$/)
})

t.test('lead ids: the milliseconds in 10 base32 digits, then 80 random bits in 16; in time order, never repeated', async (t) => {
  const ids = Array.from({ length: 5000 }, () => newLeadId(Date.now()))
  t.ok(ids.every((id) => /^ld_[0-9a-hjkmnp-tv-z]{26}$/.test(id)), 'ld_ and 26 Crockford base32 digits')
  t.equal(new Set(ids).size, ids.length)
  t.ok(ids.every((id, i) => i === 0 || id.slice(0, 13) >= (ids[i - 1] as string).slice(0, 13)), 'their time part never goes back')
  for (let position = 13; position < 29; position++) {
    const values = new Set(ids.map((id) => id[position]))
    if (values.size < 30) t.fail(`random digit ${position} took only ${values.size} values`)
  }
  // 2026-01-01T00:00:00Z is 1767225600000 ms: in base32, 01kdvdna00 (Crockford's digits, i l o u skipped).
  t.equal(newLeadId(Date.UTC(2026, 0, 1)).slice(0, 13), 'ld_01kdvdna00')
  t.equal(newLeadId(0).slice(0, 13), 'ld_0000000000')
  const sorted = [newLeadId(Date.UTC(2026, 0, 1, 0, 0, 0, 999)), newLeadId(Date.UTC(2026, 0, 1, 0, 0, 1)), newLeadId(Date.UTC(2025, 11, 31))]
  t.same([...sorted].sort(), [sorted[2], sorted[0], sorted[1]], 'ids of later milliseconds sort later, as strings')
})

t.test('event ids: UUID version 7, in time order, never repeated', async (t) => {
  const ids = Array.from({ length: 2000 }, () => newEventId())
  t.ok(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)), 'canonical UUID v7')
  t.equal(new Set(ids).size, ids.length)
  t.ok(ids.every((id, i) => i === 0 || id.slice(0, 13) >= (ids[i - 1] as string).slice(0, 13)), 'their time part never goes back')
  // Every random digit is random: each position takes most of its values (a constant or a stuck
  // digit would take one), and the variant digit every one of its four.
  const randomPositions = [15, 16, 17, 20, 21, 22, ...Array.from({ length: 12 }, (_, i) => 24 + i)]
  for (const position of randomPositions) {
    const values = new Set(ids.map((id) => id[position]))
    if (values.size < 14) t.fail(`digit ${position} took only ${values.size} values`)
  }
  t.same(new Set(ids.map((id) => id[19])), new Set(['8', '9', 'a', 'b']), 'the variant digit: 8, 9, a and b')
  t.equal(newEventId(Date.UTC(2026, 0, 1)).slice(0, 13), `${Date.UTC(2026, 0, 1).toString(16).padStart(12, '0').slice(0, 8)}-${Date.UTC(2026, 0, 1).toString(16).padStart(12, '0').slice(8)}`)
})
