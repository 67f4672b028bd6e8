/**
 * The lead's own time zones, for the guard that never rings a lead outside 08:00–21:00 where they are:
 * from the lead's state when it is a US state, DC or territory, and from the phone number (the NANP
 * area code, or the country for numbers outside North America when that country has one zone). When
 * the two disagree (a GB mobile with `state: CA`) the lead may be in either, so the guard holds in
 * both: the stricter clock wins. Empty when neither says; the caller then uses the account's zone.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { usStateCode } from '../lead/intake/us-states.ts'
import { NANP_AREA_CODE_GROUPS } from './nanp-area-code-zones.ts'

export interface LeadTimeZone {
  readonly zone: string
  readonly from: 'state' | 'area_code'
}

// One zone per state. Where a state spans two zones, the zone most of its people live in, so the
// guard errs on the side of the majority:
//   AK Anchorage (the western Aleutians keep Hawaii–Aleutian time)
//   AZ Phoenix, no DST (the Navajo Nation keeps DST)
//   FL New York (the western panhandle is Central)
//   ID Boise, Mountain (the northern panhandle is Pacific)
//   IN Indianapolis, Eastern (the Gary and Evansville corners are Central)
//   KS, NE, ND, SD Chicago (their western edges are Mountain)
//   KY Louisville, Eastern (the western half is Central, but has fewer people)
//   MI Detroit (four Upper Peninsula counties are Central)
//   NV, OR Los Angeles (West Wendover and most of Malheur County are Mountain)
//   TN Chicago (Nashville and Memphis outnumber East Tennessee, which is Eastern)
//   TX Chicago (El Paso is Mountain)
// Area codes that sit wholly in a state's minority zone are placed by nanp-area-code-zones.ts.
export const STATE_TIME_ZONES: Readonly<Record<string, string>> = {
  AL: 'America/Chicago', AK: 'America/Anchorage', AZ: 'America/Phoenix', AR: 'America/Chicago',
  CA: 'America/Los_Angeles', CO: 'America/Denver', CT: 'America/New_York', DE: 'America/New_York',
  FL: 'America/New_York', GA: 'America/New_York', HI: 'Pacific/Honolulu', ID: 'America/Boise',
  IL: 'America/Chicago', IN: 'America/Indiana/Indianapolis', IA: 'America/Chicago', KS: 'America/Chicago',
  KY: 'America/Kentucky/Louisville', LA: 'America/Chicago', ME: 'America/New_York', MD: 'America/New_York',
  MA: 'America/New_York', MI: 'America/Detroit', MN: 'America/Chicago', MS: 'America/Chicago',
  MO: 'America/Chicago', MT: 'America/Denver', NE: 'America/Chicago', NV: 'America/Los_Angeles',
  NH: 'America/New_York', NJ: 'America/New_York', NM: 'America/Denver', NY: 'America/New_York',
  NC: 'America/New_York', ND: 'America/Chicago', OH: 'America/New_York', OK: 'America/Chicago',
  OR: 'America/Los_Angeles', PA: 'America/New_York', RI: 'America/New_York', SC: 'America/New_York',
  SD: 'America/Chicago', TN: 'America/Chicago', TX: 'America/Chicago', UT: 'America/Denver',
  VT: 'America/New_York', VA: 'America/New_York', WA: 'America/Los_Angeles', WV: 'America/New_York',
  WI: 'America/Chicago', WY: 'America/Denver',
  DC: 'America/New_York', PR: 'America/Puerto_Rico', VI: 'America/St_Thomas', GU: 'Pacific/Guam',
  AS: 'Pacific/Pago_Pago', MP: 'Pacific/Saipan',
}

// Countries outside the NANP that keep one zone everywhere, so the number alone places the lead.
// Countries with several zones (Mexico, Brazil, Russia, Australia; Spain and Portugal with their
// islands; China, whose tz data keeps Xinjiang apart) are left out on purpose: a guess there could
// be hours wrong.
export const SINGLE_ZONE_COUNTRIES: Readonly<Record<string, string>> = {
  GB: 'Europe/London', IE: 'Europe/Dublin', FR: 'Europe/Paris', DE: 'Europe/Berlin', IT: 'Europe/Rome',
  NL: 'Europe/Amsterdam', BE: 'Europe/Brussels', LU: 'Europe/Luxembourg', CH: 'Europe/Zurich',
  AT: 'Europe/Vienna', DK: 'Europe/Copenhagen', SE: 'Europe/Stockholm', NO: 'Europe/Oslo',
  FI: 'Europe/Helsinki', PL: 'Europe/Warsaw', CZ: 'Europe/Prague', GR: 'Europe/Athens',
  RO: 'Europe/Bucharest', HU: 'Europe/Budapest', IL: 'Asia/Jerusalem', AE: 'Asia/Dubai',
  SA: 'Asia/Riyadh', IN: 'Asia/Kolkata', PK: 'Asia/Karachi', PH: 'Asia/Manila', SG: 'Asia/Singapore',
  HK: 'Asia/Hong_Kong', JP: 'Asia/Tokyo', KR: 'Asia/Seoul', ZA: 'Africa/Johannesburg',
  NG: 'Africa/Lagos', KE: 'Africa/Nairobi', CO: 'America/Bogota', PE: 'America/Lima',
  AR: 'America/Argentina/Buenos_Aires', CR: 'America/Costa_Rica', GT: 'America/Guatemala',
  SV: 'America/El_Salvador', PA: 'America/Panama',
}

const AREA_CODE_GROUP: ReadonlyMap<string, { readonly region: string; readonly zone: string }> = new Map(
  NANP_AREA_CODE_GROUPS.flatMap((group) => group.codes.map((code) => [code, { region: group.region, zone: group.zone }] as const)),
)

const NANP_NUMBER = /^\+1([2-9]\d{2})[2-9]\d{6}$/

/** Where a NANP number's area code is (`US-FL`, `CA-ON`, `JM`) and its zone; undefined for other numbers. */
export function areaCodePlace(phone: string): { readonly region: string; readonly zone: string } | undefined {
  const areaCode = NANP_NUMBER.exec(phone.replace(/[\s().-]/g, ''))?.[1]
  return areaCode === undefined ? undefined : AREA_CODE_GROUP.get(areaCode)
}

