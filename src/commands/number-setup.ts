/**
 * Setting up the account's number (Setup → Phone numbers, `leadline number …`): the carrier
 * account's numbers, a search of local numbers for sale, a purchase made at most once (decided on the
 * number's own stream, then performed by the number buyer), and "use for this account": claim the
 * number (one account per number), point its voice, voice status and SMS webhooks at Leadline, and
 * make it the caller ID unless the owner already calls from another number the account holds.
 */
import { DomainError } from '../domain/shared/decider.ts'
import { newId } from '../domain/shared/ids.ts'
import { numberPurchaseDecider, type NumberPurchase } from '../domain/numbers/number-purchase.decider.ts'
import { numberPurchaseStream } from '../domain/numbers/number-purchase.events.ts'
import type { SenderUse } from '../domain/numbers/number-claim.events.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import { CarrierError, carrierCallbackUrl, type AvailableNumber, type Carrier, type CarrierNumber, type NumberSearch, type PointedNumber } from '../integrations/carrier/carrier.port.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { NumberPurchaseRow, NumbersQueries } from '../../projections/numbers/numbers.queries.ts'
import type { Accounts } from './accounts.ts'
import type { NumberClaims } from './number-claims.ts'

const E164 = /^\+[1-9]\d{6,14}$/

export interface NumberSetupDeps {
  readonly commands: CommandHandler
  readonly runner: Pick<ProjectionRunner, 'catchUp'>
  readonly queries: NumbersQueries
  readonly claims: NumberClaims
  readonly accounts: Pick<Accounts, 'require' | 'changeSettings'>
  readonly carrier: Carrier
  /** Performs a purchase decision once (the number buyer of this node). */
  readonly buy: (stream: string, purchaseId: string) => Promise<NumberPurchase>
}

/** Who holds a number in Leadline: this account (and for what), another account, or no one. */
export type NumberHolder = { readonly kind: 'this_account'; readonly use: SenderUse } | { readonly kind: 'another_account' } | { readonly kind: 'none' }

/** One row of the account's Phone numbers page. */
export interface ListedNumber extends CarrierNumber {
  readonly holder: NumberHolder
  /** The account's caller ID is this number. */
  readonly callerId: boolean
  /** Its voice, voice status and SMS webhooks are Leadline's routes under the public URL. */
  readonly pointedHere: boolean
}

export interface NumberListing {
  readonly carrier: string
  /** The simulated carrier: fictional numbers, nothing reaches a phone. */
  readonly simulated: boolean
  readonly callerId: string | null
  readonly numbers: readonly ListedNumber[]
  /** This account's purchases still going, or with no known outcome. */
  readonly purchases: readonly NumberPurchaseRow[]
}

/** What a search form or the command line gave, as text. */
export interface SearchInput {
  readonly areaCode?: string | undefined
  readonly postalCode?: string | undefined
  readonly region?: string | undefined
  readonly nearNumber?: string | undefined
  readonly contains?: string | undefined
  readonly limit?: number | undefined
}

export interface UseResult {
  readonly number: string
  /** The claim was new (or a number held as the caller ID was put in use). */
  readonly claimed: boolean
  readonly webhooks: PointedNumber
  readonly callerId: { readonly before: string | null; readonly after: string | null; readonly changed: boolean; readonly why: string }
  /** What the owner should know (a public URL the carrier cannot reach). */
  readonly warnings: readonly string[]
}

/** The search, checked: refused with `invalid_search` (nothing asked of the carrier) when a field is malformed or none says where. */
export function numberSearch(input: SearchInput): NumberSearch {
  const given = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim())
  const areaCode = given(input.areaCode)
  const postalCode = given(input.postalCode)
  const region = given(input.region)?.toUpperCase()
  const nearNumber = given(input.nearNumber)
  const contains = given(input.contains)
  const refuse = (message: string) => new DomainError('invalid_search', message)
  if (areaCode !== undefined && !/^[2-9]\d{2}$/.test(areaCode)) throw refuse(`area code ${JSON.stringify(areaCode.slice(0, 20))}: three digits, such as 312`)
  if (postalCode !== undefined && !/^\d{5}$/.test(postalCode)) throw refuse(`ZIP code ${JSON.stringify(postalCode.slice(0, 20))}: five digits, such as 60601`)
  if (region !== undefined && !/^[A-Z]{2}$/.test(region)) throw refuse(`state ${JSON.stringify(region.slice(0, 20))}: its two letters, such as IL`)
  if (nearNumber !== undefined && !/^\+1[2-9]\d{9}$/.test(nearNumber)) throw refuse(`near ${JSON.stringify(nearNumber.slice(0, 20))}: a US number in E.164, such as +13125550100`)
  if (contains !== undefined && !/^[0-9*]{1,10}$/.test(contains)) throw refuse('contains: up to 10 digits (* for any digit)')
  if ([areaCode, postalCode, region, nearNumber].every((v) => v === undefined)) throw refuse('say where: an area code, a ZIP code, a state, or a number to search near')
  const limit = input.limit === undefined ? 20 : Math.max(1, Math.min(50, Math.trunc(input.limit)))
  return {
    country: 'US', limit,
    ...(areaCode !== undefined ? { areaCode } : {}), ...(postalCode !== undefined ? { postalCode } : {}), ...(region !== undefined ? { region } : {}),
    ...(nearNumber !== undefined ? { nearNumber } : {}), ...(contains !== undefined ? { contains } : {}),
  }
}

