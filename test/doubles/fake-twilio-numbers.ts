/**
 * TEST DOUBLE: the number resources of the fake Twilio (fake-twilio.ts routes them here), with state,
 * in the shapes of Twilio's documented API:
 * - `GET /2010-04-01/Accounts/{Sid}/AvailablePhoneNumbers/{Country}/Local.json`: the inventory for
 *   sale, filtered by `AreaCode`, `InPostalCode`, `InRegion`, `NearNumber` (same area code, as a
 *   stand-in for Twilio's distance), `Contains` (`*` any digit), `PageSize`; numbers the account
 *   bought are no longer offered. `{ available_phone_numbers: [...], page, page_size, uri, … }`.
 * - `POST …/IncomingPhoneNumbers.json` with `PhoneNumber`: buys it (201, the IncomingPhoneNumber);
 *   400 with 21452 without a number, 21422 for one that is not for sale (or bought already).
 * - `POST …/IncomingPhoneNumbers/{PN…}.json`: updates its `VoiceUrl`, `VoiceMethod`,
 *   `StatusCallback`, `StatusCallbackMethod`, `SmsUrl`, `SmsMethod` (200, the number), recorded
 *   (`updates()`) and shown by the IncomingPhoneNumbers list from then on; 404 (20404) for a sid it
 *   does not hold.
 * - Pricing: `GET /v1/PhoneNumbers/Countries/{Country}` (pricing.twilio.com) with the local price
 *   (`price`), or 404 when the fake is told Twilio has none.
 */
import { createHash } from 'node:crypto'

export interface AvailableFakeNumber {
  readonly number: string
  readonly locality: string
  readonly region: string
  readonly postalCode: string
}

export interface FakeNumbersOptions {
  /** Numbers for sale (default: a few in Chicago and Austin). */
  readonly available?: readonly AvailableFakeNumber[]
  /** The local monthly price the Pricing API says (default `1.15`); null: it answers 404. */
  readonly price?: string | null
}

/** A number update as the SDK posted it. */
export interface NumberUpdate {
  readonly sid: string
  readonly number: string
  readonly form: Readonly<Record<string, string | string[]>>
}

export interface FakeAnswer {
  readonly status: number
  readonly body: Record<string, unknown>
  readonly outcome: 'created' | 'updated' | 'listed' | 'invalid' | 'not_found'
  readonly sid?: string
}

export const DEFAULT_AVAILABLE: readonly AvailableFakeNumber[] = [
  { number: '+13125550181', locality: 'Chicago', region: 'IL', postalCode: '60601' },
  { number: '+13125550182', locality: 'Chicago', region: 'IL', postalCode: '60601' },
  { number: '+13125550183', locality: 'Chicago', region: 'IL', postalCode: '60611' },
  { number: '+15125550184', locality: 'Austin', region: 'TX', postalCode: '78701' },
]

/** The sid the fake gives a number of the account (the lists and the resources agree on it). */
export function incomingSid(number: string): string {
  return `PN${createHash('md5').update(`IncomingPhoneNumbers:${number}`).digest('hex')}`
}

type Form = Readonly<Record<string, string | string[]>>
const single = (form: Form, key: string): string | undefined => {
  const value = form[key]
  return Array.isArray(value) ? value[0] : value
}

const WEBHOOK_FIELDS = { VoiceUrl: 'voice_url', VoiceMethod: 'voice_method', StatusCallback: 'status_callback', StatusCallbackMethod: 'status_callback_method', SmsUrl: 'sms_url', SmsMethod: 'sms_method' } as const

export class FakeNumbers {
  private readonly available: AvailableFakeNumber[]
  private readonly hooks = new Map<string, Record<string, string>>()
  private readonly updated: NumberUpdate[] = []
  private readonly bought: string[] = []

  constructor(
    private readonly accountSid: string,
    /** The account's IncomingPhoneNumbers, shared with the fake's list. */
    private readonly incoming: string[],
    private readonly options: FakeNumbersOptions = {},
  ) {
    this.available = [...(options.available ?? DEFAULT_AVAILABLE)]
  }

  /** Numbers bought through `POST IncomingPhoneNumbers.json`, in order. */
  purchases(): string[] {
    return [...this.bought]
  }

  /** Every update of a number's webhooks, in order. */
  updates(): NumberUpdate[] {
    return [...this.updated]
  }

  /** The webhook fields of a number as the IncomingPhoneNumbers list shows them. */
  webhooksOf(number: string): Record<string, string> {
    return { ...this.hooks.get(number) }
  }

  /** The answer for a number route, or null when `route` is not one (the fake answers 404 then). */
  route(method: string, route: string, query: URLSearchParams): ((form: Form) => FakeAnswer) | null {
    const account = `/2010-04-01/Accounts/${this.accountSid}`
    const local = new RegExp(`^${account}/AvailablePhoneNumbers/([A-Z]{2})/Local\\.json$`).exec(route)
    if (local !== null && method === 'GET') return () => this.search(local[1] as string, query)
    if (route === `${account}/IncomingPhoneNumbers.json` && method === 'POST') return (form) => this.buy(form)
    const one = new RegExp(`^${account}/IncomingPhoneNumbers/(PN[0-9a-f]{32})\\.json$`).exec(route)
    if (one !== null && method === 'POST') return (form) => this.update(one[1] as string, form)
    const pricing = /^\/v1\/PhoneNumbers\/Countries\/([A-Z]{2})$/.exec(route)
    if (pricing !== null && method === 'GET') return () => this.price(pricing[1] as string)
    return null
  }

