/**
 * Warming the Twilio adapter at start (Leadline's `start` does): the SDK's calls resource is loaded
 * before the first call needs it, and nothing reaches Twilio. A file of its own, so no earlier call
 * in the same process has loaded it already.
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import t from 'tap'
import { createTwilioCarrier } from '../../../src/integrations/carrier/twilio/twilio-carrier.adapter.ts'
import { startFakeTwilio } from '../../doubles/fake-twilio.ts'

const callResource = path.join('twilio', 'lib', 'rest', 'api', 'v2010', 'account', 'call.js')
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.endsWith(callResource))

t.test('warm loads the SDK calls resource and sends nothing; the call after it goes out as usual', async (t) => {
  const fake = await startFakeTwilio()
  const carrier = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, apiUrl: fake.url })
  t.teardown(async () => {
    await carrier.close()
    await fake.close()
  })
  t.notOk(loaded(), 'not loaded before')
  carrier.warm()
  t.ok(loaded(), 'loaded by warm')
  t.equal(fake.requests().length, 0, 'nothing sent to Twilio')
  const placed = await carrier.placeCall({ from: '+13125550100', to: '+13125550142', answerUrl: 'http://leadline.test/a', statusCallbackUrl: 'http://leadline.test/s', reference: 'dec_1' })
  t.match(placed, { carrier: 'twilio', callId: /^CA/ })
  t.equal(fake.callRequests().length, 1)
})
