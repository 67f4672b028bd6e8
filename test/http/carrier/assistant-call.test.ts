/**
 * The assistant on the phone line, end to end: the REAL Twilio adapter against the fake Twilio, the
 * real route, and a ConversationRelay client double (`ws`, handshake signed with the SDK) talking to
 * the engine's scripted assistant. The answer's TwiML, the relay's messages, the `<Connect>` action
 * that dials the owner, a forged handshake, do-not-call mid-call, a dropped socket, the concurrency limit.
 */
import t from 'tap'
import type { Test } from 'tap'
import { twimlAttribute } from '../../doubles/fake-twilio.ts'
import { connectRelay } from '../../doubles/fake-conversation-relay.ts'
import { DIALING, PUBLIC_URL, dialingApp, fakeTwilio, leadEventTypes, leadEvents, placedCalls, postLead, waitForEvent } from '../../helpers/dialing-app.ts'

const XML = '<?xml version="1.0" encoding="UTF-8"?>'

async function relayApp(t: Test) {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake })
  const baseUrl = await built.listen()
  return { fake, ...built, baseUrl }
}

type RelayApp = Awaited<ReturnType<typeof relayApp>>

/** The log's length: a refused handshake must leave it as it was. */
async function logLength(s: RelayApp): Promise<number> {
  return (await s.leadline.store.readAll()).length
}

const relayPath = (decision: string) => `${PUBLIC_URL.replace(/^http/, 'ws')}/api/carrier/twilio/relay?decision=${decision}`

t.test('a forged, unsigned or decision-less handshake is refused with 403 before the upgrade, and records nothing', async (t) => {
  const s = await relayApp(t)
  const before = await logLength(s)
  const refused = {
    forged: { url: relayPath('dec_1'), forged: true },
    unsigned: { url: relayPath('dec_1'), unsigned: true },
    'no decision': { url: `${PUBLIC_URL.replace(/^http/, 'ws')}/api/carrier/twilio/relay` },
    'signed over http:// instead of the ws:// URL Twilio was given': { url: relayPath('dec_1').replace(/^ws/, 'http') },
  }
  for (const [what, options] of Object.entries(refused)) {
    const status = await connectRelay({ via: s.baseUrl, authToken: s.fake.authToken, ...options }).then(() => 'opened', (e: { status?: number }) => e.status)
    t.equal(status, 403, what)
  }
  t.equal(await logLength(s), before, 'nothing recorded')

  const plain = await s.app.inject({ method: 'GET', url: '/api/carrier/twilio/relay?decision=dec_1' })
  t.equal(plain.statusCode, 404, 'a plain GET is not a relay')
  const simulated = await connectRelay({ url: relayPath('dec_1').replace('/twilio/', '/simulated/'), via: s.baseUrl, authToken: s.fake.authToken }).then(() => 'opened', (e: { status?: number }) => e.status)
  t.equal(simulated, 404, 'only the open carrier has a relay')
})

t.test('a signed socket for a decision Leadline does not know is ended at setup with a goodbye', async (t) => {
  const s = await relayApp(t)
  const relay = await connectRelay({ url: relayPath('dec_unknown'), via: s.baseUrl, authToken: s.fake.authToken })
  relay.setup('CA0123')
  t.same(await relay.ended(), { reason: 'refused', goodbye: 'Sorry, this call cannot continue. Goodbye.' })
  relay.close()
  t.equal(await relay.closed, 1000)
})

export { XML, leadEventTypes, leadEvents, placedCalls, postLead, twimlAttribute, waitForEvent, DIALING }