function carrierFailed(carrier: Carrier, what: string, error: unknown): DomainError {
  if (!(error instanceof CarrierError)) throw error
  return new DomainError('carrier_request_failed', `${carrier.name} did not ${what}: ${error.message}`, { failure: error.failure })
}

export class NumberSetup {
  constructor(private readonly deps: NumberSetupDeps) {}

  private requireNumbers<K extends 'searchNumbers' | 'buyNumber' | 'pointNumber'>(member: K): NonNullable<Carrier[K]> {
    const found = this.deps.carrier[member]
    if (found === undefined) throw new DomainError('numbers_not_supported', `the ${this.deps.carrier.name} carrier has no numbers to search, buy or set up`)
    return found.bind(this.deps.carrier) as NonNullable<Carrier[K]>
  }

  /** The carrier account's numbers (or, at a carrier without a list, the numbers bought through Leadline), each with who holds it. */
  async list(accountId: string, publicUrl: string): Promise<NumberListing> {
    const { carrier, queries, runner } = this.deps
    const account = await this.deps.accounts.require(accountId)
    await runner.catchUp()
    const purchases = queries.purchasesFrom(carrier.name)
    let owned: CarrierNumber[]
    try {
      owned = carrier.listNumbers
        ? await carrier.listNumbers()
        : purchases.filter((p) => p.stage === 'bought').map((p) => ({ number: p.number, sid: p.carrierSid ?? '', friendlyName: p.number, voice: true, sms: true, voiceUrl: null, voiceStatusUrl: null, smsUrl: null }))
    } catch (error) {
      throw carrierFailed(carrier, 'list the numbers', error)
    }
    const mine = new Map(queries.claimsOf(accountId).map((c) => [c.sender, c.use]))
    const expected = this.webhookUrls(publicUrl)
    const numbers: ListedNumber[] = []
    for (const n of owned) {
      const use = mine.get(n.number)
      const holder: NumberHolder = use !== undefined ? { kind: 'this_account', use } : queries.holderOf(n.number) !== null ? { kind: 'another_account' } : { kind: 'none' }
      const pointedHere = n.voiceUrl === expected.voiceUrl && n.voiceStatusUrl === expected.voiceStatusUrl && n.smsUrl === expected.smsUrl
      numbers.push({ ...n, holder, callerId: account.settings.callerId === n.number, pointedHere })
    }
    return {
      carrier: carrier.name, simulated: carrier.name === 'simulated', callerId: account.settings.callerId, numbers,
      purchases: purchases.filter((p) => p.accountId === accountId && p.stage !== 'bought' && p.stage !== 'failed'),
    }
  }

  /** Local numbers for sale (refused with `invalid_search` before the carrier is asked when the search is malformed). */
  async search(input: SearchInput): Promise<AvailableNumber[]> {
    const search = numberSearch(input)
    const searchNumbers = this.requireNumbers('searchNumbers')
    try {
      return await searchNumbers(search)
    } catch (error) {
      throw carrierFailed(this.deps.carrier, 'search numbers', error)
    }
  }

  /** What buying `number` would cost a month, for the confirm step (null when the carrier does not say, or cannot now). */
  async quote(number: string): Promise<AvailableNumber['monthlyPrice']> {
    checkNumber(number)
    this.requireNumbers('buyNumber')
    return (await this.deps.carrier.monthlyPrice?.(number).catch(() => null)) ?? null
  }

  /**
   * Buys `number` for the account, at most once: refused with `number_in_use` when another account
   * holds or bought it; a second request while one goes on waits for the same purchase; a number this
   * account bought answers that purchase. The answer is the purchase as it ended: `bought`, `failed`
   * (its message says why), or `unknown` (it may have been bought: never asked again).
   */
  async buy(accountId: string, number: string, monthlyPrice: AvailableNumber['monthlyPrice'], context: CommandContext): Promise<NumberPurchase> {
    checkNumber(number)
    await this.deps.accounts.require(accountId)
    this.requireNumbers('buyNumber')
    const holder = await this.deps.claims.ownerOf(number)
    if (holder !== null && holder !== accountId) throw new DomainError('number_in_use', `the number ${number} is in use by another account: a number belongs to one account`)
    const stream = numberPurchaseStream(number)
    const decided = await this.deps.commands.handle(
      stream, numberPurchaseDecider,
      { type: 'DecidePurchase', purchaseId: newId('npu'), number, accountId, carrier: this.deps.carrier.name, monthlyPrice },
      context,
    )
    const purchase = decided.state.current as NumberPurchase
    if (purchase.stage !== 'decided' && purchase.stage !== 'claimed') return purchase
    return this.deps.buy(stream, purchase.purchaseId)
  }

