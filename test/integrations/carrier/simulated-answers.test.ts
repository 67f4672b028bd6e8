/**
 * The simulated carrier's answers (LEADLINE_SIMULATED_ANSWERS / _KEYS / _SEED): the weights it reads,
 * the seeded draws, and what it reports for each answer, in order, through CallReports.
 */
import t from 'tap'
import type { Test } from 'tap'
import type { CallReports, MenuAnswer } from '../../../src/integrations/carrier/carrier.port.ts'
import {
  SIMULATED_CALL_SECONDS,
  SIMULATED_KEYS,
  SIMULATED_MACHINE_SECONDS,
  SIMULATED_OWNER_SECONDS,
  SIMULATED_WHO,
  answerDrawer,
  createSimulatedCarrier,
  draw,
  parseWeights,
  seededRandom,
  type SimulatedAnswers,
  type SimulatedCarrier,
} from '../../../src/integrations/carrier/simulated/index.ts'
import { CALL } from './carrier.contract.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await sleep(5)
  }
}

function plan(answers: string, keys = 'none', seed = 7): SimulatedAnswers {
  const a = parseWeights(answers, SIMULATED_WHO)
  const k = parseWeights(keys, SIMULATED_KEYS)
  if (typeof a === 'string' || typeof k === 'string') throw new Error(`bad weights: ${String(a)} ${String(k)}`)
  return { answers: a, keys: k, seed }
}

/** What Leadline answers to a key: 1 connects, 2 a callback, 9 opts out, any other none. */
function menuAnswer(digit: string): MenuAnswer {
  if (digit === '1') return { choice: 'connect', ownerNumber: '+13125550199', callerId: '+13125550100', leadName: 'Jane' }
  if (digit === '2') return { choice: 'callback', spokenTime: '4 PM' }
  if (digit === '9') return { choice: 'opt_out' }
  return { choice: 'none' }
}

/** Every report, in the order it arrived, in a short form a test can compare. */
function recordingReports(menu: (digit: string) => MenuAnswer | null = menuAnswer): { reports: CallReports; log: unknown[][] } {
  const log: unknown[][] = []
  return {
    log,
    reports: {
      recordCallStatus: async (u) => {
        log.push(['status', u.status, ...(u.answeredBy !== undefined ? [u.answeredBy] : []), ...(u.durationSeconds !== undefined ? [u.durationSeconds] : [])])
        return true
      },
      recordAnsweredBy: async (callId, answeredBy) => {
        log.push(['answered_by', callId, answeredBy])
        return true
      },
      answeredCall: async () => null,
      pressMenuKey: async (decisionId, digit) => {
        log.push(['key', decisionId, digit])
        return menu(digit)
      },
      recordOwnerConnect: async (decisionId, status, durationSeconds) => {
        log.push(['owner_connect', decisionId, status, durationSeconds])
        return true
      },
      pressAgentKey: async () => null,
      recordLeadDial: async () => false,
      recordInboundText: async () => false,
      recordTextStatus: async () => false,
      prepareAssistant: async () => null,
      openAssistant: async () => null,
    },
  }
}

function open(t: Test, answers: SimulatedAnswers, menu?: (digit: string) => MenuAnswer | null): { carrier: SimulatedCarrier; log: unknown[][] } {
  const { reports, log } = recordingReports(menu)
  const carrier = createSimulatedCarrier({ outcome: 'answered', answers, delayMs: 1, reports })
  t.teardown(() => carrier.close())
  return { carrier, log }
}

const AMD = { ...CALL, reference: 'dec_1', detectAnsweringMachine: true }
const ends = (log: unknown[][]) => log.some((entry) => entry[0] === 'status' && ['completed', 'no-answer', 'busy'].includes(entry[1] as string))

/** One call placed and played to its end: its id and every report, in order. */
async function played(t: Test, answers: SimulatedAnswers, options: { menu?: (digit: string) => MenuAnswer | null; request?: typeof AMD } = {}) {
  const { carrier, log } = open(t, answers, options.menu)
  const { callId } = await carrier.placeCall(options.request ?? AMD)
  await until(() => ends(log))
  return { carrier, callId, log }
}

