import t from 'tap'
import { parseFormBody } from '../../../src/http/webhook/form-body.ts'

t.test('UTF-8 escapes are read as UTF-8, exactly as before', async (t) => {
  t.same(parseFormBody('name=Jos%C3%A9+Garc%C3%ADa&phone=3125550142'), { name: 'José García', phone: '3125550142' })
  t.same(parseFormBody('name=%E2%80%9CBob%E2%80%9D&x=1&x=2'), { name: '“Bob”', x: ['1', '2'] })
  t.same(parseFormBody('phone=3125550142&note=100%25'), { phone: '3125550142', note: '100%' })
})

t.test("escapes that are no UTF-8 are a legacy page's Windows-1252", async (t) => {
  t.same(parseFormBody('name=Jos%E9&phone=3125550142'), { name: 'José', phone: '3125550142' })
  t.same(parseFormBody('name=O%92Brien+%96+M%FCller&city=K%F6ln'), { name: 'O’Brien – Müller', city: 'Köln' }, 'the 0x80-0x9F range is Windows-1252, not ISO-8859-1 control codes')
  t.same(parseFormBody('n%E4me=x&phone=1&phone=2'), { 'näme': 'x', phone: ['1', '2'], }, 'names too, and repeated fields stay lists')
  t.same(parseFormBody('a=%41%E9'), { a: 'Aé' }, 'ASCII escapes are kept as they are')
})

t.test('bodies with raw non-ASCII text are parsed as sent', async (t) => {
  t.same(parseFormBody('name=José&x=%E9'), { name: 'José', x: '%E9' }, 'no guessing once the body is already text')
})
