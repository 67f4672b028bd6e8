/**
 * receiveLead, the webhook's use case: read a loosely named body, normalise it in the account's terms
 * (country, time zone, industry), and receive the lead into its stream, keyed by the last ten phone
 * digits (speed to lead decides its call in the same append).
 */
import { leadDecider } from '../domain/lead/lead.decider.ts'
import { leadStream } from '../domain/lead/lead.events.ts'
import { flattenLeadAdsPayload, normalizeLeadInput, type IntakeWarning } from '../domain/lead/intake/normalize-lead-input.ts'
import type { AccountState } from '../domain/account/account.decider.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { newId } from '../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'

export interface IntakeResult {
  readonly leadId: string
  readonly created: boolean
  /** E.164 */
  readonly phone: string
  readonly lists: readonly string[]
  readonly warnings: readonly IntakeWarning[]
  /** Global position of the last event appended (for read-your-writes). */
  readonly position: number | null
}

export interface ReceiveLeadDeps {
  readonly commands: CommandHandler
  readonly clock: () => Date
}

/** Receives a lead from a webhook body (JSON or form fields, loosely named) into its account. */
export async function receiveLead(deps: ReceiveLeadDeps, account: AccountState, body: unknown, context: CommandContext): Promise<IntakeResult> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('body_not_object', 'body must be a JSON object or form fields')
  }
  const input = flattenLeadAdsPayload(body) ?? (body as Record<string, unknown>)
  const normalised = normalizeLeadInput(input, {
    defaultCountry: account.settings.defaultCountry,
    timeZone: account.settings.timeZone,
    industry: account.settings.industry,
    now: deps.clock(),
  })
  if (!normalised.ok) throw new DomainError(normalised.error.code, normalised.error.message)
  const { lead, warnings, derived } = normalised
  const result = await deps.commands.handle(
    leadStream(account.accountId, lead.phoneLast10),
    leadDecider,
    { type: 'ReceiveLead', accountId: account.accountId, newLeadId: newId('ld'), fields: lead, derived, warnings, speedToLead: { settings: account.settings, decisionId: newId('dec') } },
    context,
  )
  return {
    leadId: result.state.leadId,
    created: result.newEvents.some((e) => e.type === 'LeadReceived'),
    phone: result.state.fields?.phone ?? lead.phone,
    lists: result.state.lists,
    // The lead's own answer may add to intake's (phone_conflict: the number on record was kept).
    warnings: result.newEvents.length > 0 ? result.state.warnings : warnings,
    position: result.position,
  }
}
