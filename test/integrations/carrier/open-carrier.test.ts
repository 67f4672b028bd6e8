/**
 * Choosing the carrier from the environment.
 */
import t from 'tap'
import type { Test } from 'tap'
import { ConfigError } from '../../../src/config/config.ts'
import type { CallReports, CallStatusUpdate, Carrier } from '../../../src/integrations/carrier/carrier.port.ts'
import { SIMULATED_BANNER, openCarrier, type CarrierLogger } from '../../../src/integrations/carrier/open-carrier.ts'
import { startFakeTwilio } from '../../doubles/fake-twilio.ts'
import { CALL } from './carrier.contract.ts'

const SID = `AC${'0123456789abcdef'.repeat(2)}`
const TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'

function recordingLogger(): CarrierLogger & { lines: Array<[Record<string, unknown>, string]> } {
  const lines: Array<[Record<string, unknown>, string]> = []
  return { lines, info: (fields, message) => void lines.push([fields, message]) }
}

function problems(fn: () => unknown): string[] {
  try {
    fn()
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('expected a ConfigError')
}

/** Call reports that hand each status to `onStatus` and know no other call. */
function reportsTo(onStatus: (update: CallStatusUpdate) => void): CallReports {
  return {
    recordCallStatus: async (update) => {
      onStatus(update)
      return true
    },
    recordAnsweredBy: async () => false,
    answeredCall: async () => null,
    pressMenuKey: async () => null,
    pressAgentKey: async () => null,
    recordLeadDial: async () => false,
    recordOwnerConnect: async () => false,
  }
}

async function closing(t: Test, carrier: Carrier): Promise<Carrier> {
  t.teardown(() => carrier.close?.())
  return carrier
}

t.test('no Twilio credentials: the simulated carrier, announced as such', async (t) => {
  const log = recordingLogger()
  const carrier = await closing(t, openCarrier({ TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '  ' }, reportsTo(() => {}), log))
  t.equal(carrier.name, 'simulated')
  t.same(log.lines, [[{ carrier: 'simulated', outcome: 'answered', delayMs: 1500 }, SIMULATED_BANNER]])
  t.equal(SIMULATED_BANNER, 'carrier: simulated — no calls or texts reach real phones')
})

t.test('the simulated outcome and delay come from the environment', async (t) => {
  const updates: CallStatusUpdate[] = []
  const carrier = await closing(
    t,
    openCarrier({ LEADLINE_SIMULATED_OUTCOME: 'busy', LEADLINE_SIMULATED_DELAY_MS: '5' }, reportsTo((u) => void updates.push(u))),
  )
  await carrier.placeCall(CALL)
  const deadline = Date.now() + 2000
  while (updates.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  t.same(
    updates.map((u) => u.status),
    ['ringing', 'busy'],
  )
})

t.test('a failing status handler is logged through logger.error', async (t) => {
  const errors: Array<[Record<string, unknown>, string]> = []
  const logger: CarrierLogger = { info: () => {}, error: (fields, message) => void errors.push([fields, message]) }
  const carrier = await closing(
    t,
    openCarrier(
      { LEADLINE_SIMULATED_OUTCOME: 'no-answer', LEADLINE_SIMULATED_DELAY_MS: '0' },
      reportsTo(() => {
        throw new Error('nope')
      }),
      logger,
    ),
  )
  const { callId } = await carrier.placeCall(CALL)
  const deadline = Date.now() + 2000
  while (errors.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  t.match(errors, [
    [{ carrier: 'simulated', callId, status: 'ringing', err: { message: 'nope' } }, 'simulated call status was not handled'],
    [{ callId, status: 'no-answer' }, String],
  ])
})

t.test('Twilio credentials: the Twilio carrier, reaching TWILIO_API_URL through the SDK', async (t) => {
  const fake = await startFakeTwilio({ accountSid: SID, authToken: TOKEN })
  t.teardown(() => fake.close())
  const log = recordingLogger()
  const carrier = await closing(
    t,
    openCarrier({ TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_API_URL: `${fake.url}/` }, reportsTo(() => {}), log),
  )
  t.equal(carrier.name, 'twilio')
  const placed = await carrier.placeCall(CALL)
  t.equal(placed.callId, fake.callRequests()[0]?.sid)
  t.same(log.lines, [[{ carrier: 'twilio', accountSid: SID, apiUrl: fake.url }, `carrier: twilio via ${fake.url}`]])
  t.notMatch(JSON.stringify(log.lines), TOKEN, 'the auth token is never logged')
})

t.test('without TWILIO_API_URL the log names api.twilio.com', async (t) => {
  const log = recordingLogger()
  const carrier = await closing(t, openCarrier({ TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN }, reportsTo(() => {}), log))
  t.equal(carrier.name, 'twilio')
  t.same(log.lines, [[{ carrier: 'twilio', accountSid: SID, apiUrl: 'https://api.twilio.com' }, 'carrier: twilio']])
})

t.test('bad configuration stops with clear messages', async (t) => {
  t.same(problems(() => openCarrier({ TWILIO_ACCOUNT_SID: SID }, reportsTo(() => {}))), [
    'TWILIO_AUTH_TOKEN: set both TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN for Twilio, or neither for the simulated carrier',
  ])
  t.same(problems(() => openCarrier({ TWILIO_AUTH_TOKEN: TOKEN }, reportsTo(() => {}))), [
    'TWILIO_ACCOUNT_SID: set both TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN for Twilio, or neither for the simulated carrier',
  ])
  t.same(problems(() => openCarrier({ TWILIO_ACCOUNT_SID: 'SK123', TWILIO_AUTH_TOKEN: TOKEN }, reportsTo(() => {}))), [
    'TWILIO_ACCOUNT_SID: must be a Twilio Account SID: AC followed by 32 hex characters',
  ])
  t.same(problems(() => openCarrier({ TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_API_URL: 'ftp://x.example' }, reportsTo(() => {}))), [
    'TWILIO_API_URL: must be an http(s) URL',
  ])
  t.same(problems(() => openCarrier({ TWILIO_API_URL: 'http://127.0.0.1:4010' }, reportsTo(() => {}))), [
    'TWILIO_API_URL: is only used with Twilio: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN too, or unset it',
  ])
  t.same(problems(() => openCarrier({ LEADLINE_SIMULATED_OUTCOME: 'voicemail' }, reportsTo(() => {}))), [
    'LEADLINE_SIMULATED_OUTCOME: must be one of answered, no-answer, busy, cycle',
  ])
  t.same(problems(() => openCarrier({ LEADLINE_SIMULATED_DELAY_MS: 'soon' }, reportsTo(() => {}))), [
    'LEADLINE_SIMULATED_DELAY_MS: must be a number of milliseconds',
  ])
  t.same(problems(() => openCarrier({ LEADLINE_SIMULATED_DELAY_MS: '-5' }, reportsTo(() => {}))), ['LEADLINE_SIMULATED_DELAY_MS: must be 0 or more'])
  t.match(problems(() => openCarrier({ LEADLINE_SIMULATED_DELAY_MS: '1.5' }, reportsTo(() => {}))), [/whole number/])
})
