/**
 * The store's writer hashes with hashParsedEvent (sorted-key JSON), the verifier, the EventStoreDB
 * adapter and exports with hashEvent (canonicalize, RFC 8785). They must agree on every event the
 * writer can meet, or a log written here would fail its own audit: compared on generated JSON values
 * with any Unicode in keys and strings (lone surrogates included), and on RFC 8785's own edge cases.
 */
import fc from 'fast-check'
import t from 'tap'
import { canonicalEventForm, hashEvent, hashParsedEvent, type HashedFields } from '../../src/eventstore/hash-chain.ts'

const metadata = { correlationId: 'c', causationId: null, actor: { kind: 'process', id: 'test' }, schemaVersion: 1 } as const
const event = (data: unknown, extra: Partial<HashedFields> = {}): HashedFields => ({
  id: 'e1', stream: 'lead-a', revision: 0, type: 'T', data, metadata, recordedAt: '2026-11-25T00:00:00.000Z', ...extra,
})

/** What hashEvent gives: the hash, or the error it refuses the event with. */
function outcome(hash: (e: HashedFields, prev: string | null) => string, e: HashedFields, prev: string | null): string {
  try {
    return hash(e, prev)
  } catch (error) {
    return `refused: ${(error as Error).message}`
  }
}

t.test('the same hash as canonicalize on generated JSON values, any Unicode, after a JSON round trip', async (t) => {
  let compared = 0
  let refused = 0
  // Any code point; whole graphemes; and code units one by one, lone surrogates and backslashes often.
  const codeUnits = fc.oneof(fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00', '\\', '"', 'u', 'd'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }))
  for (const stringUnit of ['binary', 'grapheme', codeUnits] as const) {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit, maxDepth: 4 }), fc.option(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 })), (value, prev) => {
        // What the writer hashes is always parsed from the stored JSON text.
        const data: unknown = JSON.parse(JSON.stringify(value))
        const expected = outcome(hashEvent, event(data), prev)
        if (expected.startsWith('refused')) refused++
        compared++
        return outcome(hashParsedEvent, event(data), prev) === expected
      }),
      { numRuns: 700 },
    )
  }
  t.equal(compared, 2100)
  t.ok(refused > 0, `lone surrogates were generated, and refused by both (${refused})`)
})

t.test('RFC 8785 edge cases: key order by UTF-16 code units, numbers, escapes', async (t) => {
  const cases: Record<string, unknown> = {
    // RFC 8785 §3.2.3's sorting example: code units, not code points (U+1F600 sorts before U+FB33).
    keys: { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' },
    // RFC 8785 appendix B's numbers.
    numbers: [0, -0, 5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 9007199254740992, -9007199254740992, 295147905179352830000, 1e21, 1e-7, 0.000001, 333333333.3333332, 1e23, 4.35, 0.1 + 0.2],
    escapes: ['\u0000\u0001\u001f', '"\\/', '\b\f\n\r\t', '\u2028\u2029', 'caf\u00e9', '\ud83d\ude00', '\\ud800 is text, not a surrogate'],
    empties: { a: {}, b: [], c: '', d: null, e: false, f: true },
  }
  for (const [name, data] of Object.entries(cases)) {
    const e = event(data)
    t.equal(hashParsedEvent(e, null), hashEvent(e, null), name)
  }
  // The form itself, for the sorting example: what RFC 8785 prints.
  t.match(canonicalEventForm(event(cases.keys), null), /"data":\{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"\}/)
  t.match(outcome(hashParsedEvent, event({ name: 'x\ud800y' }), null), /^refused: Lone surrogate/, 'a lone surrogate is refused, as RFC 8785 does')
})
