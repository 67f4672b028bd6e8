/**
 * `leadline simulate inbound-call` and the console's button: a person calls the account's number on
 * the simulated carrier, played through the same inbound reports (and so the same commands) a Twilio
 * voice webhook reaches, recording the same events. Refused on a real carrier: there, call the number.
 */
import { leadStream, LEAD_SUMMARIES } from '../domain/lead/lead.events.ts'
import { normalizePhone } from '../domain/lead/intake/phone.ts'
import { DomainError } from '../domain/shared/decider.ts'
import type { CommandHandler } from '../eventstore/command-handler.ts'
import { SIMULATED_INBOUND_SCENARIOS, type Carrier, type SimulatedInboundCall, type SimulatedInboundScenario } from '../integrations/carrier/carrier.port.ts'
import type { Accounts } from './accounts.ts'
import { leadDecider } from '../domain/lead/lead.decider.ts'

export interface SimulateInboundCallDeps {
  readonly accounts: Pick<Accounts, 'get'>
  readonly carrier: Pick<Carrier, 'name' | 'simulateInboundCall'>
  readonly commands: Pick<CommandHandler, 'load'>
}

/** The call as it went, and what it recorded on the caller's lead, in order (type and summary). */
export interface SimulatedInboundResult extends SimulatedInboundCall {
  readonly accountId: string
  readonly stream: string
  readonly events: ReadonlyArray<{ readonly type: string; readonly summary: string }>
}

export function isInboundScenario(value: string): value is SimulatedInboundScenario {
  return (SIMULATED_INBOUND_SCENARIOS as readonly string[]).includes(value)
}

export async function simulateInboundCall(
  deps: SimulateInboundCallDeps,
  accountId: string,
  input: { readonly from: string; readonly scenario: string },
): Promise<SimulatedInboundResult> {
  const { scenario } = input
  if (!isInboundScenario(scenario)) {
    throw new DomainError('invalid_scenario', `unknown scenario ${JSON.stringify(scenario.slice(0, 40))} (one of ${SIMULATED_INBOUND_SCENARIOS.join(', ')})`)
  }
  const simulate = deps.carrier.simulateInboundCall
  if (simulate === undefined) {
    throw new DomainError('not_simulated', `the carrier is ${deps.carrier.name}: only the simulated carrier plays an inbound call (with Twilio, call the number)`)
  }
  const account = await deps.accounts.get(accountId)
  if (!account) throw new DomainError('account_not_found', `no account ${accountId}`)
  const to = account.settings.callerId
  if (to === null) throw new DomainError('no_caller_id', 'the account has no number to call (leadline account set ID --caller-id +1…)')
  const phone = normalizePhone(input.from, account.settings.defaultCountry)
  if (!phone.ok) throw new DomainError('phone_invalid', `--from: ${phone.error.message}`)
  const stream = leadStream(accountId, phone.phone.last10)
  const before = (await deps.commands.load(stream, leadDecider)).events.length
  const call = await simulate.call(deps.carrier, { from: phone.phone.e164, to }, scenario)
  const events = (await deps.commands.load(stream, leadDecider)).events.slice(before)
  // Each recorded event read back by its own slice's summary, as `leadline history` reads it.
  const summaries = LEAD_SUMMARIES as unknown as Readonly<Record<string, ((data: unknown) => string) | undefined>>
  return {
    ...call,
    accountId,
    stream,
    events: events.map((e) => ({ type: e.type, summary: summaries[e.type]?.(e.data) ?? e.type })),
  }
}
