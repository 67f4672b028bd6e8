// The accepted input names of spec §2.1, plus the location fields that
// lead-ads sources send. This table changes when the spec's alias list does.

/** Lead fields that intake recognises by name. */
export type CoreField =
  | 'fullName'
  | 'firstName'
  | 'lastName'
  | 'phone'
  | 'email'
  | 'state'
  | 'age'
  | 'dob'
  | 'source'
  | 'vendor'
  | 'leadDate'
  | 'doNotCall'
  | 'city'
  | 'zip'
  | 'address'

/**
 * Accepted names per field, as the spec writes them. Order matters: when a
 * sender posts several aliases of one field, the earlier alias wins (spec
 * order), so `phone` beats `mobile` beats `number`.
 */
export const CORE_FIELD_ALIASES: Readonly<Record<CoreField, readonly string[]>> = {
  fullName: ['name', 'full name', 'fullname', 'full_name', 'lead name', 'contact'],
  firstName: ['first name', 'first_name', 'firstname', 'first'],
  lastName: ['last name', 'last_name', 'lastname', 'last'],
  // The spec's names first; then what vendors and CRM exports call it, a mobile before a home line,
  // and `phone1` before `phone2` before `phone3`.
  phone: [
    'phone', 'phone number', 'phone_number', 'mobile', 'cell', 'number',
    'mobile phone', 'mobilephone', 'cell phone', 'cellphone', 'primary phone', 'primaryphone', 'phone1', 'phone 1',
    'telephone', 'contact phone', 'contactphone', 'home phone', 'homephone', 'phone2', 'phone 2', 'phone3', 'phone 3', 'work phone',
  ],
  email: ['email', 'email address', 'email_address', 'e-mail'],
  state: ['state', 'st'],
  age: ['age'],
  dob: ['dob', 'date of birth', 'date_of_birth', 'birthday', 'birthdate'],
  source: ['source', 'lead source', 'lead_source', 'campaign'],
  vendor: ['vendor', 'lead vendor', 'lead_vendor'],
  leadDate: ['lead date', 'lead_date', 'received on', 'date'],
  doNotCall: ['dnc', 'do not call', 'do_not_call'],
  // Not in the spec's table: lead-ads forms carry these and a dialer wants them typed.
  city: ['city', 'town'],
  // `post code` is Facebook lead ads' `post_code`.
  zip: ['zip', 'zip code', 'zipcode', 'postal code', 'postcode', 'zip_code', 'post code'],
  address: ['address', 'street address', 'street'],
}

/**
 * The loose form of a field name (spec §2.1: case ignored, spaces and
 * underscores interchangeable): trimmed, lowercased, underscores and runs of
 * whitespace folded to one space. Hyphens are kept, so `e-mail` stays itself.
 * Form builders that post a field's label as its name add a required-field
 * `*`, a colon, a `?` or a number sign: trailing, they do not count, so
 * `Phone Number *`, `Email:` and `Phone #` are phone and email.
 */
export function canonicalFieldName(name: string): string {
  return withoutLabelMarks(name).toLowerCase().replace(/[\s_]+/g, ' ').trim()
}

// Trailing only, so `sq. ft.` and `x-date` keep every character that tells them apart. A loop from
// the end, not /[\s*:?#]+$/: that regex retries from every mark in a name, so a 64 KiB body's name of
// spaces ending in a letter took seconds of the event loop.
const LABEL_MARK = /[\s*:?#]/
function withoutLabelMarks(name: string): string {
  let end = name.length
  while (end > 0 && LABEL_MARK.test(name.charAt(end - 1))) end--
  return end === name.length ? name : name.slice(0, end)
}

/** A recognised core field and where its alias stands in the spec's order. */
export interface CoreFieldMatch {
  field: CoreField
  /** 0 for the field's first alias; lower wins when several are sent. */
  rank: number
}

// A Map, not an object: names like `constructor` or `__proto__` must not hit Object.prototype.
const ALIAS_INDEX: ReadonlyMap<string, CoreFieldMatch> = buildIndex()

function buildIndex(): Map<string, CoreFieldMatch> {
  const index = new Map<string, CoreFieldMatch>()
  for (const field of Object.keys(CORE_FIELD_ALIASES) as CoreField[]) {
    let rank = 0
    for (const alias of CORE_FIELD_ALIASES[field]) {
      const key = canonicalFieldName(alias)
      // `phone number` and `phone_number` fold to one key and share a rank.
      if (index.has(key)) continue
      index.set(key, { field, rank })
      rank += 1
    }
  }
  return index
}

/** The core field an input name means, with its precedence rank, or undefined. */
export function matchCoreField(name: string): CoreFieldMatch | undefined {
  return ALIAS_INDEX.get(canonicalFieldName(name))
}

/**
 * The last part of a dotted name or path (`Lead.Cellphone` → `Cellphone`, `contact.phone` →
 * `phone`), or null for a name without a dot. A name is matched as a whole first, then on this.
 */
export function lastPathPart(name: string): string | null {
  const dot = name.lastIndexOf('.')
  if (dot === -1) return null
  const last = name.slice(dot + 1)
  return last.trim() === '' ? null : last
}

/** matchCoreField for a name that may be a path: the whole name first, then its last part. */
export function matchCoreFieldPath(name: string): CoreFieldMatch | undefined {
  const whole = matchCoreField(name)
  if (whole !== undefined) return whole
  const last = lastPathPart(name)
  return last === null ? undefined : matchCoreField(last)
}

/** The core field an input name means, or undefined when it is not an accepted name. */
export function lookupCoreField(name: string): CoreField | undefined {
  return matchCoreField(name)?.field
}
