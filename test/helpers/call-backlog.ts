/**
 * What the call-backlog tests share (test/processes/dialer/restart-backlog.test.ts, test/faults/kill-backlog.test.ts):
 * thousands of leads, each a person of their own, decided while the dialer runs at the default pace;
 * then the pace raised with nothing dialing, and a look at what became of every decision.
 */
import type { Leadline } from '../../src/leadline.ts'
import { openLeadline } from '../../src/leadline.ts'
import type { FakeTwilio } from '../doubles/fake-twilio.ts'
import { operatorContext } from './build-app.ts'
import { sleep } from './dialing-app.ts'

export const ACCOUNTS = 4
export const PER_ACCOUNT = 750
export const TOTAL = ACCOUNTS * PER_ACCOUNT

/** The ten digits of account `a`'s lead `i` (area code 312 + a). */
export const backlogDigits = (a: number, i: number) => `${312 + a}555${String(i).padStart(4, '0')}`

/** Raises every account's pace to 100 calls a second, on the files, with nothing dialing. */
export async function raisePace(files: { store: string; viewsPath: string }, accountIds: readonly string[]): Promise<void> {
  const leadline = await openLeadline({ store: files.store, viewsPath: files.viewsPath, env: {} })
  try {
    for (const id of accountIds) await leadline.accounts.changeSettings(id, { callsPerSecond: 100 }, operatorContext)
  } finally {
    await leadline.close()
  }
}

export interface DecisionFate {
  readonly to: string
  /** The events about it after its CallDecided, in log order. */
  readonly events: string[]
}

/** Every decision on the log and what became of it. */
export async function decisions(leadline: Pick<Leadline, 'store'>): Promise<Map<string, DecisionFate>> {
  const byDecision = new Map<string, DecisionFate>()
  for (const event of await leadline.store.readAll()) {
    const data = event.data as { decisionId?: string; to?: string }
    if (event.type === 'CallDecided') byDecision.set(data.decisionId as string, { to: data.to as string, events: [] })
    else if (data.decisionId !== undefined) byDecision.get(data.decisionId)?.events.push(event.type)
  }
  return byDecision
}

const OUTCOMES = new Set(['CallPlaced', 'CallFailed', 'CallOutcomeUnknown'])

/** Polls until every decision has an outcome, or `timeoutMs` passed; then what became of each. */
export async function settledDecisions(leadline: Pick<Leadline, 'store'>, timeoutMs: number): Promise<Map<string, DecisionFate>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const all = await decisions(leadline)
    const open = [...all.values()].filter((d) => !d.events.some((type) => OUTCOMES.has(type)))
    if (open.length === 0 || Date.now() > deadline) {
      await sleep(500) // time for a second ring, if there were to be one
      return all
    }
    await sleep(250)
  }
}

/** Call requests the fake took, per number rung. */
export function ringsPerNumber(fake: FakeTwilio): Map<string, number> {
  const rings = new Map<string, number>()
  for (const request of fake.callRequests()) rings.set(String(request.form.To), (rings.get(String(request.form.To)) ?? 0) + 1)
  return rings
}
