/**
 * Google Ads lead forms post their webhook body as `user_column_data: [{column_id, column_name,
 * string_value}]` with `google_key`, `is_test` and the lead's ids (Google's "Webhook Proto payload").
 * Read here into the names intake already knows, so one intake serves every source; the key and the
 * test flag come apart, never stored among the lead's fields.
 */
import { MAX_FIELD_LENGTH } from './field-value.ts'

/** Google's column ids → a name intake reads. Other columns (custom questions) keep their own name. */
const COLUMN_NAMES: Readonly<Record<string, string>> = {
  FULL_NAME: 'full name',
  FIRST_NAME: 'first name',
  LAST_NAME: 'last name',
  PHONE_NUMBER: 'phone',
  WORK_PHONE: 'work phone',
  EMAIL: 'email',
  POSTAL_CODE: 'zip',
  CITY: 'city',
  REGION: 'state',
  STREET_ADDRESS: 'address',
  COUNTRY: 'country',
}

/** The members Google sends about the lead, kept as its source facts (not its fields). */
export const GOOGLE_FACTS = ['lead_id', 'campaign_id', 'gcl_id', 'form_id', 'adgroup_id', 'creative_id', 'asset_group_id', 'api_version', 'lead_submit_time'] as const

export interface GoogleLeadForm {
  /** The answers by name, for intake. */
  readonly input: Record<string, unknown>
  /** `google_key` as sent (undefined when absent): checked against the account's key, never stored. */
  readonly key: string | undefined
  readonly test: boolean
  /** GOOGLE_FACTS present in the body, as text. */
  readonly facts: Record<string, string>
}

/**
 * The lead's `source` for a Google Ads lead: `Google Ads campaign 12345678901, form 123456789`, or the
 * part Google sent (`Google Ads lead form` with neither), so Inbound Leads and get_lead name where it came from.
 */
export function googleSource(facts: Readonly<Record<string, string>>): string {
  const parts = [facts['campaign_id'] === undefined ? null : `campaign ${facts['campaign_id']}`, facts['form_id'] === undefined ? null : `form ${facts['form_id']}`].filter((p) => p !== null)
  return parts.length === 0 ? 'Google Ads lead form' : `Google Ads ${parts.join(', ')}`
}

/** Google's lead-form body read for intake, or null when the body is not one. */
export function readGoogleLeadForm(body: Record<string, unknown>): GoogleLeadForm | null {
  const columns = body['user_column_data']
  if (!Array.isArray(columns)) return null
  // Null prototype: a custom question named `__proto__` is data.
  const input = Object.create(null) as Record<string, unknown>
  for (const column of columns) {
    if (typeof column !== 'object' || column === null || Array.isArray(column)) continue
    const { column_id: id, column_name: label, string_value: value } = column as Record<string, unknown>
    const name = (typeof id === 'string' ? COLUMN_NAMES[id.toUpperCase()] : undefined) ?? (typeof label === 'string' && label.trim() !== '' ? label : typeof id === 'string' ? id : undefined)
    if (name === undefined || value === undefined || value === null) continue
    // A repeated column (two answers to one question) keeps both, as a list.
    const previous = input[name]
    input[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  const facts: Record<string, string> = {}
  for (const fact of GOOGLE_FACTS) {
    const value = body[fact]
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
      const text = String(value).trim()
      if (text !== '') facts[fact] = text.slice(0, MAX_FIELD_LENGTH)
    }
  }
  // The campaign and form the lead came through are its source, unless the form itself asked for one.
  if (!Object.keys(input).some((name) => name.trim().toLowerCase() === 'source')) input['source'] = googleSource(facts)
  const key = body['google_key']
  return { input, key: typeof key === 'string' ? key : undefined, test: body['is_test'] === true || body['is_test'] === 'true', facts }
}
