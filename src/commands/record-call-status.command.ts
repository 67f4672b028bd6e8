/**
 * What a carrier reports about a call (a Twilio status callback, or the simulated carrier): recorded
 * on its lead as the call's outcome. Unknown call ids and accounts change nothing.
 */
import { leadDecider } from '../domain/lead/lead.decider.ts'
import type { CommandHandler } from '../eventstore/command-handler.ts'
import type { CallStatusUpdate } from '../integrations/carrier/carrier.port.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { CallRow, CallsQueries } from '../../projections/calls/calls.queries.ts'
import type { ClaimsQueries } from '../../projections/claims/claims.queries.ts'
import { CALL_EFFECT } from '../domain/lead/calls/calls.events.ts'
import type { Accounts } from './accounts.ts'

/** How long a status callback for a call id not on the log yet waits for an in-flight attempt to record it. */
const CALLBACK_WAIT_MS = 5000

export interface RecordCallStatusDeps {
  readonly commands: CommandHandler
  readonly accounts: Pick<Accounts, 'get'>
  readonly calls: CallsQueries
  readonly claims: ClaimsQueries
  readonly runner: ProjectionRunner
}

/** Records a carrier's status on the call's lead; false when the call or its account is not known here. */
export async function recordCallStatus(deps: RecordCallStatusDeps, update: CallStatusUpdate): Promise<boolean> {
  const call = await findCall(deps, update.callId)
  if (!call) return false
  const account = await deps.accounts.get(call.accountId)
  if (!account) return false
  await deps.commands.handle(
    call.stream,
    leadDecider,
    { type: 'RecordCallStatus', settings: account.settings, update },
    { actor: { kind: 'carrier', id: update.carrier } },
  )
  return true
}

/**
 * The call a carrier call id belongs to. A callback can outrun the read model, and even the record
 * of its own call (CallPlaced is appended once the carrier has answered the request), so while any
 * attempt is in flight an unknown id is looked for again for a moment rather than dropped.
 */
async function findCall({ calls, claims, runner }: RecordCallStatusDeps, callId: string): Promise<CallRow | null> {
  const deadline = performance.now() + CALLBACK_WAIT_MS
  for (;;) {
    const call = calls.byCallId(callId) ?? (await runner.catchUp(), calls.byCallId(callId))
    if (call) return call
    if (performance.now() > deadline || !claims.hasClaimsInFlight(CALL_EFFECT.name)) return null
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
