/**
 * One number, one account. An account's caller ID and Messaging Service are claimed on the sender's
 * own stream (`number-{sender}`) before the account's setting changes, so two accounts setting one
 * number at once race on one append and exactly one wins; the other is refused with `number_in_use`
 * and nothing of it changes. With a carrier that holds numbers (Twilio), a caller ID must be one of
 * the carrier account's numbers or verified caller IDs, asked through the carrier before the claim.
 * Inbound texts find their account through the claim. Claims made for the setting follow it: a new
 * caller ID releases the old one.
 */
import { DomainError } from '../domain/shared/decider.ts'
import { isSender, numberClaimDecider, numberInUse, senderKind } from '../domain/numbers/number-claim.decider.ts'
import { numberClaimStream, type ReleaseReason, type SenderKind, type SenderUse } from '../domain/numbers/number-claim.events.ts'
import { accountDecider, type AccountState } from '../domain/account/account.decider.ts'
import { accountStream } from '../domain/account/account.events.ts'
import type { AccountSettings, SettingsChange } from '../domain/account/account-settings.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import { CarrierError, type Carrier } from '../integrations/carrier/carrier.port.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { NumbersQueries } from '../../projections/numbers/numbers.queries.ts'

export interface NumberClaimsDeps {
  readonly commands: CommandHandler
  readonly runner: Pick<ProjectionRunner, 'catchUp'>
  readonly queries: NumbersQueries
  /** The open carrier, asked whether it holds a number (it is opened after the accounts). */
  readonly carrier: () => Pick<Carrier, 'name' | 'numberHeld'>
  readonly logger?: { warn(fields: Record<string, unknown>, message: string): void }
}

/** The settings that name a sender, with what each is claimed as. */
const SENDER_SETTINGS = [
  { setting: 'callerId', kind: 'phone_number', use: 'caller_id' },
  { setting: 'messagingService', kind: 'messaging_service', use: 'messaging_service' },
] as const satisfies ReadonlyArray<{ setting: keyof AccountSettings; kind: SenderKind; use: SenderUse }>

const UPGRADE: CommandContext = { actor: { kind: 'process', id: 'number-claims' } }

export class NumberClaims {
  private adopted: Promise<void> | null = null

  constructor(private readonly deps: NumberClaimsDeps) {}

  /**
   * Claims for `accountId` every sender `change` sets (a caller ID checked with the carrier first),
   * and answers the ones newly claimed. Throws `number_in_use`, `number_not_in_carrier_account` or
   * `number_check_failed` before anything of the account changes, releasing what it claimed first.
   */
  async claimSettings(accountId: string, change: SettingsChange, context: CommandContext): Promise<string[]> {
    const claimed: string[] = []
    try {
      for (const { setting, use } of SENDER_SETTINGS) {
        const sender = change[setting]
        if (sender === undefined || sender === null) continue
        if (await this.claim(accountId, sender, use, context)) claimed.push(sender)
      }
    } catch (error) {
      await this.releaseUnused(accountId, claimed, context)
      throw error
    }
    return claimed
  }

  /**
   * Claims one sender for `accountId`: refused with `number_in_use` when another account holds it (the
   * carrier is then not asked), a phone number asked of the carrier first. True when newly claimed
   * (or claimed again to be put in use), false when the account held it already. The one way a number
   * becomes an account's.
   */
  async claim(accountId: string, sender: string, use: SenderUse, context: CommandContext): Promise<boolean> {
    const kind = senderKind(sender)
    await this.adoptExisting()
    const held = (await this.deps.commands.load(numberClaimStream(sender), numberClaimDecider)).state
    // Held already, unless a number held for a setting is now put in use (claimed again for good).
    if (held.accountId === accountId && (held.use === use || use !== 'inbound')) return false
    if (held.accountId !== null && held.accountId !== accountId) throw numberInUse(sender, kind)
    const carrierHolds = kind === 'phone_number' ? await this.carrierHolds(sender) : null
    // The append decides a race: a claim made since the look above makes this one number_in_use.
    const { newEvents } = await this.deps.commands.handle(numberClaimStream(sender), numberClaimDecider, { type: 'ClaimNumber', sender, kind, accountId, use, carrierHolds }, context)
    return newEvents.length > 0
  }

