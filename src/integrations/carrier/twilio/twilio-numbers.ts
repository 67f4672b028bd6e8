/**
 * The Twilio account's numbers, through the SDK: its IncomingPhoneNumbers (list, buy, point the
 * webhooks at Leadline), local AvailablePhoneNumbers to buy, and the monthly price of a local number
 * from the Pricing API. Failures map like a call's (`toCarrierError`): a purchase that may have gone
 * through is `unknown_outcome`, and Leadline never sends it again.
 */
import type { Twilio } from 'twilio'
import type { IncomingPhoneNumberInstance } from 'twilio/lib/rest/api/v2010/account/incomingPhoneNumber.js'
import type { LocalListInstanceOptions } from 'twilio/lib/rest/api/v2010/account/availablePhoneNumberCountry/local.js'
import {
  CarrierError,
  carrierCallbackUrl,
  type AvailableNumber,
  type Carrier,
  type CarrierNumber,
  type NumberSearch,
} from '../carrier.port.ts'

/** What a request is about, in a failure's message. */
export type TwilioNumberRequest = 'number list' | 'number search' | 'number purchase' | 'number update'
type Perform = <T>(what: TwilioNumberRequest, send: () => Promise<T>) => Promise<T>

/** The hooks a number in use posts to: its calls (and their end) and its texts. */
export const NUMBER_HOOKS = { voice: 'voice', voiceStatus: 'voice-status', sms: 'sms' } as const

/** The most numbers a search answers (one page). */
const PAGE = 100
/** The most numbers the account's list shows (the SDK pages through them). */
const LIST_LIMIT = 1000

type Capabilities = Readonly<Record<string, unknown>> | null | undefined
/** AvailablePhoneNumbers says `SMS`, IncomingPhoneNumbers `sms`: either is read. */
function capable(capabilities: Capabilities, name: 'voice' | 'sms'): boolean {
  return capabilities?.[name] === true || capabilities?.[name.toUpperCase()] === true
}

const orNull = (value: string | null | undefined): string | null => (value === undefined || value === null || value === '' ? null : value)

function carrierNumber(n: IncomingPhoneNumberInstance): CarrierNumber {
  const capabilities = n.capabilities as unknown as Capabilities
  return {
    number: n.phoneNumber,
    sid: n.sid,
    friendlyName: n.friendlyName,
    voice: capable(capabilities, 'voice'),
    sms: capable(capabilities, 'sms'),
    voiceUrl: orNull(n.voiceUrl),
    voiceStatusUrl: orNull(n.statusCallback),
    smsUrl: orNull(n.smsUrl),
  }
}

/** Twilio's search parameters for one `NumberSearch`: the most precise place given, numbers that take calls and texts. */
export function localSearchOptions(search: NumberSearch): LocalListInstanceOptions {
  const place: LocalListInstanceOptions =
    search.nearNumber !== undefined ? { nearNumber: search.nearNumber, distance: search.distanceMiles ?? 25 }
      : search.postalCode !== undefined ? { inPostalCode: search.postalCode }
        : search.region !== undefined ? { inRegion: search.region }
          : search.areaCode !== undefined ? { areaCode: Number(search.areaCode) }
            : {}
  return { ...place, ...(search.contains !== undefined ? { contains: search.contains } : {}), voiceEnabled: true, smsEnabled: true, limit: Math.min(search.limit ?? 20, PAGE) }
}

/** The Twilio adapter's number members, over its SDK client and its `perform` (failure mapping). */
export function twilioNumbers(client: Twilio, perform: Perform): Required<Pick<Carrier, 'listNumbers' | 'searchNumbers' | 'monthlyPrice' | 'buyNumber' | 'pointNumber'>> {
  async function find(number: string): Promise<IncomingPhoneNumberInstance> {
    // Filtered by the number, a partial number matches too: the exact one is looked for.
    const found = (await perform('number list', () => client.incomingPhoneNumbers.list({ phoneNumber: number, limit: 20 }))).find((n) => n.phoneNumber === number)
    if (found === undefined) throw new CarrierError('rejected', `${number} is not a number of the twilio account (IncomingPhoneNumbers): buy or port it in first`, { status: 404 })
    return found
  }

  /** The monthly price of a local US number; null when Twilio does not say (a failure here never stops a search). */
  async function localPrice(country: string): Promise<AvailableNumber['monthlyPrice']> {
    try {
      const pricing = await perform('number search', () => client.pricing.v1.phoneNumbers.countries(country).fetch())
      const local = pricing.phoneNumberPrices.find((p) => p.numberType === 'local')
      const amount = local?.currentPrice ?? local?.basePrice
      const price = { amount: String(amount ?? ''), currency: String(pricing.priceUnit ?? '').toUpperCase() }
      // Only a price that reads as one is shown: anything else is the carrier not saying.
      return /^\d{1,6}(\.\d{1,6})?$/.test(price.amount) && /^[A-Z]{3}$/.test(price.currency) ? price : null
    } catch {
      return null
    }
  }

  return {
    async listNumbers() {
      const numbers = await perform('number list', () => client.incomingPhoneNumbers.list({ limit: LIST_LIMIT }))
      return numbers.map(carrierNumber)
    },

    async searchNumbers(search) {
      const [found, monthlyPrice] = await Promise.all([
        perform('number search', () => client.availablePhoneNumbers(search.country).local.list(localSearchOptions(search))),
        localPrice(search.country),
      ])
      return found.map((n) => {
        const capabilities = n.capabilities as unknown as Capabilities
        return {
          number: n.phoneNumber, friendlyName: n.friendlyName, locality: orNull(n.locality), region: orNull(n.region), postalCode: orNull(n.postalCode),
          voice: capable(capabilities, 'voice'), sms: capable(capabilities, 'sms'), monthlyPrice,
        }
      })
    },

    // Twilio prices local numbers by country, and Leadline searches US numbers only: the US local price.
    monthlyPrice: () => localPrice('US'),

    async buyNumber(number) {
      const bought = await perform('number purchase', () => client.incomingPhoneNumbers.create({ phoneNumber: number }))
      if (typeof bought.sid !== 'string' || bought.sid === '') throw new CarrierError('unknown_outcome', 'twilio accepted the number purchase but answered without a sid; it may have been bought')
      return carrierNumber(bought)
    },

    async pointNumber(number, publicUrl) {
      const held = await find(number)
      const urls = {
        voiceUrl: carrierCallbackUrl(publicUrl, 'twilio', NUMBER_HOOKS.voice),
        voiceStatusUrl: carrierCallbackUrl(publicUrl, 'twilio', NUMBER_HOOKS.voiceStatus),
        smsUrl: carrierCallbackUrl(publicUrl, 'twilio', NUMBER_HOOKS.sms),
      }
      await perform('number update', () =>
        client.incomingPhoneNumbers(held.sid).update({
          voiceUrl: urls.voiceUrl, voiceMethod: 'POST', statusCallback: urls.voiceStatusUrl, statusCallbackMethod: 'POST', smsUrl: urls.smsUrl, smsMethod: 'POST',
        }),
      )
      return { number, applied: true, ...urls, before: { voiceUrl: orNull(held.voiceUrl), voiceStatusUrl: orNull(held.statusCallback), smsUrl: orNull(held.smsUrl) } }
    },
  }
}

