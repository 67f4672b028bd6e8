// The lead webhook's body, as any sender posts it, turned into the fields of
// a lead (spec §2.1). Pure: no I/O, `now` and the account's settings come in
// through ctx, so the same body always yields the same lead.

import { ageOn, MAX_PLAUSIBLE_AGE, parseDateInput } from './dates.ts'
import { canonicalFieldName, lastPathPart, matchCoreFieldPath } from './field-aliases.ts'
import type { CoreField } from './field-aliases.ts'
import { CONSENT_FIELDS, matchConsentField, type ConsentEvidence, type ConsentField } from './consent.ts'
import { fieldMapTarget, type FieldMap, type FieldMapTarget } from './field-map.ts'
import { boundText, isPresent, MAX_FIELD_LENGTH, readFieldValue } from './field-value.ts'
import type { FieldValue } from './field-value.ts'
import { boundExtraFields, MAX_EXTRA_FIELDS_BYTES } from './extra-fields.ts'
import { matchIndustryField } from './industry-fields.ts'
import type { IndustryField } from './industry-fields.ts'
import { normalizePhone, phoneRequired } from './phone.ts'
import { joinName, splitFullName } from './full-name.ts'
import type { PhoneErrorCode } from './phone.ts'
import { usStateCode } from './us-states.ts'

export { flattenLeadAdsPayload } from './lead-ads.ts'

/** Something intake fixed, dropped or could not read, without rejecting the lead. */
export type IntakeWarning = { code: string; field: string; message: string }

export interface LeadFields {
  phone: string // E.164
  phoneLast10: string // identity key
  phoneRaw: string // as received (stringified)
  phoneExtension?: string // `x123`, `ext. 4`: kept apart, never dialed as digits
  fullName?: string
  firstName?: string
  lastName?: string
  email?: string
  state?: string // trimmed; a US state name or code becomes the 2-letter uppercase code; otherwise kept as received
  age?: number
  dob?: string // YYYY-MM-DD
  source?: string
  vendor?: string
  leadDate?: string // YYYY-MM-DD, or full ISO when a time was given
  doNotCall?: boolean // only present when the sender sent a do-not-call field
  city?: string
  zip?: string
  address?: string
  industryFields: Record<string, string> // canonical industry key -> value (stringified scalars)
  extraFields: Array<{ name: string; value: unknown }> // unrecognised fields, original name and value as received
}

export type NormalizeResult =
  | {
      ok: true
      lead: LeadFields
      warnings: IntakeWarning[]
      /** Name fields filled from another form of the name rather than sent: they may fill a gap, never overwrite. */
      derived: DerivedNameField[]
      /** The submission's consent evidence (consent.ts), when it carried any. */
      consent?: ConsentEvidence
      /** The fields the source's field map filled, and the path each came from. */
      mapped?: Array<{ field: string; path: string }>
    }
  | { ok: false; error: { code: PhoneErrorCode; message: string } }

export type DerivedNameField = 'fullName' | 'firstName' | 'lastName'

export interface IntakeContext {
  /** ISO 3166 alpha-2 country for numbers without a country code. */
  defaultCountry: string
  /** The account's IANA zone: ages and offset-less times are read in it. */
  timeZone: string
  /** The account's industry (see INDUSTRIES), or null for none. */
  industry: string | null
  now: Date
  /** The source's field map (field-map.ts): a mapped path fills its field before any name does. */
  fieldMap?: FieldMap
}

// Spec §2.1 lists the truthy do-not-call values 1, true, yes and y. `on` is what a browser sends
// for a ticked checkbox that has no value of its own: a web form's "do not call me" box. Any other
// value means "not flagged"; one that is not a plain no either is pointed out to the sender.
const DNC_TRUE: ReadonlySet<string> = new Set(['1', 'true', 'yes', 'y', 'on'])
const DNC_FALSE: ReadonlySet<string> = new Set(['0', 'false', 'no', 'n', 'off'])

// `34`, `34.0`, `34 years`, `34 yrs old`, `34 y/o`: whole years, fractions dropped.
const AGE_TEXT = /^(\d{1,3})(?:\.\d+)?(?:\s*(?:years?|yrs?)(?:\s+old)?|\s*y\/?o)?$/i

