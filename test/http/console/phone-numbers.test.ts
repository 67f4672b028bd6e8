/**
 * Setup → Phone numbers (issue #43) through `inject` with a signed-in owner: with Twilio (the official
 * SDK against the fake Twilio) the account's numbers are listed, a search shows numbers for sale with
 * their monthly price, a purchase waits behind a confirm page and happens once, and "Use for this
 * account" sets the webhooks and says what it changed; the simulated carrier shows the same pages.
 */
import t from 'tap'
import { buildApp } from '../../helpers/build-app.ts'
import { startFakeTwilio, twilioEnv } from '../../doubles/fake-twilio.ts'
import { signedInConsole, TEST_ENV } from './console-helpers.ts'

const OWNED = '+13125550100'
const FOR_SALE = '+13125550181'

t.test('with Twilio: list, search, confirm, buy once, use, and what it changed', async (t) => {
  const fake = await startFakeTwilio({ incomingNumbers: [OWNED] })
  t.teardown(() => fake.close())
  const app = await buildApp(t, { env: { ...TEST_ENV, ...twilioEnv(fake) }, publicUrl: 'https://leads.example.com' })
  const f = await signedInConsole(t, { app })

  const page = await f.browser.get('/app/setup/phone-numbers')
  t.equal(page.statusCode, 200)
  t.match(page.body, /<a href="\/app\/setup\/phone-numbers" aria-current="page"><span class="section">Setup → <\/span>Phone numbers<\/a>/, 'in the navigation, under Setup')
  t.match(page.body, /<tr data-number="\+13125550100">[\s\S]*not in use[\s\S]*not set[\s\S]*Use for this account/, "the Twilio account's number, not in use yet")
  t.notMatch(page.body, /Simulated carrier/)

  const search = await f.browser.get('/app/setup/phone-numbers?area_code=312&zip=&state=&near=')
  t.equal(search.statusCode, 200)
  t.match(search.body, /<tr data-available="\+13125550181">[\s\S]*Chicago, IL, 60601[\s\S]*1\.15 USD[\s\S]*<a href="\/app\/setup\/phone-numbers\/buy\?number=%2B13125550181">Buy…<\/a>/)
  const bad = await f.browser.get('/app/setup/phone-numbers?area_code=12')
  t.equal(bad.statusCode, 400)
  t.match(bad.body, /role="alert" id="numbers-error">area code &#34;12&#34;: three digits/)

  const confirm = await f.browser.get(`/app/setup/phone-numbers/buy?number=${encodeURIComponent(FOR_SALE)}`)
  t.equal(confirm.statusCode, 200)
  t.match(confirm.body, /Buy <code>\+13125550181<\/code>\?[\s\S]*Monthly price: <strong>1\.15 USD a month<\/strong>[\s\S]*<form method="post" action="\/app\/setup\/phone-numbers\/buy"/, 'the confirm step, with the price')
  t.same(fake.numbers.purchases(), [], 'nothing bought by looking')

  const forged = await f.browser.post('/app/setup/phone-numbers/buy', { number: FOR_SALE, _csrf: 'forged' })
  t.equal(forged.statusCode, 403, 'no purchase without the form\'s token')
  const bought = await f.browser.post('/app/setup/phone-numbers/buy', { number: FOR_SALE })
  t.equal(bought.statusCode, 201)
  t.match(bought.body, /Bought <code>\+13125550181<\/code>[\s\S]*for 1\.15 USD a month/)
  const twice = await f.browser.post('/app/setup/phone-numbers/buy', { number: FOR_SALE })
  t.match(twice.body, /Bought <code>\+13125550181<\/code>/, 'a second click answers the same purchase')
  t.same(fake.numbers.purchases(), [FOR_SALE], 'bought once')

  const used = await f.browser.post('/app/setup/phone-numbers/use', { number: FOR_SALE })
  t.equal(used.statusCode, 200)
  t.match(used.body, /What changed for <code>\+13125550181<\/code>/)
  t.match(used.body, /Voice URL: <code>https:\/\/leads\.example\.com\/api\/carrier\/twilio\/voice<\/code> \(POST; was not set\)/)
  t.match(used.body, /Voice status callback: <code>https:\/\/leads\.example\.com\/api\/carrier\/twilio\/voice-status<\/code>/)
  t.match(used.body, /SMS URL: <code>https:\/\/leads\.example\.com\/api\/carrier\/twilio\/sms<\/code>/)
  t.match(used.body, /Caller ID: now <code>\+13125550181<\/code> \(the account had no caller ID\)/)
  t.match(fake.numbers.updates()[0]?.form, { VoiceUrl: 'https://leads.example.com/api/carrier/twilio/voice', SmsUrl: 'https://leads.example.com/api/carrier/twilio/sms', StatusCallback: 'https://leads.example.com/api/carrier/twilio/voice-status' })
  t.match(used.body, /<tr data-number="\+13125550181">[\s\S]*caller ID[\s\S]*in use for this account[\s\S]*point at Leadline/, 'the list shows it in use')
  t.equal((await app.leadline.accounts.require(f.accountId)).settings.callerId, FOR_SALE)

  // Another account's owner: the number is refused on the page, nothing changed.
  const other = await signedInConsole(t, { app, email: 'other@example.com' })
  const refused = await other.browser.post('/app/setup/phone-numbers/use', { number: FOR_SALE })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /role="alert" id="numbers-error">the number \+13125550181 was bought by another account/)
  t.match((await other.browser.get('/app/setup/phone-numbers')).body, /<tr data-number="\+13125550181">[\s\S]*used by another account/)
  t.equal(fake.numbers.updates().length, 1)
})

t.test('the simulated carrier shows the same pages, labelled simulated', async (t) => {
  const f = await signedInConsole(t)
  const page = await f.browser.get('/app/setup/phone-numbers')
  t.match(page.body, /Simulated carrier: these are fictional numbers/)
  t.match(page.body, /No simulated number bought yet/)
  const search = await f.browser.get('/app/setup/phone-numbers?area_code=415')
  const number = /data-available="(\+141555501\d\d)"/.exec(search.body)?.[1] as string
  t.ok(number, 'a fictional 555-01xx number for sale')
  t.match(search.body, /Simulated numbers for sale/)
  const confirm = await f.browser.get(`/app/setup/phone-numbers/buy?number=${encodeURIComponent(number)}`)
  t.match(confirm.body, /simulated: nothing is charged, nothing rings[\s\S]*Monthly price: <strong>not given by the carrier<\/strong>/)
  t.equal((await f.browser.post('/app/setup/phone-numbers/buy', { number })).statusCode, 201)
  const used = await f.browser.post('/app/setup/phone-numbers/use', { number })
  t.match(used.body, /No webhook to set: the simulated carrier plays calls and texts inside Leadline/)
  t.match(used.body, new RegExp(`<tr data-number="\\${number}">[\\s\\S]*in use for this account[\\s\\S]*none to set \\(simulated\\)`))
  const refused = await f.browser.post('/app/setup/phone-numbers/buy', { number: '+14155559999' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /was not bought: simulated: \+14155559999 is not in the simulated inventory/)
})

t.test('signed out: off to sign in', async (t) => {
  const f = await signedInConsole(t, { signIn: false })
  const page = await f.browser.get('/app/setup/phone-numbers')
  t.equal(page.statusCode, 303)
  t.equal(page.headers.location, '/app/sign-in?next=%2Fapp%2Fsetup%2Fphone-numbers')
})