  /**
   * Puts `number` in use for the account: it must be the carrier account's (or, at a carrier without a
   * list, bought through Leadline); claimed for the account (`number_in_use` when another holds it),
   * its webhooks pointed at `publicUrl`'s routes, and made the caller ID when the account has none or
   * calls from a number it no longer holds. Safe to repeat: a second use sets the same URLs again.
   */
  async use(accountId: string, number: string, publicUrl: string, context: CommandContext): Promise<UseResult> {
    checkNumber(number)
    const { carrier, claims, accounts, queries, runner } = this.deps
    await accounts.require(accountId)
    const pointNumber = this.requireNumbers('pointNumber')
    await runner.catchUp()
    const bought = queries.purchasesFrom(carrier.name).find((p) => p.number === number && p.stage === 'bought')
    if (bought !== undefined && bought.accountId !== accountId) throw new DomainError('number_in_use', `the number ${number} was bought by another account: a number belongs to one account`)
    if (!(await this.held(number, bought))) {
      throw new DomainError('number_not_in_carrier_account', `${number} is not a number of the ${carrier.name} account: buy it first (leadline number search, then buy), or port it in`, { field: 'number' })
    }
    const claimed = await claims.claim(accountId, number, 'inbound', context)
    let webhooks: PointedNumber
    try {
      webhooks = await pointNumber(number, publicUrl)
    } catch (error) {
      const failed = carrierFailed(carrier, 'take the webhook URLs', error)
      throw new DomainError('number_webhooks_failed', `${number} is this account's now, but its webhooks were not set: ${failed.message}; use it again to set them`, { claimed })
    }
    const callerId = await this.callerIdFor(accountId, number, context)
    const warnings = webhooks.applied && !/^https:\/\//.test(publicUrl)
      ? [`the webhooks point at ${publicUrl}, which ${carrier.name} cannot reach from the internet: set LEADLINE_PUBLIC_URL to the server's public https address and use the number again`]
      : []
    return { number, claimed, webhooks, callerId, warnings }
  }

  /** Leadline's routes a number in use posts to, under `publicUrl` (what `list` compares a number's webhooks with). */
  webhookUrls(publicUrl: string): Pick<PointedNumber, 'voiceUrl' | 'voiceStatusUrl' | 'smsUrl'> {
    const hook = (name: string) => carrierCallbackUrl(publicUrl.replace(/\/+$/, ''), this.deps.carrier.name, name)
    return { voiceUrl: hook('voice'), voiceStatusUrl: hook('voice-status'), smsUrl: hook('sms') }
  }

  /** Whether the carrier account holds `number` as a number of its own (a verified caller ID takes no calls), or, at a carrier without numbers, whether Leadline bought it. */
  private async held(number: string, bought: NumberPurchaseRow | undefined): Promise<boolean> {
    const { carrier } = this.deps
    if (carrier.numberHeld === undefined) return bought !== undefined
    try {
      return (await carrier.numberHeld(number)) === 'incoming_number'
    } catch (error) {
      throw carrierFailed(carrier, 'say whether it holds the number', error)
    }
  }

  /**
   * The caller ID rule: the number in use becomes the caller ID when the account has none, or when its
   * caller ID is a number it no longer holds; a caller ID the account holds (the owner's choice: a
   * verified cell, another bought number) stays.
   */
  private async callerIdFor(accountId: string, number: string, context: CommandContext): Promise<UseResult['callerId']> {
    const before = (await this.deps.accounts.require(accountId)).settings.callerId
    if (before === number) return { before, after: number, changed: false, why: 'it was the caller ID already' }
    if (before !== null && (await this.deps.claims.ownerOf(before)) === accountId) {
      return { before, after: before, changed: false, why: `the owner chose ${before}, a number this account holds: calls keep going out from it (set --caller-id ${number} to call from the new number)` }
    }
    const after = (await this.deps.accounts.changeSettings(accountId, { callerId: number }, context)).settings.callerId
    return { before, after, changed: true, why: before === null ? 'the account had no caller ID' : `${before} is no longer this account's number` }
  }
}

function checkNumber(number: string): void {
  if (!E164.test(number)) throw new DomainError('invalid_number', `invalid number ${JSON.stringify(number.slice(0, 40))}: an E.164 number such as +13125550100`, { field: 'number' })
}