interface Entry {
  name: string
  value: unknown
  /** The value as read for a text field, computed once. */
  read: FieldValue
  /** Position in the body, so extras keep the sender's order. */
  order: number
  /** How deep in nested objects it was sent (0: a member of the body itself). */
  depth: number
}

type TextRead = Extract<FieldValue, { kind: 'text' }>

const isText = <E extends Entry>(entry: E): entry is E & { read: TextRead } => entry.read.kind === 'text'

type PhoneFailure = Extract<NormalizeResult, { ok: false }>

// The lead while its core fields are being read; the field maps are added last.
type CoreLead = Omit<LeadFields, 'industryFields' | 'extraFields'>

interface CoreCandidate extends Entry {
  rank: number
}

/**
 * Nested objects are read as their members' paths (`{"contact":{"phone":…}}` is `contact.phone`), at
 * most this deep; a deeper object is kept whole as an extra field (the webhook refuses deeper bodies).
 */
export const MAX_PATH_DEPTH = 32

const NO_CANDIDATES: readonly CoreCandidate[] = []

/** An entry with its rank, as a literal of one shape (a spread of the entry made each one slow to build and to read). */
function ranked(entry: Entry, rank: number): CoreCandidate {
  return { name: entry.name, value: entry.value, read: entry.read, order: entry.order, depth: entry.depth, rank }
}

const PLAIN_TEXT_FIELDS = ['source', 'vendor', 'city', 'zip', 'address'] as const

/** Normalise a webhook body into lead fields; fails only for a missing or unusable phone. */
export function normalizeLeadInput(input: Record<string, unknown>, ctx: IntakeContext): NormalizeResult {
  const intake = new Intake(ctx)
  intake.classify(input)
  return intake.finish()
}

// One normalisation run: collects the body's entries by meaning, then reads each field once.
class Intake {
  private readonly core = new Map<CoreField, CoreCandidate[]>()
  private readonly industry = new Map<string, { field: IndustryField; entries: Entry[] }>()
  private readonly extras: Entry[] = []
  private readonly warnings: IntakeWarning[] = []
  private readonly derived: DerivedNameField[] = []
  private readonly consent = new Map<ConsentField, CoreCandidate[]>()
  private readonly mapped: Array<{ field: string; path: string }> = []
  private readonly fieldMap: ReadonlyMap<string, FieldMapTarget>
  private order = 0

  constructor(private readonly ctx: IntakeContext) {
    this.fieldMap = new Map((ctx.fieldMap ?? []).flatMap((m) => {
      const target = fieldMapTarget(m.field)
      return target === undefined ? [] : [[canonicalFieldName(m.path), target] as const]
    }))
  }

  classify(input: unknown, prefix = '', depth = 0): void {
    // The type says Record, but a webhook body can be anything; never throw on it.
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return
    const body = input as Record<string, unknown>
    for (const key of Object.keys(body)) {
      const name = depth === 0 ? key : `${prefix}.${key}`
      const value = body[key]
      if (isPlainObject(value) && depth + 1 < MAX_PATH_DEPTH) {
        this.classify(value, name, depth + 1)
        continue
      }
      this.classifyEntry({ name, value, read: readFieldValue(value), order: this.order++, depth })
    }
  }

  private classifyEntry(entry: Entry): void {
    const { name } = entry
    // Empty, null and whitespace values are absent: they produce no field, not even an extra.
    if (entry.read.kind === 'absent') return
    const target = this.fieldMap.size === 0 ? undefined : this.fieldMap.get(canonicalFieldName(name))
    if (target !== undefined) {
      // The source's own map names this path: it fills the field ahead of any name.
      this.mapped.push({ field: target.name, path: name })
      if (target.kind === 'core') push(this.core, target.field, ranked(entry, -1))
      else push(this.consent, target.field, ranked(entry, -1))
      return
    }
    const core = matchCoreFieldPath(name)
    if (core !== undefined) {
      push(this.core, core.field, ranked(entry, core.rank))
      return
    }
    const consent = matchConsentField(name)
    if (consent !== undefined) {
      push(this.consent, consent.field, ranked(entry, consent.rank))
      return
    }
    const last = lastPathPart(name)
    const industryField = matchIndustryField(this.ctx.industry, name) ?? (last === null ? undefined : matchIndustryField(this.ctx.industry, last))
    if (industryField !== undefined) {
      const group = this.industry.get(industryField.key) ?? { field: industryField, entries: [] }
      group.entries.push(entry)
      this.industry.set(industryField.key, group)
      return
    }
    this.extras.push(entry)
  }

