/**
 * What a language model may see of a lead, as data: an allow-list (the lead's names, source and state,
 * the fields the assistant's brief declares, and the answers collected on the call), and, whatever
 * passes it, every value withheld that looks like payment data, a bank or account number, an SSN, a
 * password or a one-time code, by the field's name or by the value itself. Sources: PCI DSS v4.0
 * (primary account numbers, 13 to 19 digits, Luhn mod 10, ISO/IEC 7812-1; card security codes),
 * NIST SP 800-63B (passwords and one-time codes are authenticators), SSA (SSN format AAA-GG-SSSS).
 */

/** A kind of value a model never sees, with the field names that hold it (matched on the name's words). */
export interface WithheldKind {
  readonly kind: string
  /** Tested on the name lower-cased with every run of non-letters and non-digits as one space, padded with spaces. */
  readonly names: RegExp
}

// Each row: what is withheld and how its fields are named (abbreviations too: cc, cvv, acct, pwd, otp, exp).
export const WITHHELD_BY_NAME: readonly WithheldKind[] = [
  { kind: 'card number', names: / (cc|card|credit card|debit card|cc num(ber)?|card num(ber)?|pan|cardnumber|ccnumber|ccnum)( |$)| (credit|debit)/ },
  { kind: 'card security code', names: / (cvv2?|cvc2?|cvn|cid|csc|security code|sec code|card code|card verification)( |$)/ },
  { kind: 'card expiry', names: / (exp|expiry|expiration|exp date|expires|exp month|exp year|expdate|mm ?yy)( |$)/ },
  { kind: 'bank or account number', names: / (acct|account|acc no|accno|acctno|iban|bic|swift|routing|aba|sort code|bank|bsb|ach)( |$)/ },
  { kind: 'social security number', names: / (ssn|sin|social|social security|tax id|tin|itin|ein|national id)( |$)/ },
  { kind: 'password', names: / (password|passwd|pwd|pass|passcode|passphrase|pin|secret)( |$)/ },
  { kind: 'one-time code', names: / (otp|one time|totp|2fa|mfa|verification|verify|auth code|code)( |$)/ },
  { kind: 'credential', names: / (token|api key|apikey|key|credential|credentials)( |$)/ },
]

/** Values withheld whatever their field is called. */
const SSN = /\b\d{3}[ .-]?\d{2}[ .-]?\d{4}\b/
const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b/i
/** A run of digits with spaces, dots or dashes between them: a card, an account or a routing number when long enough. */
const DIGIT_RUN = /\d(?:[ .-]?\d){7,}/g

/** Luhn mod 10 (ISO/IEC 7812-1), on digits only. */
export function luhnValid(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return digits.length > 0 && sum % 10 === 0
}

function words(name: string): string {
  return ` ${name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `
}

/** Why a value must not reach a model, by what it looks like; null when it looks like none of the kinds. */
export function withheldValue(value: string): string | null {
  for (const run of value.match(DIGIT_RUN) ?? []) {
    const digits = run.replace(/\D/g, '')
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) return 'card number'
    // Eight or more digits in a run: an account, routing or card-like number (a phone is not needed by the model either).
    if (digits.length >= 8) return 'bank or account number'
  }
  if (SSN.test(value)) return 'social security number'
  if (IBAN.test(value)) return 'bank or account number'
  return null
}

/** Why the field `name` = `value` must not reach a model, by its name or its value; null when it may. */
export function withheldField(name: string, value: string): string | null {
  const named = words(name)
  for (const row of WITHHELD_BY_NAME) if (row.names.test(named)) return row.kind
  return withheldValue(value)
}

/** The name as the allow-list compares it: its words, no case, no separators. */
function key(name: string): string {
  return words(name).trim()
}

/**
 * The lead's fields a model may read: `state`, and those the brief declares (by name, any case or
 * separator), each only when neither its name nor its value is withheld.
 */
export function modelFields(fields: ReadonlyArray<readonly [string, string]>, declared: readonly string[]): Array<[string, string]> {
  const allowed = new Set(['state', ...declared].map(key))
  return fields.filter(([name, value]) => allowed.has(key(name)) && withheldField(name, value) === null).map(([name, value]) => [name, value])
}

/** Free text (a source, what the lead said) with every withheld-looking value replaced, so none reaches a model. */
export function withoutWithheldValues(text: string): string {
  return text.replace(DIGIT_RUN, (run) => (withheldValue(run) === null ? run : '[withheld]')).replace(new RegExp(SSN.source, 'g'), '[withheld]')
}
