/**
 * place_call: a real outbound call from the account's own number, to exactly the number asked (or a
 * dry run of one). The call is decided on the lead's stream under the caller's idempotency key, then
 * dialed at once by the dialer (claim → carrier → record); the answer is what the carrier did.
 */
import type { AccountState } from '../domain/account/account.decider.ts'
import { leadDecider, type LeadState } from '../domain/lead/lead.decider.ts'
import { callRefused, leadCallTarget, type CallRecord } from '../domain/lead/calls/calls.decider.ts'
import { CALL_REFUSALS, mayCall, type CallCheck } from '../domain/dialing/may-call.ts'
import { leadStream } from '../domain/lead/lead.events.ts'
import { normalizePhone } from '../domain/lead/intake/phone.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { newId, newLeadId } from '../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import type { Carrier, CarrierName } from '../integrations/carrier/carrier.port.ts'
import { Dialer } from '../processes/dialer/dialer.process.ts'
import type { EffectProcesses } from '../processes/effect-processes.ts'

export type { CallCheck }

export interface PlaceCallInput {
  /** Any formatting; read in the account's default country. */
  readonly phone: string
  /** The person's name, used for a new lead and for the whisper to the owner. */
  readonly name: string
  /** Ties the call decision to the caller's idempotency key (the same key never rings twice). */
  readonly idempotencyKey: string
  readonly dryRun: boolean
}

export interface PlaceCallResult {
  /** `placed` after the carrier accepted the call; `would_call` / `would_not_call` for a dry run. */
  readonly status: 'placed' | 'would_call' | 'would_not_call'
  readonly callId: string | null
  readonly leadId: string | null
  readonly from: string | null
  readonly to: string
  readonly carrier: CarrierName
  readonly check: CallCheck
  /** True when the result says what would happen and nothing was changed. */
  readonly dryRun: boolean
}

/** What place_call needs: the Leadline composition root provides it. */
export interface PlaceCallDeps {
  readonly commands: CommandHandler
  /** This node's effect processes: the dialer dials the decision. */
  readonly effects: Pick<EffectProcesses, 'get'>
  readonly carrier: Pick<Carrier, 'name'>
  readonly clock: () => Date
}

/**
 * Places a real call from the account's caller id (or reports what would happen, for a dry run).
 * Refusals throw DomainError with a call refusal code (CALL_REFUSALS: do_not_call, daily_limit,
 * country_not_allowed, …), phone_invalid, carrier_error or carrier_outcome_unknown.
 */
export async function placeCall(deps: PlaceCallDeps, account: AccountState, input: PlaceCallInput, context: CommandContext): Promise<PlaceCallResult> {
  const { commands, clock, carrier } = deps
  const phone = normalizePhone(input.phone, account.settings.defaultCountry)
  if (!phone.ok) throw new DomainError(phone.error.code === 'phone_required' ? 'phone_required' : 'phone_invalid', phone.error.message)
  const stream = leadStream(account.accountId, phone.phone.last10)
  const loaded = await commands.load(stream, leadDecider)
  const lead: LeadState = loaded.state.exists
    ? loaded.state
    : {
        ...loaded.state,
        exists: true,
        fields: {
          phone: phone.phone.e164, phoneLast10: phone.phone.last10, phoneRaw: phone.phone.raw,
          ...(phone.phone.extension ? { phoneExtension: phone.phone.extension } : {}), industryFields: {}, extraFields: [],
        },
      }
  // The number asked is the number rung: never the one on record for the same last ten digits.
  const to = phone.phone.e164
  const check = mayCall(account.settings, leadCallTarget(lead, 'place_call', to), clock())
  const base = {
    leadId: loaded.state.exists ? loaded.state.leadId : null,
    from: account.settings.callerId,
    to,
    carrier: carrier.name,
    check,
  }
  if (input.dryRun) {
    return { status: check.allowed ? 'would_call' : 'would_not_call', callId: null, ...base, dryRun: true }
  }
  // A key already used returns its call's result, even if a new call would be refused now.
  const spent = Object.values(loaded.state.dialing.calls).some((c) => c.idempotencyKey === input.idempotencyKey)
  if (!check.allowed && !spent) throw callRefused(check)

  if (!loaded.state.exists) {
    // Someone the book has not met: the call still belongs in a lead's history (not in Inbound Leads).
    const name = input.name.trim()
    await commands.handle(
      stream,
      leadDecider,
      {
        type: 'ReceiveLead',
        accountId: account.accountId,
        newLeadId: newLeadId(clock().getTime()),
        fields: { ...(lead.fields as NonNullable<LeadState['fields']>), ...(name ? { fullName: name } : {}), source: 'place_call' },
        list: false,
      },
      context,
    )
  }
  const decided = await commands.handle(
    stream,
    leadDecider,
    { type: 'DecidePlaceCall', settings: account.settings, decisionId: newId('dec'), idempotencyKey: input.idempotencyKey, to, toRaw: phone.phone.raw },
    context,
  )
  const call = Object.values(decided.state.dialing.calls).find((c) => c.idempotencyKey === input.idempotencyKey) as CallRecord
  const callId = await dialDecided(deps, stream, call)
  return { status: 'placed', callId, ...base, leadId: decided.state.leadId, from: call.from, to: call.to, carrier: carrier.name, dryRun: false }
}

/**
 * Has the dialer perform a decided call at once (or waits for the node that does) and answers the
 * carrier's call id; a refusal as it went out, a carrier's refusal or an unknown outcome throws.
 */
export async function dialDecided(deps: Pick<PlaceCallDeps, 'effects'>, stream: string, call: CallRecord): Promise<string> {
  const settled = await deps.effects.get(Dialer).dialAndWait(stream, call.decisionId)
  switch (settled.kind) {
    case 'placed':
      return settled.callId
    case 'failed':
      // Refused by the check made as the call went out (the lead became do-not-call, the hours closed).
      if (CALL_REFUSALS.has(settled.failure)) throw new DomainError(settled.failure, settled.message)
      throw new DomainError('carrier_error', `the carrier refused the call: ${settled.message}`, { failure: settled.failure })
    default:
      throw new DomainError('carrier_outcome_unknown', 'the carrier did not confirm the call; it is not retried, so the person is never rung twice')
  }
}
