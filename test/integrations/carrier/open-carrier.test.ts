/**
 * Choosing the carrier from the environment.
 */
import t from 'tap'
import type { Test } from 'tap'
import { ConfigError } from '../../../src/config/config.ts'
import type { CallReports, CallStatusUpdate, Carrier } from '../../../src/integrations/carrier/carrier.port.ts'
import { SIMULATED_BANNER, openCarrier, type CarrierLogger } from '../../../src/integrations/carrier/open-carrier.ts'
import { DEFAULT_SIMULATED_SEED, type SimulatedCarrier } from '../../../src/integrations/carrier/simulated/index.ts'
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
    recordInboundText: async () => false,
    recordTextStatus: async () => false,
    prepareAssistant: async () => null,
    openAssistant: async () => null,
    recordOwnerConnect: async () => false,
  }
}

/** The carrier the environment names, handed `reports` as the composition root hands it Leadline's. */
async function reporting(env: NodeJS.ProcessEnv, reports: CallReports, logger?: CarrierLogger): Promise<Carrier> {
  const carrier = await openCarrier(env, logger)
  carrier.reportTo?.(reports)
  return carrier
}

async function closing(t: Test, opening: Promise<Carrier>): Promise<Carrier> {
  const carrier = await opening
  t.teardown(() => carrier.close?.())
  return carrier
}

t.test('no Twilio credentials: the simulated carrier, announced as such', async (t) => {
  const log = recordingLogger()
  const carrier = await closing(t, reporting({ TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '  ' }, reportsTo(() => {}), log))
  t.equal(carrier.name, 'simulated')
  t.same(log.lines, [[{ carrier: 'simulated', outcome: 'answered', delayMs: 1500 }, SIMULATED_BANNER]])
  t.equal(SIMULATED_BANNER, 'carrier: simulated — no calls or texts reach real phones')
})

