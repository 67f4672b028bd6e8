/** sha256Hex gives what createHash gives, through Node's one-shot hash. */
import * as crypto from 'node:crypto'
import t from 'tap'
import { sha256Hex } from '../../../src/domain/shared/sha256.ts'

const INPUTS: Array<string | Uint8Array> = ['', 'abc', 'llwh_' + 'x'.repeat(32), 'naïve ✓ 日本 \u{1F600}', new Uint8Array([0, 1, 2, 255]), 'x'.repeat(100_000)]
const expected = (data: string | Uint8Array) => crypto.createHash('sha256').update(data).digest('hex')

t.test('the one-shot hash, where Node has it', async (t) => {
  t.equal(typeof (crypto as { hash?: unknown }).hash, 'function', 'this Node has crypto.hash')
  t.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', "FIPS 180-2's example")
  for (const input of INPUTS) t.equal(sha256Hex(input), expected(input))
})