t.test('weights: name:weight pairs, a bare name weighs 1, names left out weigh 0', async (t) => {
  t.same(parseWeights('human:60,machine:30,none:10', SIMULATED_WHO), [
    { name: 'human', weight: 60 },
    { name: 'machine', weight: 30 },
    { name: 'none', weight: 10 },
  ])
  t.same(parseWeights(' machine ', SIMULATED_WHO), [{ name: 'machine', weight: 1 }])
  t.same(parseWeights('busy:1, human:0', SIMULATED_WHO), [
    { name: 'busy', weight: 1 },
    { name: 'human', weight: 0 },
  ])
  t.same(parseWeights('1:20,2:20,9:10,none:50', SIMULATED_KEYS), [
    { name: '1', weight: 20 },
    { name: '2', weight: 20 },
    { name: '9', weight: 10 },
    { name: 'none', weight: 50 },
  ])
})

t.test('weights: each mistake is said in words', async (t) => {
  t.equal(parseWeights('person:60', SIMULATED_WHO), '"person" is not one of human, machine, none, busy')
  t.equal(parseWeights('human:60,,none:1', SIMULATED_WHO), 'has an empty entry; write name:weight pairs separated by commas, such as human:60,machine:40')
  t.equal(parseWeights('human:', SIMULATED_WHO), '"human:" is not name:weight')
  t.equal(parseWeights('human:1:2', SIMULATED_WHO), '"human:1:2" is not name:weight')
  t.equal(parseWeights('human:1,human:2', SIMULATED_WHO), 'names "human" twice')
  t.equal(parseWeights('human:-1', SIMULATED_WHO), 'the weight of "human" must be a whole number, 0 or more (got "-1")')
  t.equal(parseWeights('human:0.5', SIMULATED_WHO), 'the weight of "human" must be a whole number, 0 or more (got "0.5")')
  t.equal(parseWeights('human:0,none:0', SIMULATED_WHO), 'needs at least one weight above 0')
  t.equal(parseWeights('5:1', SIMULATED_KEYS.slice(0, 3)), '"5" is not one of 0, 1, 2')
})

t.test('draws: the same seed gives the same sequence, another seed another, in proportion to the weights', async (t) => {
  const answers = plan('human:60,machine:30,none:10', '1:20,2:20,9:10,none:50', 7)
  const run = (p: SimulatedAnswers) => {
    const next = answerDrawer(p)
    return Array.from({ length: 200 }, () => next())
  }
  const first = run(answers)
  t.same(run(answers), first, 'same seed, same calls')
  t.not(JSON.stringify(run({ ...answers, seed: 8 })), JSON.stringify(first), 'another seed, other calls')
  const count = (who: string) => first.filter((a) => a.who === who).length
  t.ok(count('human') > 90 && count('human') < 150, `about 60 % human (${count('human')} of 200)`)
  t.ok(count('machine') > 35 && count('machine') < 85, `about 30 % machine (${count('machine')})`)
  t.ok(count('none') > 5 && count('none') < 40, `about 10 % none (${count('none')})`)
  t.equal(count('busy'), 0, 'a name left out never comes')
  t.ok(first.every((a) => (a.who === 'human' ? true : a.key === null)), 'only a person presses keys')
  t.ok(first.some((a) => a.key === '9') && first.some((a) => a.who === 'human' && a.key === null), 'keys are drawn, none among them')
  const sameWho = Array.from({ length: 200 }, answerDrawer({ ...answers, keys: plan('human', '1').keys })).map((a) => a.who)
  t.same(sameWho, first.map((a) => a.who), 'changing the keys does not change who answers')
  t.equal(draw([{ name: 'only', weight: 3 }], () => 0.999999), 'only')
  t.same(Array.from({ length: 3 }, seededRandom(1)), Array.from({ length: 3 }, seededRandom(1)))
})

