/**
 * Status callbacks: `X-Twilio-Signature` verification (over a real socket, signed by the fake Twilio
 * with the SDK) and reading the callback's fields.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { Test } from 'tap'
import {
  parseTwilioStatusCallback,
  verifyTwilioSignature,
  type TwilioParams,
} from '../../../src/integrations/carrier/twilio/twilio-callbacks.ts'
import { rfc2822, startFakeTwilio, statusCallbackParams, type FakeTwilio } from '../../doubles/fake-twilio.ts'

const CALL_SID = `CA${'9f'.repeat(16)}`

/** A stand-in for Leadline's callback route: 204 when the signature holds for PUBLIC_URL + path, else 403. */
async function receiver(t: Test, authToken: string): Promise<{ publicUrl: string; received: TwilioParams[] }> {
  const received: TwilioParams[] = []
  let publicUrl = ''
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
      const params: TwilioParams = {}
      for (const key of new Set(form.keys())) {
        const values = form.getAll(key)
        params[key] = values.length === 1 ? values[0] : values
      }
      const header = req.headers['x-twilio-signature']
      const ok = verifyTwilioSignature(authToken, typeof header === 'string' ? header : undefined, `${publicUrl}${req.url}`, params)
      if (ok) received.push(params)
      res.writeHead(ok ? 204 : 403).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { publicUrl, received }
}

async function fake(t: Test): Promise<FakeTwilio> {
  const f = await startFakeTwilio()
  t.teardown(() => f.close())
  return f
}

t.test('signature verification', async (t) => {
  t.test('a correctly signed callback is accepted, with its query string', async (t) => {
    const twilio = await fake(t)
    const { publicUrl, received } = await receiver(t, twilio.authToken)
    const params = statusCallbackParams({ callSid: CALL_SID, status: 'ringing', sequenceNumber: 1 })
    const result = await twilio.postStatusCallback(`${publicUrl}/api/carrier/twilio/status?call=dec_1`, params)
    t.equal(result.status, 204)
    t.same(received, [params])
  })

  t.test('a forged signature is refused', async (t) => {
    const twilio = await fake(t)
    const { publicUrl, received } = await receiver(t, twilio.authToken)
    const params = statusCallbackParams({ callSid: CALL_SID, status: 'completed' })
    const result = await twilio.postStatusCallback(`${publicUrl}/api/carrier/twilio/status`, params, { forged: true })
    t.equal(result.status, 403)
    t.same(received, [])
  })

  t.test('a signature made for another URL is refused', async (t) => {
    const twilio = await fake(t)
    const { publicUrl, received } = await receiver(t, twilio.authToken)
    const params = statusCallbackParams({ callSid: CALL_SID, status: 'completed' })
    const result = await twilio.postStatusCallback(`${publicUrl}/api/carrier/twilio/status?call=dec_1`, params, {
      signedUrl: `${publicUrl}/api/carrier/twilio/status?call=dec_2`,
    })
    t.equal(result.status, 403)
    t.same(received, [])
  })

  t.test('changed fields, a missing header, or the wrong token fail', async (t) => {
    const twilio = await fake(t)
    const { publicUrl } = await receiver(t, twilio.authToken)
    const url = `${publicUrl}/api/carrier/twilio/status`
    const params = statusCallbackParams({ callSid: CALL_SID, status: 'no-answer' })
    const { signature } = await twilio.postStatusCallback(url, params)
    t.equal(verifyTwilioSignature(twilio.authToken, signature, url, params), true, 'the genuine one holds')
    t.equal(verifyTwilioSignature(twilio.authToken, signature, url, { ...params, CallStatus: 'completed' }), false, 'tampered status')
    t.equal(verifyTwilioSignature(twilio.authToken, undefined, url, params), false, 'no header')
    t.equal(verifyTwilioSignature(twilio.authToken, '', url, params), false, 'empty header')
    t.equal(verifyTwilioSignature('another-token', signature, url, params), false, 'another account')
    t.equal(verifyTwilioSignature(twilio.authToken, signature, 'not a url', params), false, 'unusable URL')
  })
})

