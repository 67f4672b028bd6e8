/**
 * What an owner alert says (issue #40): what happened and to whom, in at most two SMS segments, with
 * times in the account's own zone and the zone named. An alert goes from the business's own number
 * to the owner's phone, so whatever a lead typed (a name) is relayed only as plain words: at most
 * MAX_LEAD_FIELD characters a field, with invisible characters, links, e-mail addresses and phone
 * numbers other than the lead's own taken out. A lead cannot make the alert carry a link to tap, a
 * number to ring back, or a second screen of text.
 */
import { DateTime } from 'luxon'
import { findPhoneNumbersInText } from 'libphonenumber-js/max'
import { normalizePhone, resolveCountry } from '../lead/intake/phone.ts'
import { textSegments } from '../lead/texts/text-body.ts'
import type { AlertKind } from './owner-alerts.events.ts'

/** A field the lead supplied is cut to this many characters in an alert. */
export const MAX_LEAD_FIELD = 60
/** What is read of a field at all (characters): enough to fill MAX_LEAD_FIELD after removals, never a whole hostile body. */
const READ_AT_MOST = 1000
/** An alert is at most this many SMS segments. */
export const MAX_ALERT_SEGMENTS = 2

/** Format, bidi and control characters: a right-to-left override could make a link read as a name. */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/gu
const SPACES = /\s+/gu
/**
 * A word that a phone would show as a link or an address: a scheme (`http:`, `tel:`), an `@`, a
 * `www.`, a dot (any script's) between a letter or digit and two more (`bit.ly`, `evil。com`), or
 * between digits (`10.0.0.1`).
 */
const LINK_OR_ADDRESS = /[:@/\\]|^www|[\p{L}\p{N}][.\u3002\uFF0E\uFF61\u2024][\p{L}\p{N}]{2}|\p{N}[.\u3002\uFF0E\uFF61\u2024]\p{N}/iu
/** Seven digits or more, with up to three separators between each: a number someone could ring. */
const DIGIT_RUN = /\+?\p{Nd}(?:[\s().\-/]{0,3}\p{Nd}){6,}/gu

export interface AlertLead {
  /** What the lead gave as their name, as received. */
  readonly name: string | null
  /** The lead's own number, E.164, as Leadline read it. */
  readonly phone: string | null
  readonly phoneLast10: string
}

export interface AlertContext {
  /** The account's IANA zone: every time in an alert is shown in it, named. */
  readonly timeZone: string
  /** How numbers written without a country code are read. */
  readonly defaultCountry: string
}

export interface AlertDetail {
  readonly amount?: string
  readonly callbackAt?: string
  /** A missed inbound call: when it was missed, and whether the caller pressed the key asking for a call back. */
  readonly missedAt?: string
  readonly callbackRequested?: boolean
}

/**
 * A lead-supplied value as an alert may relay it: NFKC, invisible characters gone, links, e-mail
 * addresses and phone numbers other than the lead's own removed, spaces collapsed, at most `max` characters.
 */
export function relayable(value: string, leadPhone: string | null, context: Pick<AlertContext, 'defaultCountry'>, max = MAX_LEAD_FIELD): string {
  // The first READ_AT_MOST characters (a UTF-16 slice twice as long never ends inside them).
  let text = [...value.slice(0, 2 * READ_AT_MOST)].slice(0, READ_AT_MOST).join('').normalize('NFKC').replace(INVISIBLE, ' ')
  text = withoutOtherNumbers(text, leadPhone, context.defaultCountry)
  const words = text.split(SPACES).filter((word) => word !== '' && !LINK_OR_ADDRESS.test(word))
  return cut(words.join(' '), max)
}

/** The alert's text: what happened and to whom, never what the lead said (a reply's words are kept like a transcript). */
export function alertText(kind: AlertKind, lead: AlertLead, context: AlertContext, detail: AlertDetail = {}): string {
  const phone = lead.phone ?? `…${lead.phoneLast10.slice(-4)}`
  const name = lead.name === null ? '' : relayable(lead.name, lead.phone, context)
  // A name outside GSM-7 halves what a segment holds: the name gives way until two segments hold it all.
  for (let length = [...name].length; ; length = Math.max(0, length - 10)) {
    const who = [cut(name, length), phone].filter((part) => part !== '').join(' ')
    const text = sentence(kind, who, context, detail)
    if (length === 0 || textSegments(text).segments <= MAX_ALERT_SEGMENTS) return text
  }
}

/** A moment as the owner reads it: `Thu 26 Nov, 10:00 AM America/Chicago`. */
export function alertTime(iso: string, timeZone: string): string {
  const at = DateTime.fromISO(iso, { zone: 'utc' }).setZone(timeZone)
  return at.isValid ? `${at.toFormat('ccc d LLL, h:mm a')} ${at.zoneName}` : iso
}

function sentence(kind: AlertKind, who: string, context: AlertContext, detail: AlertDetail): string {
  switch (kind) {
    case 'new_lead':
      return `Leadline: new lead ${who}`
    case 'callback':
      return `Leadline: ${who} asked to be called back${detail.callbackAt ? ` (${alertTime(detail.callbackAt, context.timeZone)})` : ''}`
    case 'replied':
      return `Leadline: ${who} replied by text (read it in the console)`
    case 'payment':
      return `Leadline: ${who} paid${detail.amount ? ` ${detail.amount}` : ''}`
    case 'missed_call':
      return `Leadline: missed call from ${who}${detail.missedAt ? ` (${alertTime(detail.missedAt, context.timeZone)})` : ''}${detail.callbackRequested ? '; they asked for a call back' : ''}`
  }
}

/** Phone numbers (libphonenumber's reading, then any long run of digits) other than the lead's own, taken out. */
function withoutOtherNumbers(text: string, leadPhone: string | null, defaultCountry: string): string {
  const country = resolveCountry(defaultCountry)
  const own = (candidate: string) => {
    const read = normalizePhone(candidate, country)
    return leadPhone !== null && read.ok && read.phone.e164 === leadPhone
  }
  let out = ''
  let from = 0
  for (const found of findPhoneNumbersInText(text, country)) {
    out += text.slice(from, found.startsAt) + (found.number.number === leadPhone ? text.slice(found.startsAt, found.endsAt) : ' ')
    from = found.endsAt
  }
  out += text.slice(from)
  return out.replace(DIGIT_RUN, (digits) => (own(digits) ? digits : ' '))
}

/** At most `max` characters, never half of a surrogate pair. */
function cut(text: string, max: number): string {
  const characters = [...text]
  return characters.length <= max ? text : characters.slice(0, max).join('').trimEnd()
}