t.test('the simulated outcome and delay come from the environment', async (t) => {
  const updates: CallStatusUpdate[] = []
  const carrier = await closing(
    t,
    reporting({ LEADLINE_SIMULATED_OUTCOME: 'busy', LEADLINE_SIMULATED_DELAY_MS: '5' }, reportsTo((u) => void updates.push(u))),
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
    reporting(
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
    reporting({ TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_API_URL: `${fake.url}/` }, reportsTo(() => {}), log),
  )
  t.equal(carrier.name, 'twilio')
  const placed = await carrier.placeCall(CALL)
  t.equal(placed.callId, fake.callRequests()[0]?.sid)
  t.same(log.lines, [[{ carrier: 'twilio', accountSid: SID, apiUrl: fake.url }, `carrier: twilio via ${fake.url}`]])
  t.notMatch(JSON.stringify(log.lines), TOKEN, 'the auth token is never logged')
})

t.test('without TWILIO_API_URL the log names api.twilio.com', async (t) => {
  const log = recordingLogger()
  const carrier = await closing(t, reporting({ TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN }, reportsTo(() => {}), log))
  t.equal(carrier.name, 'twilio')
  t.same(log.lines, [[{ carrier: 'twilio', accountSid: SID, apiUrl: 'https://api.twilio.com' }, 'carrier: twilio']])
})

t.test('bad configuration stops with clear messages', async (t) => {
  t.same(problems(() => openCarrier({ TWILIO_ACCOUNT_SID: SID })), [
    'TWILIO_AUTH_TOKEN: set both TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN for Twilio, or neither for the simulated carrier',
  ])
  t.same(problems(() => openCarrier({ TWILIO_AUTH_TOKEN: TOKEN })), [
    'TWILIO_ACCOUNT_SID: set both TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN for Twilio, or neither for the simulated carrier',
  ])
  t.same(problems(() => openCarrier({ TWILIO_ACCOUNT_SID: 'SK123', TWILIO_AUTH_TOKEN: TOKEN })), [
    'TWILIO_ACCOUNT_SID: must be a Twilio Account SID: AC followed by 32 hex characters',
  ])
  t.same(problems(() => openCarrier({ TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_API_URL: 'ftp://x.example' })), [
    'TWILIO_API_URL: must be an http(s) URL',
  ])
  t.same(problems(() => openCarrier({ TWILIO_API_URL: 'http://127.0.0.1:4010' })), [
    'TWILIO_API_URL: is only used with Twilio: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN too, or unset it',
  ])
  t.same(problems(() => openCarrier({ LEADLINE_SIMULATED_OUTCOME: 'voicemail' })), [
    'LEADLINE_SIMULATED_OUTCOME: must be one of answered, no-answer, busy, cycle',
  ])
  t.same(problems(() => openCarrier({ LEADLINE_SIMULATED_DELAY_MS: 'soon' })), [
    'LEADLINE_SIMULATED_DELAY_MS: must be a number of milliseconds',
  ])
  t.same(problems(() => openCarrier({ LEADLINE_SIMULATED_DELAY_MS: '-5' })), ['LEADLINE_SIMULATED_DELAY_MS: must be 0 or more'])
  t.match(problems(() => openCarrier({ LEADLINE_SIMULATED_DELAY_MS: '1.5' })), [/whole number/])
})

t.test('LEADLINE_SIMULATED_ANSWERS: who answers, which keys, the seed, all in the start-up line', async (t) => {
  const log = recordingLogger()
  const env = { LEADLINE_SIMULATED_ANSWERS: 'human:60,machine:30,none:10', LEADLINE_SIMULATED_KEYS: '1:20, 2:20,9:10,none:50', LEADLINE_SIMULATED_SEED: '42' }
  const carrier = await closing(t, reporting({ ...env, LEADLINE_SIMULATED_DELAY_MS: '60000' }, reportsTo(() => {}), log))
  t.same(log.lines, [
    [{ carrier: 'simulated', answers: 'human:60,machine:30,none:10', keys: '1:20,2:20,9:10,none:50', seed: 42, delayMs: 60000 }, SIMULATED_BANNER],
  ])
  const again = await closing(t, reporting({ ...env, LEADLINE_SIMULATED_DELAY_MS: '60000' }, reportsTo(() => {})))
  const other = await closing(t, reporting({ ...env, LEADLINE_SIMULATED_SEED: '43', LEADLINE_SIMULATED_DELAY_MS: '60000' }, reportsTo(() => {})))
  const answers = async (c: Carrier) => {
    for (let i = 0; i < 40; i++) await c.placeCall(CALL)
    return (c as SimulatedCarrier).calls().map((call) => `${call.outcome}/${call.key}`)
  }
  const first = await answers(carrier)
  t.same(await answers(again), first, 'the same seed plays the same calls')
  t.not((await answers(other)).join(), first.join(), 'another seed plays others')
})

t.test('LEADLINE_SIMULATED_ANSWERS alone: the fixed default seed and no keys pressed', async (t) => {
  const log = recordingLogger()
  await closing(t, reporting({ LEADLINE_SIMULATED_ANSWERS: 'machine' }, reportsTo(() => {}), log))
  t.same(log.lines, [[{ carrier: 'simulated', answers: 'machine:1', keys: 'none:1', seed: DEFAULT_SIMULATED_SEED, delayMs: 1500 }, SIMULATED_BANNER]])
})

t.test('bad simulated answers stop with clear messages', async (t) => {
  const open = (env: NodeJS.ProcessEnv) => problems(() => openCarrier(env))
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human:60,voicemail:40' }), ['LEADLINE_SIMULATED_ANSWERS: "voicemail" is not one of human, machine, none, busy'])
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human:lots' }), ['LEADLINE_SIMULATED_ANSWERS: the weight of "human" must be a whole number, 0 or more (got "lots")'])
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human:0' }), ['LEADLINE_SIMULATED_ANSWERS: needs at least one weight above 0'])
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_KEYS: '1:5,7:1,x:1' }), ['LEADLINE_SIMULATED_KEYS: "x" is not one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, *, #, none'])
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_SEED: 'abc' }), ['LEADLINE_SIMULATED_SEED: must be a whole number, such as 42'])
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_SEED: '1.5' }), ['LEADLINE_SIMULATED_SEED: must be a whole number, such as 42'])
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_SEED: '-1' }), ['LEADLINE_SIMULATED_SEED: must be 0 or more'])
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_SEED: '4294967296' }), ['LEADLINE_SIMULATED_SEED: must be at most 4294967295'])
  t.same(open({ LEADLINE_SIMULATED_KEYS: '9', LEADLINE_SIMULATED_SEED: '1' }), [
    'LEADLINE_SIMULATED_KEYS: is only used with LEADLINE_SIMULATED_ANSWERS: set it too, or unset this',
    'LEADLINE_SIMULATED_SEED: is only used with LEADLINE_SIMULATED_ANSWERS: set it too, or unset this',
  ])
  t.same(open({ LEADLINE_SIMULATED_ANSWERS: 'human', LEADLINE_SIMULATED_OUTCOME: 'busy' }), [
    'LEADLINE_SIMULATED_OUTCOME: set LEADLINE_SIMULATED_ANSWERS or LEADLINE_SIMULATED_OUTCOME, not both',
  ])
})

t.test('a failing report other than a status is logged by its kind', async (t) => {
  const errors: Array<[Record<string, unknown>, string]> = []
  const logger: CarrierLogger = { info: () => {}, error: (fields, message) => void errors.push([fields, message]) }
  const reports: CallReports = {
    ...reportsTo(() => {}),
    recordAnsweredBy: async () => {
      throw new Error('nope')
    },
  }
  const carrier = await closing(t, reporting({ LEADLINE_SIMULATED_ANSWERS: 'machine', LEADLINE_SIMULATED_DELAY_MS: '0' }, reports, logger))
  const { callId } = await carrier.placeCall({ ...CALL, detectAnsweringMachine: true })
  const deadline = Date.now() + 2000
  while (errors.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  t.match(errors, [[{ carrier: 'simulated', callId, report: 'answered_by', err: { message: 'nope' } }, 'simulated call answered by was not handled']])
})
