/**
 * A person calling an account's number, as Twilio would: each webhook of the call (the voice URL, its
 * steps, its status) form-encoded and signed by the official SDK over the public URL, through `inject`.
 */
import type { FastifyInstance } from 'fastify'
import twilio from 'twilio'
import { FAKE_ACCOUNT_SID } from '../doubles/fake-twilio.ts'
import { CALLER_ID, PUBLIC_URL } from './dialing-app.ts'

let sid = 0

/** A fresh CallSid, as Twilio makes them. */
export function newCallSid(): string {
  return `CA${String(++sid).padStart(32, '0')}`
}

export interface Posted {
  readonly status: number
  readonly body: string
}

/** Posts `params` to `/api/carrier/twilio/<path>` (with its query), signed with `authToken` (a forged one when asked). */
export async function postTwilio(app: FastifyInstance, authToken: string, path: string, params: Record<string, string>, forged = false): Promise<Posted> {
  const url = `/api/carrier/twilio/${path}`
  const signature = twilio.getExpectedTwilioSignature(forged ? `${authToken}-forged` : authToken, `${PUBLIC_URL}${url}`, params)
  const response = await app.inject({
    method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, payload: new URLSearchParams(params).toString(),
  })
  return { status: response.statusCode, body: response.body }
}

/** The voice webhook of a call from `from` to `to` (the account's number by default). */
export function voiceParams(callSid: string, from: string, to = CALLER_ID): Record<string, string> {
  return { CallSid: callSid, AccountSid: FAKE_ACCOUNT_SID, From: from, To: to, CallStatus: 'ringing', Direction: 'inbound', ApiVersion: '2010-04-01', Caller: from, Called: to }
}

/** The path and query of the first URL in `twiml` whose path ends in `/<hook>` (the signed URL Twilio would call). */
export function hookPath(twiml: string, hook: string): string {
  const match = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}/api/carrier/twilio/(${hook}\\?[^"<]*)`).exec(twiml)
  if (!match) throw new Error(`no ${hook} URL in ${twiml}`)
  return (match[1] as string).replace(/&amp;/g, '&')
}