  finish(): NormalizeResult {
    const phone = this.readPhone()
    if (!phone.ok) return phone
    // Made as a literal and grown field by field (not spread): V8 then reads and copies it fast.
    const lead: CoreLead = { phone: phone.fields.phone, phoneLast10: phone.fields.phoneLast10, phoneRaw: phone.fields.phoneRaw }
    if (phone.fields.phoneExtension !== undefined) lead.phoneExtension = phone.fields.phoneExtension

    this.readNames(lead)
    this.readEmail(lead)
    const state = this.readText('state')
    if (state !== undefined) lead.state = usStateCode(state) ?? state
    this.readDobAndAge(lead)
    this.readLeadDate(lead)
    this.readDoNotCall(lead)
    for (const field of PLAIN_TEXT_FIELDS) {
      const text = this.readText(field)
      if (text !== undefined) lead[field] = text
    }
    const industryFields = this.readIndustryFields()
    const consent = this.readConsent()

    const extraFields = this.extras.length === 0 ? [] : this.boundExtras(this.extras.sort((a, b) => a.order - b.order).map(({ name, value }) => ({ name, value })))
    return {
      ok: true, lead: Object.assign(lead, { industryFields, extraFields }), warnings: this.warnings, derived: this.derived,
      ...(consent === undefined ? {} : { consent }),
      ...(this.mapped.length === 0 ? {} : { mapped: this.mapped }),
    }
  }

  // The lead is kept whatever extra fields come with it: those past the bound are dropped, and named.
  private boundExtras(extras: Array<{ name: string; value: unknown }>): Array<{ name: string; value: unknown }> {
    const { kept, dropped } = boundExtraFields(extras)
    if (dropped.length > 0) {
      const named = dropped.slice(0, 5).join(', ') + (dropped.length > 5 ? ', …' : '')
      this.warn('extra_fields_dropped', dropped[0] as string, `extra fields are limited to ${MAX_EXTRA_FIELDS_BYTES} bytes per lead: ${dropped.length} of them were not kept (${named})`)
    }
    return kept
  }

  private readPhone(): { ok: true; fields: Pick<LeadFields, 'phone' | 'phoneLast10' | 'phoneRaw' | 'phoneExtension'> } | PhoneFailure {
    const candidates = this.candidates('phone')
    // Spec alias order decides among several phones; an object is used only when nothing else was sent.
    const chosen = candidates.find(isText) ?? candidates[0]
    if (chosen === undefined) return { ok: false, error: phoneRequired() }
    const result = normalizePhone(chosen.value, this.ctx.defaultCountry)
    if (!result.ok) return result
    this.setAside(candidates, chosen)
    // Kept as received (not trimmed), but bounded like every other string.
    const raw = result.phone.raw
    const phoneRaw = raw.length > MAX_FIELD_LENGTH ? this.truncate(chosen.name, raw) : raw
    if (!result.phone.valid) {
      this.warn('phone_not_valid', chosen.name, `phone ${JSON.stringify(phoneRaw)} is not a valid number in the account's country (${this.ctx.defaultCountry}) nor, with + or 00, in the one it names; kept as ${result.phone.e164}, and never dialed until a valid number is sent`)
    }
    const extension = result.phone.extension === undefined ? {} : { phoneExtension: result.phone.extension }
    return { ok: true, fields: { phone: result.phone.e164, phoneLast10: result.phone.last10, phoneRaw, ...extension } }
  }

