/** Passwords are kept as memory-hard scrypt hashes in a self-describing string, checked in constant time. */
import t from 'tap'
import { DEFAULT_SCRYPT_LOG_N, HASH_CONCURRENCY, HASH_QUEUE_LIMIT, PasswordHasher, PasswordHasherBusyError } from '../../src/commands/password-hasher.ts'

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
  const { scryptLogNFromEnv } = await import('../../src/commands/password-hasher.ts')
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

t.test('hashes run one at a time; past the queue a check is refused unchecked, so a flood cannot take every core', async (t) => {
  const hasher = new PasswordHasher(10)
  const started = Array.from({ length: HASH_QUEUE_LIMIT + 1 }, (_, i) => hasher.hash(`password number ${i}`))
  t.same(hasher.load, { running: HASH_CONCURRENCY, waiting: HASH_QUEUE_LIMIT + 1 - HASH_CONCURRENCY }, `${HASH_CONCURRENCY} computing, the rest waiting their turn`)
  t.equal(HASH_CONCURRENCY, 1)
  await t.rejects(hasher.verify('one too many', 'scrypt$ln=10,r=8,p=1$AAAA$AAAA'), PasswordHasherBusyError, 'a check past the queue is refused')
  await t.rejects(hasher.burn('one too many'), PasswordHasherBusyError, 'so is an unknown email\'s')
  const hashes = await Promise.all(started)
  t.equal(hashes.length, HASH_QUEUE_LIMIT + 1, 'every queued hash is computed')
  t.same(hasher.load, { running: 0, waiting: 0 })
  t.ok(await hasher.verify('password number 3', hashes[3] as string), 'and verifies')
})
