import t from 'tap'
import { boundText, MAX_FIELD_LENGTH, readFieldValue } from '../../../../src/domain/lead/intake/field-value.ts'

t.test('scalars are stringified as received', async (t) => {
  const cases: Array<[unknown, string]> = [
    [' Ada ', ' Ada '],
    [42, '42'],
    [4.5, '4.5'],
    [0, '0'],
    [false, 'false'],
    [true, 'true'],
    [12345678901234567890n, '12345678901234567890'],
  ]
  // A JSON number also keeps its value, so a phone can tell 3125550144 from 3125550144.5.
  for (const [raw, text] of cases) t.same(readFieldValue(raw), typeof raw === 'number' ? { kind: 'text', text, number: raw } : { kind: 'text', text }, String(raw))
})

t.test('empty things are absent', async (t) => {
  for (const raw of [undefined, null, '', '   ', '\n\t', [], [null, '', ' '], [[], [[]]], () => 'x', Symbol('s')]) {
    t.same(readFieldValue(raw), { kind: 'absent' }, String(typeof raw))
  }
})

t.test('arrays give their first non-empty scalar, objects are objects', async (t) => {
  t.same(readFieldValue(['', null, 'a', 'b']), { kind: 'text', text: 'a' })
  t.same(readFieldValue([[' ', ['x']]]), { kind: 'text', text: 'x' })
  t.same(readFieldValue({ a: 1 }), { kind: 'object' })
  t.same(readFieldValue({}), { kind: 'object' })
  t.same(readFieldValue(['', { a: 1 }, 'later']), { kind: 'object' }, 'an object first is an object')
  // Nesting deeper than four arrays is not followed.
  t.same(readFieldValue([[[['deep']]]]), { kind: 'text', text: 'deep' })
  t.same(readFieldValue([[[[['too deep']]]]]), { kind: 'absent' })
})

t.test('boundText trims and caps at 1,000 code points', async (t) => {
  t.equal(MAX_FIELD_LENGTH, 1000)
  t.same(boundText('  hi  '), { text: 'hi', truncated: false })
  t.same(boundText('a'.repeat(1000)), { text: 'a'.repeat(1000), truncated: false })
  t.same(boundText(` ${'a'.repeat(1000)} `), { text: 'a'.repeat(1000), truncated: false }, 'padding does not count')
  t.same(boundText('a'.repeat(1001)), { text: 'a'.repeat(1000), truncated: true })
  // 600 emoji are 1,200 UTF-16 units but only 600 characters: not cut.
  t.same(boundText('😀'.repeat(600)), { text: '😀'.repeat(600), truncated: false })
  const cut = boundText('😀'.repeat(1001))
  t.equal(cut.truncated, true)
  t.equal(cut.text, '😀'.repeat(1000))
  t.same(boundText(`${'a'.repeat(999)} bcd`), { text: 'a'.repeat(999), truncated: true }, 'no trailing space after a cut')
})
