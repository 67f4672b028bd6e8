/**
 * The Twilio adapter, and its SDK, load only where Twilio is the carrier: a server, a command or a
 * test on the simulated carrier never loads them. A file of its own, so nothing earlier in the process
 * has. (The twilio SDK is CommonJS, so `require.cache` shows it; Stripe's, loaded the same way by
 * open-payments.ts, is an ES module, which Node offers no list of.)
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import t from 'tap'
import { buildApp } from '../helpers/build-app.ts'
import { CARRIER_SECRET_HEADERS, openCarrier } from '../../src/integrations/carrier/open-carrier.ts'

const twilioSdk = `${path.sep}node_modules${path.sep}twilio${path.sep}`
const twilioLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes(twilioSdk))

t.test('a Leadline and its HTTP app on the simulated carrier and payments never load the Twilio SDK; with TWILIO_* set, the carrier is Twilio\'s', async (t) => {
  const app = await buildApp(t)
  t.equal(app.leadline.carrier.name, 'simulated')
  t.equal(app.leadline.paymentsProvider.name, 'simulated')
  t.equal((await app.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
  t.notOk(twilioLoaded(), 'not loaded by the simulated carrier, the app or its routes')

  // The fake Twilio is made with the SDK too: loaded only now.
  const { startFakeTwilio } = await import('../doubles/fake-twilio.ts')
  const fake = await startFakeTwilio()
  const carrier = await openCarrier({ TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_API_URL: fake.url })
  t.teardown(async () => {
    await carrier.close?.()
    await fake.close()
  })
  t.equal(carrier.name, 'twilio', 'the adapter, loaded once Twilio is the carrier')

  // Written out in the registration so that it need not load the adapter: the same header the adapter checks.
  const { TWILIO_SIGNATURE_HEADER } = await import('../../src/integrations/carrier/twilio/index.ts')
  t.ok(CARRIER_SECRET_HEADERS.includes(TWILIO_SIGNATURE_HEADER.toLowerCase()), 'the request log redacts the header the adapter checks')
})
