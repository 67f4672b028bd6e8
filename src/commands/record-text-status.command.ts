/**
 * A text's delivery receipt from the carrier (Twilio's message status callback): its final status
 * recorded on the lead once a text (the texts slice decides: a repeat or a later receipt changes
 * nothing). A text the lead's stream does not hold changes nothing.
 */
import { leadDecider } from '../domain/lead/lead.decider.ts'
import type { CarrierName, TextStatusReport } from '../integrations/carrier/carrier.port.ts'
import type { LiveCallDeps } from './live-call.ts'

/** Records the receipt; false when the text is not one of Leadline's. */
export async function recordTextStatus(deps: Pick<LiveCallDeps, 'commands'>, carrier: CarrierName, report: TextStatusReport): Promise<boolean> {
  const { state } = await deps.commands.load(report.stream, leadDecider)
  if (!state.exists || !Object.hasOwn(state.texts.texts, report.textId)) return false
  await deps.commands.handle(
    report.stream,
    leadDecider,
    { type: 'RecordTextDelivery', textId: report.textId, messageId: report.messageId, status: report.status, errorCode: report.errorCode },
    { actor: { kind: 'carrier', id: carrier } },
  )
  return true
}
