/** The byte count pages are cut by is the size JSON.stringify gives, for every kind of value. */
import fc from 'fast-check'
import t from 'tap'
import { jsonBytes, withinBudget } from '../../../src/http/mcp/answer-budget.ts'

t.test('jsonBytes is the UTF-8 size of JSON.stringify, without making the string', async (t) => {
  for (const value of [null, true, false, 0, -1.5e-7, 12500, '', 'plain', 'quote " and \\ back', 'tab\tnew\nline\u0001\u001f', 'é 中 🙂', [], [1, 'a', null], {}, { a: 1, b: [{ c: 'd' }], e: undefined }, { __proto__: 1 }]) {
    t.equal(jsonBytes(value), Buffer.byteLength(JSON.stringify(value)), JSON.stringify(value))
  }
  fc.assert(
    fc.property(fc.jsonValue(), (value) => jsonBytes(value) === Buffer.byteLength(JSON.stringify(value))),
    { numRuns: 500 },
  )
})

t.test('withinBudget keeps the first items that fit, at least one, and says when it cut', async (t) => {
  const items = ['x'.repeat(100), 'y'.repeat(100), 'z'.repeat(100)]
  t.same(withinBudget(items, 250), { kept: items.slice(0, 2), cut: true })
  t.same(withinBudget(items, 10_000), { kept: items, cut: false })
  t.same(withinBudget(items, 1), { kept: items.slice(0, 1), cut: true }, 'one item even when it alone is over')
  t.same(withinBudget([], 1), { kept: [], cut: false })
})
