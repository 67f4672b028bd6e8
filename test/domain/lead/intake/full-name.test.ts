import t from 'tap'
import fc from 'fast-check'
import { namesAgree, splitFullName } from '../../../../src/domain/lead/intake/full-name.ts'

t.test('a full name splits into the first name a person is greeted by, and the rest', async (t) => {
  const cases: Array<[string, string, string | undefined]> = [
    ['Jane Doe', 'Jane', 'Doe'],
    ['Cher', 'Cher', undefined],
    ['Mary Ann Smith', 'Mary', 'Ann Smith'],
    ['José García López', 'José', 'García López'],
    ['Juan de la Cruz', 'Juan', 'de la Cruz'],
    ['Jean-Luc Picard', 'Jean-Luc', 'Picard'],
    ['Van Morrison', 'Van', 'Morrison'],
    // Titles are not first names.
    ['Mr John Smith', 'John', 'Smith'],
    ['Mrs. Sarah Connor', 'Sarah', 'Connor'],
    ['Dr. Maria Garcia-Lopez', 'Maria', 'Garcia-Lopez'],
    ['Rev. Martin Luther King Jr.', 'Martin', 'Luther King Jr.'],
    ['Mr. John Q. Public Jr.', 'John', 'Q. Public Jr.'],
    // Last name first, as CRMs export it.
    ['Doe, Jane', 'Jane', 'Doe'],
    ['Doe, Jane Q.', 'Jane', 'Doe'],
    ["O'Brien, Patrick", 'Patrick', "O'Brien"],
    ['Smith Jr., John', 'John', 'Smith Jr.'],
    ['John Smith, MD', 'John', 'Smith MD'],
    // What the parser cannot place keeps the plain split: first word, then the rest.
    ['Smith,', 'Smith,', undefined],
    ['Dr. Who', 'Dr.', 'Who'],
    ['Mr. and Mrs. Smith', 'Mr.', 'and Mrs. Smith'],
    ['Mr & Mrs John Smith', 'Mr', '& Mrs John Smith'],
    ['. .', '.', '.'],
  ]
  for (const [full, first, last] of cases) t.same(splitFullName(full), { first, last }, full)
})

t.test('case is kept as sent', async (t) => {
  t.same(splitFullName('JOHN SMITH'), { first: 'JOHN', last: 'SMITH' })
  t.same(splitFullName('mr john q. smith'), { first: 'john', last: 'q. smith' })
})

t.test('namesAgree: joined, or split the same way', async (t) => {
  t.ok(namesAgree('Jane Doe', 'Jane', 'Doe'))
  t.ok(namesAgree('Mr John Smith', 'John', 'Smith'))
  t.ok(namesAgree('Doe, Jane', 'Jane', 'Doe'))
  t.ok(namesAgree('Cher', 'Cher', undefined))
  t.ok(namesAgree(undefined, undefined, undefined))
  t.notOk(namesAgree('Bob Smith', 'Robert', 'Smith'), 'sent apart')
  t.notOk(namesAgree('Jane Doe', undefined, 'Doe'))
  t.notOk(namesAgree(undefined, 'Jane', 'Doe'))
})

t.test('property: never throws, and a first name always comes out', async (t) => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 200 }).map((s) => s.replace(/\s+/g, ' ').trim()).filter((s) => s !== ''), (full) => {
      const { first, last } = splitFullName(full)
      return first !== '' && (last === undefined || last !== '')
    }),
    { numRuns: 2000 },
  )
  t.pass('2000 arbitrary names split')
})
