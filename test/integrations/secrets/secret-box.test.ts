/**
 * The secret box: what it seals opens only with the same key and purpose; the key comes from
 * LEADLINE_SECRET_KEY, or from a key file made once beside the embedded log; an EventStoreDB store
 * without the variable does not start.
 */
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { ConfigError } from '../../../src/config/config.ts'
import { isSealed } from '../../../src/domain/sealed-secrets.ts'
import { createSecretBox, SecretBoxError } from '../../../src/integrations/secrets/secret-box.ts'
import { openSecretBox, SecretKeyMissingError } from '../../../src/integrations/secrets/open-secret-box.ts'
import { runCli } from '../../../src/cli/main.ts'

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const PURPOSE = 'events-subscription:acc_1:sub_1'

t.test('a sealed secret opens with the same key and purpose, and with nothing else', async (t) => {
  const box = createSecretBox(randomBytes(32))
  const sealed = box.seal(SECRET, PURPOSE)
  t.ok(isSealed(sealed), 'marked as sealed')
  t.notOk(sealed.includes(SECRET) || sealed.includes(Buffer.from(SECRET).toString('base64')), 'the secret is not in it, plain or base64')
  t.not(box.seal(SECRET, PURPOSE), sealed, 'a fresh nonce each time')
  t.equal(box.open(sealed, PURPOSE), SECRET)

  t.throws(() => box.open(sealed, 'events-subscription:acc_2:sub_1'), { code: 'does_not_open' }, 'another purpose')
  const [prefix, id, nonce, body, tag] = sealed.split('.')
  const flipped = Buffer.from(body as string, 'base64url')
  flipped[0] = (flipped[0] as number) ^ 1
  t.throws(() => box.open([prefix, id, nonce, flipped.toString('base64url'), tag].join('.'), PURPOSE), { code: 'does_not_open' }, 'a changed byte')
  t.throws(() => box.open('whsec_plain', PURPOSE), { code: 'not_sealed' })
  const other = createSecretBox(randomBytes(32))
  const error = t.throws(() => other.open(sealed, PURPOSE)) as SecretBoxError
  t.equal(error.code, 'other_key')
  t.match(error.message, new RegExp(`sealed with key ${box.keyId}, and this server holds key ${other.keyId}`))
  t.throws(() => createSecretBox(randomBytes(16)), RangeError, 'a key is 32 bytes')
})

t.test('LEADLINE_SECRET_KEY: base64 or hex, the same key either way; anything else is refused', async (t) => {
  const key = randomBytes(32)
  const fromBase64 = openSecretBox('esdb://127.0.0.1:2113?tls=false', { LEADLINE_SECRET_KEY: key.toString('base64') })
  const fromHex = openSecretBox('sqlite:/nonexistent/never-made.db', { LEADLINE_SECRET_KEY: key.toString('hex') })
  const fromUrlSafe = openSecretBox('memory:', { LEADLINE_SECRET_KEY: key.toString('base64url') })
  t.equal(fromHex.keyId, fromBase64.keyId)
  t.equal(fromUrlSafe.keyId, fromBase64.keyId)
  t.equal(fromHex.open(fromBase64.seal(SECRET, PURPOSE), PURPOSE), SECRET)
  t.notOk(fs.existsSync('/nonexistent/never-made.secret-key'), 'no key file when the variable is set')
  for (const bad of ['short', randomBytes(16).toString('base64'), randomBytes(33).toString('hex'), `${key.toString('hex').slice(1)}g`]) {
    t.throws(() => openSecretBox('memory:', { LEADLINE_SECRET_KEY: bad }), ConfigError, bad)
  }
})

t.test('the embedded store: a key file made once beside the log, mode 0600, used by every later start', async (t) => {
  const dir = t.testdir()
  const store = `sqlite:${path.join(dir, 'data', 'leadline.db')}`
  const first = openSecretBox(store, {})
  const file = path.join(dir, 'data', 'leadline.secret-key')
  t.ok(fs.existsSync(file), 'made beside the log')
  t.equal(fs.statSync(file).mode & 0o777, 0o600, 'readable by its owner only')
  t.same(fs.readdirSync(path.join(dir, 'data')), ['leadline.secret-key'], 'no draft left behind')
  const again = openSecretBox(store, {})
  t.equal(again.keyId, first.keyId, 'the same key at the next start')
  t.equal(again.open(first.seal(SECRET, PURPOSE), PURPOSE), SECRET)
  fs.writeFileSync(file, 'not a key\n')
  t.throws(() => openSecretBox(store, {}), /does not hold a key/)
})

t.test('an EventStoreDB store without LEADLINE_SECRET_KEY stops at start, saying what to set', async (t) => {
  t.throws(() => openSecretBox('esdb://127.0.0.1:2113?tls=false', {}), SecretKeyMissingError)
  const err: string[] = []
  const code = await runCli(['account', 'list'], { out: () => {}, err: (s) => err.push(s), env: { LEADLINE_STORE: 'esdb://127.0.0.1:1?tls=false' } })
  t.not(code, 0)
  t.match(err.join('\n'), /LEADLINE_SECRET_KEY is required with the store "esdb".*openssl rand -base64 32/s)
})

t.test('the in-memory log of the tests gets a key of its own', async (t) => {
  const box = openSecretBox('memory:', {})
  t.equal(box.open(box.seal(SECRET, PURPOSE), PURPOSE), SECRET)
})

t.test('derive: one key per purpose, the same wherever the box holds the same key', async (t) => {
  const key = randomBytes(32)
  const here = createSecretBox(key)
  const there = createSecretBox(Buffer.from(key))
  t.equal(here.derive('oauth-cookies').length, 32)
  t.same(here.derive('oauth-cookies'), there.derive('oauth-cookies'), 'another node with the same key')
  t.not(here.derive('oauth-cookies').toString('hex'), here.derive('other').toString('hex'), 'another purpose')
  t.not(here.derive('oauth-cookies').toString('hex'), createSecretBox(randomBytes(32)).derive('oauth-cookies').toString('hex'), 'another key')
  t.not(here.derive('oauth-cookies').toString('hex'), key.toString('hex'), 'never the key itself')
})
