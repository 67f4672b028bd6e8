/**
 * What a carrier reports about a call (a Twilio status callback, or the simulated carrier): recorded
 * on its lead as the call's outcome. Unknown call ids and accounts change nothing. A status that
 * carries machine detection's verdict acts on it as its own report would (record-answered-by).
 */
import { leadDecider } from '../domain/lead/lead.decider.ts'
import type { CallStatusUpdate } from '../integrations/carrier/carrier.port.ts'
import { actOnMachine } from './record-answered-by.command.ts'
import { callByCarrierId, type LiveCallDeps } from './live-call.ts'

/** Records a carrier's status on the call's lead; false when the call or its account is not known here. */
export async function recordCallStatus(deps: LiveCallDeps, update: CallStatusUpdate): Promise<boolean> {
  const found = await callByCarrierId(deps, update.callId)
  if (!found) return false
  const { call, account } = found
  const result = await deps.commands.handle(
    call.stream,
    leadDecider,
    { type: 'RecordCallStatus', settings: account.settings, update, node: deps.node },
    { actor: { kind: 'carrier', id: update.carrier } },
  )
  await actOnMachine(deps, call.stream, account, result.state, result.newEvents)
  return true
}
