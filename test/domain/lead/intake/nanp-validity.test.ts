import t from 'tap'
import fc from 'fast-check'
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { nanpDecidingDigits, nanpLineIsValid } from '../../../../src/domain/lead/intake/nanp-validity.ts'
import { normalizePhone } from '../../../../src/domain/lead/intake/phone.ts'

const libphonenumber = (line: string): boolean => parsePhoneNumberFromString(`+1${line}`)?.isValid() === true

t.test("the +1 countries' patterns read at most seven leading digits of a ten-digit number, so the answers are remembered by seven", async (t) => {
  t.equal(nanpDecidingDigits(), 7)
})

t.test('a number whose first seven digits were read before: the same answer as libphonenumber, where the seventh digit decides', async (t) => {
  // Jamaica's 876-606-0xxx is a number type of its own; 876-606-1xxx is none: the first six digits alike, the answers not.
  for (const [first, second] of [['8766060123', '8766061123'], ['8766061999', '8766060999'], ['2465210123', '2465211123'], ['3052001234', '3052091234']] as const) {
    t.equal(nanpLineIsValid(first), libphonenumber(first), first)
    t.equal(nanpLineIsValid(second), libphonenumber(second), `${second} after ${first}`)
    t.equal(nanpLineIsValid(second), libphonenumber(second), `${second} again`)
  }
  const read = normalizePhone('876-606-1123', 'US')
  t.equal(read.ok && read.phone.valid, false, 'the webhook reads it as not valid')
})

t.test('numbers that share their leading digits with many others read as libphonenumber reads each', async (t) => {
  const prefix = fc.integer({ min: 200, max: 999 }).chain((area) => fc.integer({ min: 0, max: 9999 }).map((rest) => `${area}${String(rest).padStart(4, '0')}`))
  fc.assert(
    fc.property(prefix, fc.array(fc.integer({ min: 0, max: 999 }), { minLength: 2, maxLength: 6 }), (first7, subscribers) =>
      subscribers.every((subscriber) => {
        const line = `${first7}${String(subscriber).padStart(3, '0')}`
        return nanpLineIsValid(line) === libphonenumber(line)
      }),
    ),
    { numRuns: 2000 },
  )
  t.pass('2000 groups of numbers agreed')
})