  private readNames(lead: CoreLead): void {
    // Names are display text: runs of whitespace (tabs, double spaces) fold to one space.
    const fullName = collapse(this.readText('fullName'))
    const firstName = collapse(this.readText('firstName'))
    const lastName = collapse(this.readText('lastName'))
    // Each form of the name fills the other when the sender sent only one: the full name's first
    // name and the rest (see full-name.ts; names are single-spaced by now).
    const split = fullName !== undefined && (firstName === undefined || lastName === undefined) ? splitFullName(fullName) : undefined
    const filledFirst = firstName ?? split?.first
    const filledLast = lastName ?? split?.last
    const filledFull = fullName ?? joinName(firstName, lastName)
    if (filledFull !== undefined) lead.fullName = filledFull
    if (filledFirst !== undefined) lead.firstName = filledFirst
    if (filledLast !== undefined) lead.lastName = filledLast
    if (fullName === undefined && filledFull !== undefined) this.derived.push('fullName')
    if (firstName === undefined && filledFirst !== undefined) this.derived.push('firstName')
    if (lastName === undefined && filledLast !== undefined) this.derived.push('lastName')
  }

  private readDoNotCall(lead: CoreLead): void {
    const picked = this.pick('doNotCall')
    if (picked === undefined) return
    const value = picked.text.toLowerCase()
    lead.doNotCall = DNC_TRUE.has(value)
    if (!lead.doNotCall && !DNC_FALSE.has(value)) {
      this.warn('dnc_unrecognized', picked.name, `do-not-call value ${JSON.stringify(picked.text)} is not one Leadline reads (1, true, yes, y, on flag the lead; 0, false, no, n, off do not): the lead is not flagged`)
    }
  }

  private readEmail(lead: CoreLead): void {
    const email = this.pick('email')
    if (email === undefined) return
    lead.email = email.text.toLowerCase()
    // Kept anyway: a typo'd address still tells a person who the lead is.
    if (!email.text.includes('@')) this.warn('email_invalid', email.name, `email ${JSON.stringify(lead.email)} has no @`)
  }

  private readDobAndAge(lead: CoreLead): void {
    const ageEntry = this.pick('age')
    let sentAge: { age: number; name: string } | undefined
    if (ageEntry !== undefined) {
      const match = AGE_TEXT.exec(ageEntry.text.trim())
      const age = match === null ? undefined : Number(match[1])
      if (age === undefined || age > MAX_PLAUSIBLE_AGE) {
        this.unreadable(ageEntry, 'age_unparseable', `age ${JSON.stringify(ageEntry.text)} is not a whole number of years from 0 to ${MAX_PLAUSIBLE_AGE}; kept as an extra field`)
      } else {
        lead.age = age
        sentAge = { age, name: ageEntry.name }
      }
    }

    const dobEntry = this.pick('dob')
    if (dobEntry === undefined) return
    const parsed = parseDateInput(dobEntry.text, this.ctx)
    if (parsed === null) {
      this.unreadable(dobEntry, 'dob_unparseable', `date of birth ${JSON.stringify(dobEntry.text)} is not a date intake can read; kept as an extra field`)
      return
    }
    lead.dob = parsed.date
    // Spec §2.1 rule 1. An unreadable age counts as no age, so a good dob still yields one.
    const computed = ageOn(parsed.date, this.ctx.now, this.ctx.timeZone)
    if (!computed.ok) {
      this.warn(computed.code, dobEntry.name, computed.message)
      return
    }
    if (sentAge === undefined) {
      lead.age = computed.age
      return
    }
    // Both sent: the age is kept as sent, but a sender's age a year off (computed on another day) is
    // common, and more than that is worth a look.
    if (Math.abs(computed.age - sentAge.age) > 1) {
      this.warn('age_dob_mismatch', sentAge.name, `age ${sentAge.age} disagrees with the date of birth ${parsed.date} (${computed.age} today); both kept as sent`)
    }
  }

  private readLeadDate(lead: CoreLead): void {
    const entry = this.pick('leadDate')
    if (entry === undefined) return
    const parsed = parseDateInput(entry.text, this.ctx)
    if (parsed === null) {
      this.unreadable(entry, 'lead_date_unparseable', `lead date ${JSON.stringify(entry.text)} is not a date intake can read; kept as an extra field`)
      return
    }
    lead.leadDate = parsed.dateTime ?? parsed.date
  }

  private readIndustryFields(): Record<string, string> {
    // Keys come from the industry table, never from the body, so a plain object is safe.
    const industryFields: Record<string, string> = {}
    for (const { field, entries } of this.industry.values()) {
      // The first readable value in body order wins; the rest stay as extras.
      const chosen = entries.find(isText)
      if (chosen === undefined) {
        this.keepObjects(entries)
        continue
      }
      this.setAside(entries, chosen)
      industryFields[field.key] = this.bound(chosen.name, chosen.read.text)
    }
    return industryFields
  }

