/**
 * The simulated carrier's numbers: an inventory of fictional local numbers, the same for every run,
 * so the embedded default shows the Phone numbers pages as Twilio would. Every number is a
 * `555-01xx` number (reserved for fiction in North America: none rings anyone) in the area code
 * searched for; buying one succeeds for any of them, and what was bought is kept on the log
 * (Leadline lists the numbers it bought when the carrier has no list of its own).
 */
import { createHash } from 'node:crypto'
import { CarrierError, carrierCallbackUrl, type AvailableNumber, type Carrier, type CarrierNumber, type NumberSearch } from '../carrier.port.ts'

/** Where a search near a ZIP code lands, by its first digit (the postal zone): one large city's area code each. */
const ZONE_AREA_CODES = ['617', '212', '202', '404', '317', '612', '312', '214', '303', '415'] as const
const SIMULATED_NUMBER = /^\+1([2-9]\d{2})55501(\d{2})$/
/** How many numbers a simulated search answers at most. */
export const SIMULATED_INVENTORY_PAGE = 20

/** The area code a simulated search looks in: the number's, the ZIP's zone's, a state's (by its letters), or the one given. */
function areaCodeOf(search: NumberSearch): string {
  if (search.nearNumber !== undefined) return /^\+1([2-9]\d{2})/.exec(search.nearNumber)?.[1] ?? '312'
  if (search.postalCode !== undefined) return ZONE_AREA_CODES[Number(search.postalCode[0] ?? 6)] ?? '312'
  if (search.region !== undefined) {
    const sum = [...search.region.toUpperCase()].reduce((n, c) => n + c.charCodeAt(0), 0)
    return ZONE_AREA_CODES[sum % ZONE_AREA_CODES.length] as string
  }
  return search.areaCode ?? '312'
}

/** Where the search was, as the listing says it. */
function placeOf(search: NumberSearch, areaCode: string): string {
  if (search.postalCode !== undefined) return `near ${search.postalCode}`
  if (search.region !== undefined) return search.region.toUpperCase()
  if (search.nearNumber !== undefined) return `near ${search.nearNumber}`
  return `area code ${areaCode}`
}

/** The simulated inventory of an area code: 100 fictional numbers, in an order fixed by the area code. */
export function simulatedInventory(search: NumberSearch): AvailableNumber[] {
  const areaCode = areaCodeOf(search)
  const numbers: AvailableNumber[] = []
  const start = Number(areaCode) * 7
  for (let k = 0; k < 100 && numbers.length < Math.min(search.limit ?? 10, SIMULATED_INVENTORY_PAGE); k++) {
    const line = `01${String((start + k * 37) % 100).padStart(2, '0')}`
    const number = `+1${areaCode}555${line}`
    if (search.contains !== undefined && !number.includes(search.contains)) continue
    numbers.push({
      number, friendlyName: `(${areaCode}) 555-${line}`, locality: `Simulated (${placeOf(search, areaCode)})`, region: null, postalCode: search.postalCode ?? null,
      voice: true, sms: true, monthlyPrice: null,
    })
  }
  return numbers
}

/** The simulated carrier's number members: search its inventory, buy from it, and nothing to point (its calls are played in-process). */
export function simulatedNumbers(refuseWhenClosed: (what: string) => void): Required<Pick<Carrier, 'searchNumbers' | 'buyNumber' | 'pointNumber'>> {
  return {
    async searchNumbers(search) {
      refuseWhenClosed('number search')
      return simulatedInventory(search)
    },
    async buyNumber(number): Promise<CarrierNumber> {
      refuseWhenClosed('number purchase')
      const parts = SIMULATED_NUMBER.exec(number)
      if (parts === null) throw new CarrierError('rejected', `simulated: ${number} is not in the simulated inventory (fictional +1 NXX 555-01xx numbers only)`, { status: 400, carrierCode: 21422 })
      const sid = `PNsim${createHash('sha256').update(number).digest('hex').slice(0, 29)}`
      return { number, sid, friendlyName: `(${parts[1]}) 555-01${parts[2]}`, voice: true, sms: true, voiceUrl: null, voiceStatusUrl: null, smsUrl: null }
    },
    async pointNumber(number, publicUrl) {
      refuseWhenClosed('number update')
      return {
        number, applied: false, before: null,
        voiceUrl: carrierCallbackUrl(publicUrl, 'simulated', 'voice'),
        voiceStatusUrl: carrierCallbackUrl(publicUrl, 'simulated', 'voice-status'),
        smsUrl: carrierCallbackUrl(publicUrl, 'simulated', 'sms'),
      }
    },
  }
}
