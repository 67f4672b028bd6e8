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
import { newId, newLeadId } from '../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import { readGoogleLeadForm } from '../domain/lead/intake/google-lead-form.ts'
import { SOURCE_NAME } from '../domain/lead/intake/field-map.ts'
import type { SubmissionOrigin } from '../domain/lead/intake/intake.events.ts'
import { isGoogleKey } from './accounts.ts'

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

export interface ReceiveLeadOptions {
  /** The lead source named in the webhook URL (`?source=vendor-x`): its field map reads the body. */
  readonly source?: string | undefined
  /** A lead form fetched by Leadline itself (Facebook Lead Ads): its name and its ids for the lead, kept as source facts. */
  readonly form?: { readonly form: 'facebook_lead_ads'; readonly facts: Readonly<Record<string, string>> }
}

/**
 * Receives a lead from a webhook body (JSON, form fields or XML, loosely named, nested or not; a
 * Google Ads or Facebook lead-ads body) into its account. A Google body whose `google_key` is not the
 * account's is refused (`invalid_google_key`) before anything is recorded. A number that shares its
 * last ten digits with a lead's valid number but differs in full is another person: the conflict is
 * recorded on that lead's stream and nothing else changes (`phone_conflict`).
 */
export async function receiveLead(deps: ReceiveLeadDeps, account: AccountState, body: unknown, context: CommandContext, options: ReceiveLeadOptions = {}): Promise<IntakeResult> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('body_not_object', 'body must be a JSON object or form fields')
  }
  const source = sourceOf(options.source)
  const google = readGoogleLeadForm(body as Record<string, unknown>)
  if (google !== null && !isGoogleKey(account, google.key)) {
    throw new DomainError(
      'invalid_google_key',
      account.googleKey === null
        ? `this account has no Google key to check google_key against: leadline account set ${account.accountId} --google-key KEY, and the same key in the lead form's webhook settings`
        : google.key === undefined ? 'google_key is missing' : "google_key is not this account's Google key",
    )
  }
  const input = google?.input ?? flattenLeadAdsPayload(body) ?? (body as Record<string, unknown>)
  const fieldMap = source === undefined ? undefined : account.fieldMaps.get(source)?.mappings
  const now = deps.clock()
  const normalised = normalizeLeadInput(input, {
    defaultCountry: account.settings.defaultCountry,
    timeZone: account.settings.timeZone,
    industry: account.settings.industry,
    now,
    ...(fieldMap === undefined ? {} : { fieldMap }),
  })
  if (!normalised.ok) throw new DomainError(normalised.error.code, normalised.error.message)
  const { lead, warnings, derived, consent, mapped } = normalised
  const origin: SubmissionOrigin = {
    ...(google === null ? {} : { form: 'google_lead_form' as const, facts: google.facts }),
    ...(options.form === undefined ? {} : { form: options.form.form, facts: options.form.facts }),
    ...(source === undefined ? {} : { source }),
    ...(mapped === undefined ? {} : { mapped }),
  }
  const result = await deps.commands.handle(
    leadStream(account.accountId, lead.phoneLast10),
    leadDecider,
    {
      type: 'ReceiveLead', accountId: account.accountId, newLeadId: newLeadId(now.getTime()), fields: lead, derived, warnings, speedToLead: { settings: account.settings, decisionId: newId('dec') },
      ...(consent === undefined ? {} : { consent }),
      ...(Object.keys(origin).length === 0 ? {} : { origin }),
      ...(google?.test === true ? { test: true } : {}),
    },
    context,
  )
  if (result.newEvents.some((e) => e.type === 'LeadPhoneConflict' && e.data.kept)) {
    // Another person whose number shares the lead's last ten digits: recorded, nothing of theirs taken (docs/webhook.md).
    throw new DomainError(
      'phone_conflict',
      `${lead.phone} shares its last ten digits with a lead of this account that has another number: the submission is recorded as a conflict for the operator, and that lead is left as it was`,
    )
  }
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

/** The source named in the URL, as field maps are keyed; a name no map could have is refused. */
function sourceOf(name: string | undefined): string | undefined {
  if (name === undefined || name.trim() === '') return undefined
  const lower = name.trim().toLowerCase()
  if (!SOURCE_NAME.test(lower)) throw new DomainError('invalid_request', `source ${JSON.stringify(name.slice(0, 70))} must be 1–64 lower-case letters, digits, - or _`)
  return lower
}
