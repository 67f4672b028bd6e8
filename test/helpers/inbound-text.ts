/** A text a person sends to an account's number, posted as Twilio's messaging webhook signed by the official SDK. */
import type { FastifyInstance } from 'fastify'
import twilio from 'twilio'
import { FAKE_ACCOUNT_SID, type FakeTwilio } from '../doubles/fake-twilio.ts'
import { CALLER_ID, PUBLIC_URL } from './dialing-app.ts'

let sid = 0

/** Posts `body` from `from` to `to` (the account's caller ID by default); answers the webhook's status. */
export async function inboundText(app: FastifyInstance, fake: FakeTwilio, body: string, options: { from: string; to?: string; messageSid?: string }): Promise<number> {
  const messageSid = options.messageSid ?? `SM${String(++sid).padStart(32, '0')}`
  const params: Record<string, string> = {
    MessageSid: messageSid, SmsMessageSid: messageSid, SmsSid: messageSid, AccountSid: FAKE_ACCOUNT_SID, From: options.from, To: options.to ?? CALLER_ID,
    Body: body, NumMedia: '0', NumSegments: '1', SmsStatus: 'received', ApiVersion: '2010-04-01',
  }
  const signature = twilio.getExpectedTwilioSignature(fake.authToken, `${PUBLIC_URL}/api/carrier/twilio/sms`, params)
  const response = await app.inject({
    method: 'POST', url: '/api/carrier/twilio/sms', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, payload: new URLSearchParams(params).toString(),
  })
  return response.statusCode
}