t.test('a human, machine detection on: ringing, in-progress, the verdict, the key (1: the owner leg), completed', async (t) => {
  const callback = await played(t, plan('human', '2'))
  t.same(callback.log, [
    ['status', 'ringing'],
    ['status', 'in-progress'],
    ['answered_by', callback.callId, 'human'],
    ['key', 'dec_1', '2'],
    ['status', 'completed', SIMULATED_CALL_SECONDS],
  ])
  t.match(callback.carrier.calls(), [{ callId: callback.callId, outcome: 'human', key: '2' }])
  const connect = await played(t, plan('human', '1'))
  t.same(connect.log.slice(3), [
    ['key', 'dec_1', '1'],
    ['owner_connect', 'dec_1', 'completed', SIMULATED_OWNER_SECONDS],
    ['status', 'completed', SIMULATED_CALL_SECONDS],
  ], '1 connects: the owner leg before the call completes')
  const notConnected = await played(t, plan('human', '1'), { menu: () => ({ choice: 'none' }) })
  t.notOk(notConnected.log.some((entry) => entry[0] === 'owner_connect'), 'a 1 Leadline does not connect (no owner number): no owner leg')
  const silent = await played(t, plan('human', 'none'))
  t.same(silent.log, [['status', 'ringing'], ['status', 'in-progress'], ['answered_by', silent.callId, 'human'], ['status', 'completed', SIMULATED_CALL_SECONDS]], 'no key: none reported')
})

t.test('a machine: in-progress, the machine verdict, completed; the voicemail is Leadline\'s to ask for', async (t) => {
  const { carrier, callId, log } = await played(t, plan('machine'))
  t.same(log, [['status', 'ringing'], ['status', 'in-progress'], ['answered_by', callId, 'machine_end_beep'], ['status', 'completed', SIMULATED_MACHINE_SECONDS]])
  await carrier.updateCall(callId, { kind: 'say', text: 'Hi Jane' })
  t.match(carrier.updates(), [{ callId, instructions: { kind: 'say', text: 'Hi Jane' } }])
})

t.test('nobody, or a busy line: ringing, then the final status', async (t) => {
  for (const [who, status] of [['none', 'no-answer'], ['busy', 'busy']] as const) {
    t.same((await played(t, plan(who))).log, [['status', 'ringing'], ['status', status]], who)
  }
})

t.test('machine detection off: no verdict; whoever picks up is in-progress, as the outcome mode plays it', async (t) => {
  const request = { ...AMD, detectAnsweringMachine: false }
  const machine = await played(t, plan('machine'), { request })
  t.same(machine.log, [['status', 'ringing'], ['status', 'in-progress'], ['status', 'completed', SIMULATED_MACHINE_SECONDS]], 'a machine')
  const human = await played(t, plan('human', '9'), { request })
  t.same(human.log, [['status', 'ringing'], ['status', 'in-progress'], ['key', 'dec_1', '9'], ['status', 'completed', SIMULATED_CALL_SECONDS]], 'a person still hears the menu')
})

t.test('calls draw in the order they are placed; a rejected number draws nothing', async (t) => {
  const answers = plan('human:1,machine:1,none:1,busy:1', '1:1,2:1,9:1,none:1', 99)
  const expected = Array.from({ length: 6 }, answerDrawer(answers))
  const { carrier } = open(t, answers)
  await carrier.placeCall(AMD)
  await t.rejects(carrier.placeCall({ ...AMD, to: '12' }))
  for (let i = 0; i < 5; i++) await carrier.placeCall(AMD)
  t.same(
    carrier.calls().filter((c) => c.callId !== null).map((c) => ({ who: c.outcome, key: c.key })),
    expected,
  )
})

t.test('a failing report goes to onError; the next reports still arrive', async (t) => {
  const seen: string[] = []
  const errors: string[] = []
  const { reports } = recordingReports()
  const carrier = createSimulatedCarrier({
    outcome: 'answered',
    answers: plan('human', '1'),
    delayMs: 1,
    reports: {
      ...reports,
      recordCallStatus: async (u) => {
        seen.push(u.status)
        return true
      },
      recordAnsweredBy: async () => {
        throw new Error('down')
      },
      pressMenuKey: async () => {
        seen.push('key')
        throw new Error('still down')
      },
    },
    onError: (error, report) => void errors.push(`${report.kind}: ${(error as Error).message}`),
  })
  t.teardown(() => carrier.close())
  await carrier.placeCall(AMD)
  await until(() => seen.includes('completed'))
  t.same(seen, ['ringing', 'in-progress', 'key', 'completed'], 'no owner leg after a key that was not answered')
  t.same(errors, ['answered_by: down', 'menu_key: still down'])
})
