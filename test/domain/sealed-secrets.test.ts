/** The sealed-secrets filter drops every string that is a sealed secret, at any depth, and copies nothing else. */
import t from 'tap'
import { SEALED_PREFIX, isSealed, withoutSealedSecrets } from '../../src/domain/sealed-secrets.ts'

const SEALED = `${SEALED_PREFIX}0a1b2c3d.bm9uY2U.Y2lwaGVy.dGFn`

t.test('members and elements holding a sealed secret are dropped; the rest is kept', async (t) => {
  const value = { subscriptionId: 'sub_1', sealedSecret: SEALED, nested: { list: ['a', SEALED, 'b'], deeper: { token: SEALED, n: 1 } } }
  t.same(withoutSealedSecrets(value), { subscriptionId: 'sub_1', nested: { list: ['a', 'b'], deeper: { n: 1 } } })
  t.same(value.nested.list, ['a', SEALED, 'b'], 'the input is not changed')
  t.equal(withoutSealedSecrets(SEALED), undefined)
  t.ok(isSealed(SEALED))
  t.notOk(isSealed('whsec_abc'))
})

t.test('a value with nothing sealed comes back as it is', async (t) => {
  const value = { a: [1, 'two', { three: null }], b: 'llsealed' }
  t.equal(withoutSealedSecrets(value), value)
})

t.test('a member named __proto__ stays a member', async (t) => {
  const value = JSON.parse(`{"__proto__": {"x": 1}, "s": "${SEALED}"}`) as Record<string, unknown>
  const filtered = withoutSealedSecrets(value) as Record<string, unknown>
  t.same(Object.keys(filtered), ['__proto__'])
  t.equal(Object.getPrototypeOf(filtered), Object.prototype)
})
