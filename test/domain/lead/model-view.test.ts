/**
 * What a model may see of a lead (model-view.ts), as a table: fields named for payment data, account
 * numbers, SSNs, passwords and one-time codes are withheld whatever their value; values that look like
 * them are withheld whatever the field is called; the allow-list passes only state and declared fields.
 */
import t from 'tap'
import { luhnValid, modelFields, withheldField, withoutWithheldValues } from '../../../src/domain/lead/model-view.ts'
import { WITHHELD } from '../../fixtures/withheld-fields.ts'

/** Fields a model may see when declared: ordinary words and short numbers. */
const ORDINARY: ReadonlyArray<readonly [string, string]> = [
  ['roof_age', '20 years'],
  ['state', 'IL'],
  ['bedrooms', '3'],
  ['year_built', '1998'],
  ['budget', '$12,000'],
  ['service', 'gutter repair'],
  ['zip', '60614'],
]

t.test(`${WITHHELD.length} fields named or valued as secrets are withheld whatever the field is called`, async (t) => {
  t.ok(WITHHELD.length >= 30)
  for (const [name, value] of WITHHELD) t.not(withheldField(name, value), null, `${name}: ${value}`)
  for (const [name, value] of ORDINARY) t.equal(withheldField(name, value), null, `${name}: ${value}`)
})

t.test('card numbers are told by Luhn, 13 to 19 digits, any separators', async (t) => {
  t.ok(luhnValid('4111111111111111'))
  t.notOk(luhnValid('4111111111111112'))
  t.equal(withheldField('notes', '4111 1111 1111 1111'), 'card number')
  t.equal(withheldField('notes', '4111 1111 1111 1112'), 'bank or account number', 'not a card, but a long number all the same')
  t.equal(withheldField('notes', 'call after 5, we have 2 dogs'), null)
})

t.test('the allow-list: state and the declared fields only, each checked again', async (t) => {
  const all = [...WITHHELD, ...ORDINARY]
  t.same(modelFields(all, []), [['state', 'IL']], 'nothing declared: the state alone')
  t.same(modelFields(all, ['Roof Age', 'budget', 'cc_number', 'notes']), [['roof_age', '20 years'], ['state', 'IL'], ['budget', '$12,000']], 'declared secrets stay withheld')
})

t.test('free text keeps its words and loses its numbers', async (t) => {
  t.equal(withoutWithheldValues('my card is 4111 1111 1111 1111 and ssn 123-45-6789, roof is 20 years old'), 'my card is [withheld] and ssn [withheld], roof is 20 years old')
})
