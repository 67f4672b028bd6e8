/**
 * A key the lead pressed in the menu of a call (Twilio's `<Gather>`, or the simulated carrier):
 * recorded on the lead, once per call, and answered with what the carrier says next. Only the press
 * that recorded the choice acts on it: a repeated delivery hears a polite goodbye, so the owner is
 * dialed once.
 */
import { leadDecider } from '../domain/lead/lead.decider.ts'
import { parseOnAnswer } from '../domain/dialing/on-answer.ts'
import { spokenTime } from '../domain/dialing/spoken-time.ts'
import type { MenuAnswer } from '../integrations/carrier/carrier.port.ts'
import { callByDecision, carrierActor, type LiveCallDeps } from './live-call.ts'

export async function pressMenuKey(deps: LiveCallDeps, decisionId: string, digit: string): Promise<MenuAnswer | null> {
  const found = await callByDecision(deps, decisionId)
  if (!found) return null
  const { call, account } = found
  const onAnswer = parseOnAnswer(account.settings.onAnswer)
  const ownerNumber = onAnswer.kind === 'greeting' ? onAnswer.ownerNumber : null
  const { state, newEvents } = await deps.commands.handle(
    call.stream,
    leadDecider,
    { type: 'PressMenuKey', settings: account.settings, decisionId, digit, ownerNumber },
    carrierActor(deps),
  )
  const pressed = newEvents.find((event) => event.type === 'MenuKeyPressed')
  if (pressed?.type !== 'MenuKeyPressed') return { choice: 'none' }
  switch (pressed.data.choice) {
    case 'connect': {
      const fields = state.fields
      return { choice: 'connect', ownerNumber: ownerNumber as string, callerId: call.from, leadName: fields?.fullName ?? fields?.firstName ?? null }
    }
    case 'callback': {
      const at = state.dialing.callbackAt
      return { choice: 'callback', spokenTime: at === null ? null : spokenTime(at, account.settings.timeZone, deps.clock()) }
    }
    case 'opt_out':
      return { choice: 'opt_out' }
    case 'none':
      return { choice: 'none' }
  }
}