  /** Runs the change the senders were claimed for; refused, they are released again (the account never used them). */
  async unlessRefused<T>(accountId: string, claimed: readonly string[], context: CommandContext, change: () => Promise<T>): Promise<T> {
    try {
      return await change()
    } catch (error) {
      await this.releaseUnused(accountId, claimed, context)
      throw error
    }
  }

  /** Releases senders claimed for a change of settings that was then refused: the account never used them. */
  async releaseUnused(accountId: string, senders: readonly string[], context: CommandContext): Promise<void> {
    for (const sender of senders) {
      await this.deps.commands.handle(numberClaimStream(sender), numberClaimDecider, { type: 'ReleaseNumber', sender, accountId, reason: 'setting_refused' }, context)
    }
  }

  /**
   * Releases the senders the account holds for a setting that now names another (or none): after a
   * change of the setting, and so also a claim left behind by a change that stopped half-way.
   */
  async releaseReplaced(account: AccountState, context: CommandContext): Promise<void> {
    await this.deps.runner.catchUp()
    for (const claim of this.deps.queries.claimsOf(account.accountId)) {
      const held = SENDER_SETTINGS.find((s) => s.use === claim.use)
      if (held === undefined || account.settings[held.setting] === claim.sender) continue
      const reason: ReleaseReason = account.settings[held.setting] === null ? 'cleared' : 'replaced'
      await this.deps.commands.handle(numberClaimStream(claim.sender), numberClaimDecider, { type: 'ReleaseNumber', sender: claim.sender, accountId: account.accountId, reason }, context)
    }
  }

  /** The account that holds `sender` on the log now; null when nobody does. Read from the claim's own stream, never a stale copy. */
  async ownerOf(sender: string): Promise<string | null> {
    if (!isSender(sender)) return null
    await this.adoptExisting()
    return (await this.deps.commands.load(numberClaimStream(sender), numberClaimDecider)).state.accountId
  }

  /**
   * Once a process, before the first claim or look-up: accounts whose caller ID or Messaging Service
   * was set before claims existed get their claim, oldest account first (the one that received the
   * number's texts before). A younger account that shared the number loses the setting (it becomes
   * unset, so it calls and texts from nothing until its owner sets a number it holds), recorded as a
   * settings change by the process `number-claims`. No carrier is asked: the number was in use.
   */
  adoptExisting(): Promise<void> {
    this.adopted ??= this.adopt().catch((error: unknown) => {
      this.adopted = null
      throw error
    })
    return this.adopted
  }

  private async adopt(): Promise<void> {
    await this.deps.runner.catchUp()
    for (const row of this.deps.queries.unclaimedSettings()) {
      const cleared: SettingsChange = {}
      for (const { setting, kind, use } of SENDER_SETTINGS) {
        const sender = row[setting]
        if (sender === null) continue
        try {
          await this.deps.commands.handle(numberClaimStream(sender), numberClaimDecider, { type: 'ClaimNumber', sender, kind, accountId: row.accountId, use, carrierHolds: null }, UPGRADE)
        } catch (error) {
          if (!(error instanceof DomainError) || error.code !== 'number_in_use') throw error
          Object.assign(cleared, { [setting]: null })
        }
      }
      if (Object.keys(cleared).length === 0) continue
      await this.deps.commands.handle(accountStream(row.accountId), accountDecider, { type: 'ChangeSettings', changes: cleared }, UPGRADE)
      this.deps.logger?.warn({ accountId: row.accountId, cleared: Object.keys(cleared) }, 'an account shared its caller ID or Messaging Service with an older account before numbers were claimed: its setting was cleared, the older account keeps it')
    }
  }

  private async carrierHolds(number: string): Promise<string> {
    const carrier = this.deps.carrier()
    // A carrier without numbers of its own (the simulated one) takes any number.
    if (carrier.numberHeld === undefined) return carrier.name
    let held: Awaited<ReturnType<NonNullable<Carrier['numberHeld']>>>
    try {
      held = await carrier.numberHeld(number)
    } catch (error) {
      const why = error instanceof CarrierError ? error.message : String(error)
      throw new DomainError('number_check_failed', `could not ask ${carrier.name} whether it holds ${number}, so it was not set: ${why}`, { field: 'callerId' })
    }
    if (held === null) {
      throw new DomainError(
        'number_not_in_carrier_account',
        `${number} is neither a number of the ${carrier.name} account nor one of its verified caller IDs: buy or port it into the account, or verify it as a caller ID, then set it`,
        { field: 'callerId' },
      )
    }
    return held
  }
}
