/**
 * Consent evidence a lead source sends with a lead (TrustedForm, Jornaya, the TCPA text the person
 * agreed to, when, from where): kept as the submission's consent record, as sent. Leadline stores
 * evidence; it does not judge whether it amounts to consent (docs/lead-sources.md).
 */
import { canonicalFieldName, lastPathPart } from './field-aliases.ts'

export type ConsentField = 'trustedFormCertUrl' | 'jornayaLeadId' | 'tcpaConsentText' | 'consentTimestamp' | 'ipAddress' | 'pageUrl'

/** One submission's evidence: each member as sent (trimmed, bounded like every text field). */
export type ConsentEvidence = { readonly [F in ConsentField]?: string }

/** A submission's evidence and when it arrived: a lead keeps one per submission that carried any. */
export type ConsentRecord = ConsentEvidence & { readonly receivedAt: string }

/** Accepted names per evidence field, matched as loosely as every field name (field-aliases.ts). */
export const CONSENT_FIELD_ALIASES: Readonly<Record<ConsentField, readonly string[]>> = {
  trustedFormCertUrl: ['xxTrustedFormCertUrl', 'trustedform_cert_url', 'trustedformcerturl', 'trusted form cert url', 'xxTrustedFormToken'],
  jornayaLeadId: ['universal_leadid', 'universalleadid', 'leadid_token', 'leadidtoken', 'jornaya_leadid', 'jornaya lead id'],
  tcpaConsentText: ['tcpa_consent_text', 'tcpa text', 'tcpa_language', 'consent text'],
  consentTimestamp: ['consent_timestamp', 'consent time', 'consented at', 'tcpa timestamp'],
  ipAddress: ['ip_address', 'ipaddress', 'ip'],
  pageUrl: ['page_url', 'pageurl', 'landing page', 'landing page url'],
}

/** The fields in the order a record is shown. */
export const CONSENT_FIELDS = Object.keys(CONSENT_FIELD_ALIASES) as readonly ConsentField[]

/** How get_lead, the export and the console name each field. */
export const CONSENT_FIELD_NAMES: Readonly<Record<ConsentField, string>> = {
  trustedFormCertUrl: 'trustedform_cert_url',
  jornayaLeadId: 'jornaya_leadid',
  tcpaConsentText: 'tcpa_consent_text',
  consentTimestamp: 'consent_timestamp',
  ipAddress: 'ip_address',
  pageUrl: 'page_url',
}

/** A lead keeps its latest records in memory; the log keeps every one (`leadline audit export`). */
export const MAX_CONSENT_RECORDS_KEPT = 50

// A Map: a name such as `__proto__` is looked up as itself.
const INDEX: ReadonlyMap<string, { field: ConsentField; rank: number }> = new Map(
  CONSENT_FIELDS.flatMap((field) => CONSENT_FIELD_ALIASES[field].map((alias, rank) => [canonicalFieldName(alias), { field, rank }] as const)),
)

/** The evidence field a name (or a path's last part) means, with its rank among the field's names. */
export function matchConsentField(name: string): { field: ConsentField; rank: number } | undefined {
  const whole = INDEX.get(canonicalFieldName(name))
  if (whole !== undefined) return whole
  const last = lastPathPart(name)
  return last === null ? undefined : INDEX.get(canonicalFieldName(last))
}

/** A lead's records after one more: appended, never replacing one, the oldest let go past the bound. */
export function addConsentRecord(records: readonly ConsentRecord[], record: ConsentRecord | undefined): readonly ConsentRecord[] {
  if (record === undefined) return records
  const all = [...records, record]
  return all.length > MAX_CONSENT_RECORDS_KEPT ? all.slice(-MAX_CONSENT_RECORDS_KEPT) : all
}