/** Every zone the lead may be in: the state's first, then the number's when it is another; empty when neither tells. */
export function leadTimeZones(target: { state?: string | undefined; phone?: string | undefined }): readonly LeadTimeZone[] {
  const code = target.state === undefined ? undefined : usStateCode(target.state)
  const stateZone = code === undefined ? undefined : STATE_TIME_ZONES[code]
  const phoneZone = target.phone === undefined ? undefined : zoneOfPhone(target.phone)
  const zones: LeadTimeZone[] = []
  if (stateZone !== undefined) zones.push({ zone: stateZone, from: 'state' })
  if (phoneZone !== undefined && phoneZone !== stateZone) zones.push({ zone: phoneZone, from: 'area_code' })
  return zones
}

/** The lead's first zone (the state's, else the number's), for words said to the lead; null when neither tells. */
export function leadTimeZone(target: { state?: string | undefined; phone?: string | undefined }): LeadTimeZone | null {
  return leadTimeZones(target)[0] ?? null
}

function zoneOfPhone(phone: string): string | undefined {
  // E.164 is expected; tolerate the separators people paste so `+1 (808) 555-0123` still places.
  const e164 = phone.replace(/[\s().-]/g, '')
  if (!/^\+\d{8,15}$/.test(e164)) return undefined
  if (e164.startsWith('+1')) {
    const areaCode = NANP_NUMBER.exec(e164)?.[1]
    return areaCode === undefined ? undefined : AREA_CODE_GROUP.get(areaCode)?.zone
  }
  const country = parsePhoneNumberFromString(e164)?.country
  return country === undefined ? undefined : SINGLE_ZONE_COUNTRIES[country]
}
