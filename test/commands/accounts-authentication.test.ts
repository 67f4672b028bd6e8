/**
 * Authentication is cached, and still exact: a token rotated through another connection to the
 * same files (the CLI is another process) fails on the very next request, and requests that arrive
 * together share one look at the account's stream.
 */
import t from 'tap'
import { openLeadline } from '../../src/leadline.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'

t.test('a token rotated elsewhere fails at once; the new one works at once', async (t) => {
  const built = await buildApp(t, { store: 'sqlite' })
  const { account, token } = await built.createAccount('Auth Co')
  const accounts = built.leadline.accounts
  t.ok(await accounts.authenticateWebhookToken(token), 'the issued token works')
  t.ok(await accounts.authenticateWebhookToken(token), 'and again, from the cache')

  const elsewhere = await openLeadline({ store: built.store, viewsPath: built.viewsPath })
  t.teardown(() => elsewhere.close())
  const rotated = await elsewhere.accounts.rotateWebhookToken(account.accountId, operatorContext)
  t.equal(await accounts.authenticateWebhookToken(token), null, 'the old token fails on the next request')
  t.match(await accounts.authenticateWebhookToken(rotated.secret), { tokenId: rotated.id }, 'the new one works on the next request')

  await elsewhere.accounts.changeSettings(account.accountId, { timeZone: 'Europe/Berlin' }, operatorContext)
  t.equal((await accounts.authenticateWebhookToken(rotated.secret))?.account.settings.timeZone, 'Europe/Berlin', 'settings changed elsewhere show at once')
  t.equal(await accounts.authenticateWebhookToken('llwh_unknown'), null)
})

t.test('requests that arrive together share one check of the account', async (t) => {
  const built = await buildApp(t, { store: 'sqlite' })
  const { account, token } = await built.createAccount('Busy Co')
  const store = built.leadline.store
  const read = store.readStream.bind(store)
  const revisionOf = store.streamRevision.bind(store)
  let reads = 0
  let looks = 0
  store.readStream = (...args) => {
    reads++
    return read(...args)
  }
  store.streamRevision = (stream) => {
    looks++
    return revisionOf(stream)
  }
  t.teardown(() => {
    store.readStream = read
    store.streamRevision = revisionOf
  })
  t.ok(await built.leadline.accounts.authenticateWebhookToken(token))
  // Something was appended since the account was last checked: the next requests must look again.
  await store.appendToStream('unrelated-1', [{ type: 'Unrelated', data: {}, metadata: { correlationId: 'c', causationId: null, actor: { kind: 'operator', id: 'test' }, schemaVersion: 1 } }], 'no_stream')
  reads = 0
  looks = 0
  const principals = await Promise.all(Array.from({ length: 50 }, () => built.leadline.accounts.authenticateWebhookToken(token)))
  t.ok(principals.every((p) => p !== null))
  t.equal(looks, 1, `one look at the account stream's revision for 50 requests (${looks})`)
  t.equal(reads, 0, `and no event read: the account has not moved (${reads})`)

  // The account itself moved: one look, and one read of its stream, for all of them.
  await built.leadline.accounts.changeSettings(account.accountId, { timeZone: 'Europe/Berlin' }, { actor: { kind: 'operator', id: 'test' } })
  reads = 0
  looks = 0
  const again = await Promise.all(Array.from({ length: 50 }, () => built.leadline.accounts.authenticateWebhookToken(token)))
  t.ok(again.every((p) => p?.account.settings.timeZone === 'Europe/Berlin'), 'every request sees the new settings')
  t.equal(looks, 1, `one look for 50 requests (${looks})`)
  t.equal(reads, 1, `one read of the moved stream for 50 requests (${reads})`)
})
