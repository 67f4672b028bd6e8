/** parseXmlBody on its own: any text is a parsed object or an XmlBodyError (a 400), never another throw. */
import fc from 'fast-check'
import t from 'tap'
import { parseXmlBody, XmlBodyError } from '../../../src/http/webhook/xml-body.ts'

const PIECES = fc.constantFrom(
  '<a>', '</a>', '<b/>', '<?x?>', '<!--c-->', '<![CDATA[z]]>', '&amp;', '&lt;', '&#x41;', '&#99999999;', '<__proto__>', '</__proto__>',
  '<constructor>', '</constructor>', '<a b="1">', 'text', '<', '>', '<!DOCTYPE', '&foo;', '<a:b>', '</a:b>', '\u0000', '\ud800',
)

t.test('property: any text parses or is refused with XmlBodyError', async (t) => {
  let parsed = 0
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.array(PIECES, { maxLength: 60 }).map((a) => a.join(''))), (text) => {
      try {
        const body = parseXmlBody(text, 32)
        parsed++
        return typeof body === 'object' && Object.getPrototypeOf(body) !== null
      } catch (error) {
        return error instanceof XmlBodyError && error.statusCode === 400
      }
    }),
    { numRuns: 3000 },
  )
  t.ok(parsed > 0, `some parsed (${parsed})`)
  t.equal(({} as Record<string, unknown>).b, undefined, 'Object.prototype untouched')
})

t.test('text stays text; the five XML escapes are read; attributes are not', async (t) => {
  t.same(parseXmlBody('<lead><zip>07030</zip><n a="x">Lee &amp; Co &lt;3</n><p>1</p><p>2</p></lead>', 32), { lead: { zip: '07030', n: 'Lee & Co <3', p: ['1', '2'] } })
  t.throws(() => parseXmlBody('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', 32), XmlBodyError)
  t.throws(() => parseXmlBody(`${'<a>'.repeat(33)}${'</a>'.repeat(33)}`, 32), /32 levels/)
  t.same(parseXmlBody(`${'<a>'.repeat(32)}x${'</a>'.repeat(32)}`, 32) !== null, true, '32 levels are fine')
})
