/**
 * The webhook's rate limit per token: a burst, then a sustained rate; over it, 429 with Retry-After
 * and a JSON error, and nothing recorded. Keyed by the verified token, so another account's token
 * and a wrong token neither use up nor are limited by this one's bucket.
 */
import t from 'tap'
import { buildApp } from '../helpers/build-app.ts'
import { DEFAULT_WEBHOOK_RATE_LIMIT } from '../../src/config/config.ts'

const post = (app: Awaited<ReturnType<typeof buildApp>>['app'], token: string, phone: string) =>
  app.inject({
    method: 'POST',
    url: '/api/ingest/lead',
    headers: { 'x-service-token': token, 'content-type': 'application/json' },
    payload: JSON.stringify({ phone }),
  })

t.test('a burst, then 429 with Retry-After and a JSON error; other tokens are unaffected; it refills', async (t) => {
  const built = await buildApp(t, { start: false, webhookRateLimit: { ratePerSecond: 0.5, burst: 5 } })
  const { account, token } = await built.createAccount('Acme')
  const other = await built.createAccount('Other')
  // All at once, as a burst arrives, and a slow refill (a lead every 2 s): one after the other, a busy
  // machine's slow answers would let the bucket refill between them.
  const phones = Array.from({ length: 6 }, (_, i) => `31255501${10 + i}`)
  const answers = await Promise.all(phones.map((phone) => post(built.app, token, phone)))
  t.same(answers.map((a) => a.statusCode).sort(), [201, 201, 201, 201, 201, 429], 'the burst of 5 goes through; the sixth is limited')
  const limitedAt = answers.findIndex((a) => a.statusCode === 429)
  const limited = answers[limitedAt] as (typeof answers)[number]
  t.equal(limited.headers['retry-after'], '2', 'Retry-After in whole seconds')
  t.match(limited.headers['content-type'], /^application\/json/)
  t.same(limited.json(), { error: 'rate limited', detail: 'at most 0.5 leads per second per webhook token (bursts of 5); retry in 2 s' })
  t.same(await built.leadline.store.readStream(`lead-${account.accountId}-${phones[limitedAt]}`), [], 'nothing recorded')

  t.equal((await post(built.app, other.token, '3125550199')).statusCode, 201, "another account's token has its own bucket")
  const wrong = await post(built.app, 'llwh_0000000000000000000000000000000', '3125550199')
  t.equal(wrong.statusCode, 401, 'a wrong token is refused as such, before the limit')

  await new Promise((resolve) => setTimeout(resolve, 2100))
  t.equal((await post(built.app, token, '3125550199')).statusCode, 201, 'after two seconds per lead, the bucket has refilled')
})

t.test('the documented default, and off', async (t) => {
  t.same(DEFAULT_WEBHOOK_RATE_LIMIT, { ratePerSecond: 50, burst: 200 })
  const built = await buildApp(t, { start: false })
  const { token } = await built.createAccount('Acme')
  // 300 at once: the bucket refills 50 a second while they are answered, more of them on a busy machine,
  // so the count is a range: the burst goes through, and before all 300 are through the limit answers.
  const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => post(built.app, token, `512555${String(i).padStart(4, '0')}`)))
  const statuses = answers.map((a) => a.statusCode)
  t.ok(statuses.filter((s) => s === 201).length >= 200, 'a burst of 200 by default')
  t.ok(statuses.filter((s) => s === 429).length >= 1, 'then the limit')

  const off = await buildApp(t, { start: false, webhookRateLimit: null })
  const offAccount = await off.createAccount('Acme')
  const many = await Promise.all(Array.from({ length: 250 }, (_, i) => post(off.app, offAccount.token, `512556${String(i).padStart(4, '0')}`)))
  t.ok(many.every((a) => a.statusCode === 201), 'LEADLINE_WEBHOOK_RATE=off: no limit')
})