  private search(country: string, query: URLSearchParams): FakeAnswer {
    const pageSize = Math.min(1000, Math.max(1, Number(query.get('PageSize') ?? 50) || 50))
    const area = query.get('AreaCode')
    const near = query.get('NearNumber')
    const contains = query.get('Contains')
    const found = this.available.filter((n) =>
      !this.incoming.includes(n.number) &&
      (area === null || n.number.startsWith(`+1${area}`)) &&
      (query.get('InPostalCode') === null || n.postalCode === query.get('InPostalCode')) &&
      (query.get('InRegion') === null || n.region === query.get('InRegion')) &&
      (near === null || n.number.slice(0, 5) === near.slice(0, 5)) &&
      (contains === null || new RegExp(contains.replace(/\*/g, '\\d')).test(n.number)))
    const uri = `/2010-04-01/Accounts/${this.accountSid}/AvailablePhoneNumbers/${country}/Local.json?${query.toString()}`
    const items = found.slice(0, pageSize).map((n) => ({
      address_requirements: 'none', beta: false, capabilities: { MMS: true, SMS: true, voice: true }, friendly_name: friendly(n.number),
      iso_country: country, lata: '358', latitude: '41.880000', locality: n.locality, longitude: '-87.630000', phone_number: n.number,
      postal_code: n.postalCode, rate_center: n.locality.toUpperCase(), region: n.region,
    }))
    return { status: 200, outcome: 'listed', body: { available_phone_numbers: items, end: Math.max(0, items.length - 1), first_page_uri: uri, next_page_uri: null, page: 0, page_size: pageSize, previous_page_uri: null, start: 0, uri } }
  }

  private buy(form: Form): FakeAnswer {
    const number = single(form, 'PhoneNumber')
    if (number === undefined || number === '') return invalid(21452, 'No phone number specified')
    if (this.incoming.includes(number) || !this.available.some((n) => n.number === number)) return invalid(21422, `PhoneNumber ${number} requested is not available`)
    this.incoming.push(number)
    this.bought.push(number)
    const sid = incomingSid(number)
    return { status: 201, outcome: 'created', sid, body: this.instance(number) }
  }

  private update(sid: string, form: Form): FakeAnswer {
    const number = this.incoming.find((n) => incomingSid(n) === sid)
    if (number === undefined) return { status: 404, outcome: 'not_found', body: { code: 20404, message: `The requested resource IncomingPhoneNumbers/${sid} was not found`, more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 } }
    const hooks = this.hooks.get(number) ?? {}
    for (const [param, field] of Object.entries(WEBHOOK_FIELDS)) {
      const value = single(form, param)
      if (value !== undefined) hooks[field] = value
    }
    this.hooks.set(number, hooks)
    this.updated.push({ sid, number, form: { ...form } })
    return { status: 200, outcome: 'updated', sid, body: this.instance(number) }
  }

  private price(country: string): FakeAnswer {
    if (this.options.price === null) return { status: 404, outcome: 'not_found', body: { code: 20404, message: 'The requested resource was not found', more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 } }
    const price = this.options.price ?? '1.15'
    return {
      status: 200, outcome: 'listed',
      body: {
        country: 'United States', iso_country: country, price_unit: 'USD', url: `https://pricing.twilio.com/v1/PhoneNumbers/Countries/${country}`,
        phone_number_prices: [{ number_type: 'local', base_price: price, current_price: price }, { number_type: 'toll free', base_price: '2.15', current_price: '2.15' }],
      },
    }
  }

  /** An IncomingPhoneNumber as Twilio answers one. */
  instance(number: string): Record<string, unknown> {
    const sid = incomingSid(number)
    const now = new Date().toUTCString().replace('GMT', '+0000')
    const base = `/2010-04-01/Accounts/${this.accountSid}/IncomingPhoneNumbers`
    return {
      account_sid: this.accountSid, address_requirements: 'none', address_sid: null, api_version: '2010-04-01', beta: false, bundle_sid: null,
      capabilities: { fax: false, mms: true, sms: true, voice: true }, date_created: now, date_updated: now, emergency_address_sid: null,
      emergency_address_status: 'unregistered', emergency_status: 'Inactive', friendly_name: friendly(number), identity_sid: null, origin: 'twilio',
      phone_number: number, sid, sms_application_sid: '', sms_fallback_method: 'POST', sms_fallback_url: '', sms_method: 'POST', sms_url: '',
      status: 'in-use', status_callback: '', status_callback_method: 'POST', trunk_sid: null, uri: `${base}/${sid}.json`, voice_application_sid: '',
      voice_caller_id_lookup: false, voice_fallback_method: 'POST', voice_fallback_url: '', voice_method: 'POST', voice_receive_mode: 'voice', voice_url: '',
      subresource_uris: { assigned_add_ons: `${base}/${sid}/AssignedAddOns.json` },
      ...this.webhooksOf(number),
    }
  }
}

function invalid(code: number, message: string): FakeAnswer {
  return { status: 400, outcome: 'invalid', body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status: 400 } }
}

function friendly(number: string): string {
  const nanp = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number)
  return nanp === null ? number : `(${nanp[1]}) ${nanp[2]}-${nanp[3]}`
}
