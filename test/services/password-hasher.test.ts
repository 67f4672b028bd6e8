/** Passwords are kept as memory-hard scrypt hashes in a self-describing string, checked in constant time. */
import t from 'tap'
import { DEFAULT_SCRYPT_LOG_N, PasswordHasher } from '../../src/services/password-hasher.ts'

t.test('the default cost is memory-hard: N = 2^15, r = 8 (32 MiB per guess)', async (t) => {
  t.ok(DEFAULT_SCRYPT_LOG_N >= 15)
  const hasher = new PasswordHasher()
  const hash = await hasher.hash('correct horse battery staple')
  t.match(hash, /^scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
  t.ok(await hasher.verify('correct horse battery staple', hash))
  t.notOk(await hasher.verify('correct horse battery stapl', hash))
})

t.test('random salt; parameters read from the hash; malformed hashes never verify', async (t) => {
  const cheap = new PasswordHasher(10)
  const [a, b] = [await cheap.hash('same password'), await cheap.hash('same password')]
  t.not(a, b, 'two hashes of one password differ')
  t.ok(await new PasswordHasher(12).verify('same password', a), 'a hash made at another cost still verifies')
  t.ok(await cheap.verify('Ｃafé'.normalize('NFD'), await cheap.hash('Ｃafé')), 'Unicode is normalised')
  for (const bad of ['', 'plain', 'scrypt$ln=99,r=8,p=1$c2FsdA$aGFzaA', 'scrypt$ln=10,r=8,p=1$$aGFzaA', 'bcrypt$2b$10$abc']) {
    t.notOk(await cheap.verify('same password', bad), JSON.stringify(bad))
  }
  t.throws(() => new PasswordHasher(0), RangeError)
})

t.test('LEADLINE_SCRYPT_LOG_N: default, accepted range, and a clear configuration error otherwise', async (t) => {
  const { scryptLogNFromEnv } = await import('../../src/services/password-hasher.ts')
  const { ConfigError } = await import('../../src/config/config.ts')
  t.equal(scryptLogNFromEnv({}), DEFAULT_SCRYPT_LOG_N)
  t.equal(scryptLogNFromEnv({ LEADLINE_SCRYPT_LOG_N: ' ' }), DEFAULT_SCRYPT_LOG_N)
  t.equal(scryptLogNFromEnv({ LEADLINE_SCRYPT_LOG_N: '10' }), 10)
  t.equal(scryptLogNFromEnv({ LEADLINE_SCRYPT_LOG_N: '20' }), 20)
  for (const bad of ['9', '21', '15.5', 'fifteen', '-15', '1e1']) {
    t.throws(() => scryptLogNFromEnv({ LEADLINE_SCRYPT_LOG_N: bad }), ConfigError, bad)
  }
  t.throws(() => scryptLogNFromEnv({ LEADLINE_SCRYPT_LOG_N: '9' }), { message: /LEADLINE_SCRYPT_LOG_N: must be a whole number from 10 to 20/ })
})