t.test('parseTwilioStatusCallback', async (t) => {
  t.test('reads a completed call with every field', async (t) => {
    const at = new Date('2026-03-02T15:04:05Z')
    const params = statusCallbackParams({
      callSid: CALL_SID,
      status: 'completed',
      sequenceNumber: 3,
      timestamp: at,
      extra: {
        AnsweredBy: 'human',
        CallDuration: '47',
        RecordingUrl: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1',
        TranscriptionText: 'Hi, I need a quote for a water heater.',
      },
    })
    t.equal(params.Timestamp, 'Mon, 02 Mar 2026 15:04:05 +0000', 'Twilio’s RFC 2822 stamp')
    t.same(parseTwilioStatusCallback(params), {
      callId: CALL_SID,
      status: 'completed',
      answeredBy: 'human',
      durationSeconds: 47,
      recordingUrl: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1',
      transcript: 'Hi, I need a quote for a water heater.',
      sequenceNumber: 3,
      timestamp: '2026-03-02T15:04:05.000Z',
      carrier: 'twilio',
    })
  })

  t.test('an early update carries only what Twilio sent', async (t) => {
    const params = statusCallbackParams({ callSid: CALL_SID, status: 'ringing', sequenceNumber: 1, timestamp: new Date('2026-03-02T15:04:00Z') })
    t.same(parseTwilioStatusCallback(params), {
      callId: CALL_SID,
      status: 'ringing',
      sequenceNumber: 1,
      timestamp: '2026-03-02T15:04:00.000Z',
      carrier: 'twilio',
    })
  })

  t.test('every Twilio call status is understood', async (t) => {
    for (const status of ['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled']) {
      t.equal(parseTwilioStatusCallback({ CallSid: CALL_SID, CallStatus: status, Timestamp: rfc2822(new Date()) })?.status, status)
    }
  })

  t.test('a missing or unreadable Timestamp falls back to the receive time', async (t) => {
    const receivedAt = new Date('2026-03-02T16:00:00Z')
    t.equal(parseTwilioStatusCallback({ CallSid: CALL_SID, CallStatus: 'busy' }, receivedAt)?.timestamp, '2026-03-02T16:00:00.000Z')
    t.equal(
      parseTwilioStatusCallback({ CallSid: CALL_SID, CallStatus: 'busy', Timestamp: 'yesterday-ish' }, receivedAt)?.timestamp,
      '2026-03-02T16:00:00.000Z',
    )
  })

  t.test('malformed numbers are left out rather than guessed', async (t) => {
    const update = parseTwilioStatusCallback({ CallSid: CALL_SID, CallStatus: 'completed', CallDuration: '4.5', SequenceNumber: '-1', AnsweredBy: '  ' })
    t.notOk(update && 'durationSeconds' in update)
    t.notOk(update && 'sequenceNumber' in update)
    t.notOk(update && 'answeredBy' in update)
  })

  t.test('repeated fields take the first value', async (t) => {
    t.equal(parseTwilioStatusCallback({ CallSid: [CALL_SID, 'CAother'], CallStatus: ['completed', 'busy'] })?.status, 'completed')
  })

  t.test('not a call status callback → null', async (t) => {
    t.equal(parseTwilioStatusCallback({ CallStatus: 'completed' }), null, 'no CallSid')
    t.equal(parseTwilioStatusCallback({ CallSid: CALL_SID }), null, 'no CallStatus')
    t.equal(parseTwilioStatusCallback({ CallSid: CALL_SID, CallStatus: 'answered' }), null, 'an event name is not a status')
    t.equal(parseTwilioStatusCallback({ MessageSid: 'SM1', MessageStatus: 'delivered' }), null, 'a message callback')
  })
})