  // Each evidence field's first text value, as sent; the rest are extras, as for any repeated field.
  private readConsent(): ConsentEvidence | undefined {
    const evidence: { -readonly [F in ConsentField]?: string } = {}
    for (const field of CONSENT_FIELDS) {
      const candidates = sorted(this.consent.get(field) ?? NO_CANDIDATES)
      const chosen = candidates.find(isText)
      if (chosen === undefined) {
        this.keepObjects(candidates)
        continue
      }
      this.setAside(candidates, chosen)
      evidence[field] = this.bound(chosen.name, chosen.read.text)
    }
    return Object.keys(evidence).length === 0 ? undefined : evidence
  }

  /** The chosen text of a core field (trimmed, bounded), setting the other candidates aside. */
  private readText(field: CoreField): string | undefined {
    return this.pick(field)?.text
  }

  private pick(field: CoreField): { name: string; text: string; entry: Entry } | undefined {
    const candidates = this.candidates(field)
    const chosen = candidates.find(isText)
    if (chosen === undefined) {
      this.keepObjects(candidates)
      return undefined
    }
    this.setAside(candidates, chosen)
    return { name: chosen.name, text: this.bound(chosen.name, chosen.read.text), entry: chosen }
  }

  private candidates(field: CoreField): readonly CoreCandidate[] {
    return sorted(this.core.get(field) ?? NO_CANDIDATES)
  }

  /**
   * Everything not chosen for a field is kept as an extra, with a warning saying why; so is the chosen
   * entry itself when it carried several values (`phone=A&phone=B`, a lead-ads `values` list of two):
   * the first fills the field, and every value is kept, so none is lost.
   */
  private setAside(entries: readonly Entry[], chosen: Entry): void {
    for (const entry of entries) {
      if (entry === chosen) continue
      if (entry.read.kind === 'object') {
        this.keepObjects([entry])
        continue
      }
      this.extras.push(entry)
      this.warn('field_duplicate', entry.name, `${entry.name} repeats ${chosen.name}; the first was used and this one kept as an extra field`)
    }
    if (!Array.isArray(chosen.value)) return
    const count = chosen.value.filter(isPresent).length
    if (count < 2) return
    this.extras.push(chosen)
    this.warn('field_multiple_values', chosen.name, `${chosen.name} had ${count} values; the first was used and all of them kept as an extra field`)
  }

  // Objects cannot fill a text field (the spec types them as strings), but they are not lost.
  private keepObjects(entries: readonly Entry[]): void {
    for (const entry of entries) {
      this.extras.push(entry)
      this.warn('field_type_invalid', entry.name, `${entry.name} is an object, not text; kept as an extra field`)
    }
  }

  private unreadable(picked: { entry: Entry; name: string }, code: string, message: string): void {
    // Already an extra when it had several values.
    if (!this.extras.includes(picked.entry)) this.extras.push(picked.entry)
    this.warn(code, picked.name, message)
  }

  private bound(name: string, text: string): string {
    const bounded = boundText(text)
    if (bounded.truncated) this.warnTruncated(name)
    return bounded.text
  }

  private truncate(name: string, text: string): string {
    this.warnTruncated(name)
    return Array.from(text).slice(0, MAX_FIELD_LENGTH).join('')
  }

  private warnTruncated(name: string): void {
    this.warn('field_truncated', name, `${name} was longer than ${MAX_FIELD_LENGTH} characters and was cut to ${MAX_FIELD_LENGTH}`)
  }

  private warn(code: string, field: string, message: string): void {
    this.warnings.push({ code, field, message })
  }
}

/**
 * A field map's path first, then spec alias order, then a name sent at the top before one nested in an
 * object, then body order among names that fold to the same alias.
 */
function sorted(entries: readonly CoreCandidate[]): readonly CoreCandidate[] {
  return entries.length <= 1 ? entries : [...entries].sort((a, b) => a.rank - b.rank || a.depth - b.depth || a.order - b.order)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value)
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
}

function collapse(text: string | undefined): string | undefined {
  return text?.replace(/\s+/g, ' ')
}
