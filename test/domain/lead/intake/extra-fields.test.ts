/** The bound on a lead's extra fields, as pure functions: per submission, and merged across submissions. */
import t from 'tap'
import { boundExtraFields, extraFieldBytes, MAX_EXTRA_FIELDS_BYTES, mergeExtraFields } from '../../../../src/domain/lead/intake/extra-fields.ts'

const field = (name: string, size: number) => ({ name, value: 'x'.repeat(size) })
const objectBytes = (fields: Array<{ name: string; value: unknown }>) => Buffer.byteLength(JSON.stringify(Object.fromEntries(fields.map((f) => [f.name, f.value]))))

t.test('a field counts as it is written in a JSON object', async (t) => {
  for (const f of [field('a', 3), { name: 'é "q"', value: { nested: [1, null, 'ü'] } }, { name: 'n', value: null }]) {
    t.equal(extraFieldBytes(f) + 2, objectBytes([f]), f.name)
  }
})

t.test('one submission keeps the fields that fit, in order, and names the rest', async (t) => {
  const fields = [field('a', 8000), field('b', 8000), field('c', 100), field('d', 20_000)]
  const { kept, dropped } = boundExtraFields(fields)
  t.same(kept.map((f) => f.name), ['a', 'b', 'c'])
  t.same(dropped, ['d'])
  t.ok(objectBytes(kept) <= MAX_EXTRA_FIELDS_BYTES)
  t.same(boundExtraFields([field('huge', 20_000)]), { kept: [], dropped: ['huge'] }, 'a field over the bound on its own is not kept')
})

t.test('merging: the latest value per name, re-sent names move last, the least recently sent go first', async (t) => {
  const current = [field('a', 6000), field('b', 6000), { name: 'k', value: 'old' }]
  t.same(mergeExtraFields(current, [{ name: 'k', value: 'new' }]).map((f) => [f.name, typeof f.value === 'string' ? f.value.slice(0, 3) : f.value]), [['a', 'xxx'], ['b', 'xxx'], ['k', 'new']])
  const merged = mergeExtraFields(current, [field('c', 6000)])
  t.same(merged.map((f) => f.name), ['b', 'k', 'c'], 'a went first')
  t.ok(objectBytes(merged) <= MAX_EXTRA_FIELDS_BYTES)
  t.same(mergeExtraFields([field('old', 60_000)], []), [], 'a field recorded before the bound, over it on its own, is dropped')
  t.same(mergeExtraFields([], []), [])
})
