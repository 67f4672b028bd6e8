/**
 * Account use cases: create, configure, issue and revoke credentials, and authenticate them.
 * A credential is found through the credential index, then checked against the account's own
 * stream (cached per revision), so a rotated token or revoked key fails on the very next request,
 * even when the rotation was made by another process such as the CLI.
 *
 * A request costs one look at the log's head position: while nothing at all has been appended
 * since an account was last checked, nothing can have been appended to its stream either.
 */
import { randomBytes } from 'node:crypto'
import { accountDecider, type AccountState, type ApiKeyState } from '../domain/account/account.decider.ts'
import type { FieldMapping } from '../domain/lead/intake/field-map.ts'
import { validateSettingsChange } from '../domain/account/account-settings.ts'
import { accountStream, type Scope } from '../domain/account/account.events.ts'
import { DomainError } from '../domain/shared/decider.ts'
import {
  API_KEY_PREFIX, WEBHOOK_TOKEN_PREFIX, hashSecret, issueSecret, newId, sameHash,
} from '../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import type { EventStore } from '../eventstore/event-store.port.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { AccountsQueries, CredentialRow } from '../../projections/accounts/accounts.queries.ts'
import type { NumberClaims } from './number-claims.ts'

/** Longest secret we will even hash: anything longer is not ours. */
const MAX_SECRET_LENGTH = 128
/** A Google lead-form key: long enough not to be guessed, short enough for Google's form. */
export const MIN_GOOGLE_KEY_LENGTH = 12

function googleKeyHash(salt: string, key: string): string {
  return hashSecret(`${salt}:${key}`)
}

/** Whether `key` (Google's `google_key`) is the account's key; false when the account has none. */
export function isGoogleKey(account: AccountState, key: string | undefined): boolean {
  const stored = account.googleKey
  if (stored === null || key === undefined || key.length > MAX_SECRET_LENGTH) return false
  return sameHash(stored.keyHash, googleKeyHash(stored.salt, key))
}
const CACHE_LIMIT = 10_000

export interface WebhookPrincipal {
  readonly account: AccountState
  readonly tokenId: string
}

export interface ApiKeyPrincipal {
  readonly account: AccountState
  readonly keyId: string
  readonly scopes: readonly Scope[]
}

export interface IssuedCredential {
  readonly id: string
  /** The secret itself: shown once, never stored. */
  readonly secret: string
}

export class Accounts {
  /** accountId → its state, the revision it was folded to, and the log head at which that was last checked. */
  private readonly cache = new Map<string, { revision: number; state: AccountState; checkedAt: number }>()
  /** Secret hash → its entry in the credential index; an entry never changes, only the account decides if it is live. */
  private readonly credentials = new Map<string, CredentialRow>()
  /** accountId → the check of its stream under way, and the log head it started at. */
  private readonly checking = new Map<string, { head: number; state: Promise<AccountState | null> }>()

  constructor(
    private readonly store: EventStore,
    private readonly commands: CommandHandler,
    private readonly runner: ProjectionRunner,
    private readonly queries: AccountsQueries,
    /** Caller IDs and Messaging Services, one account each (number-claims.ts). */
    private readonly numbers: Pick<NumberClaims, 'claimSettings' | 'unlessRefused' | 'releaseReplaced'>,
  ) {}

  async create(name: string, settings: unknown, context: CommandContext): Promise<{ account: AccountState; webhookToken: IssuedCredential }> {
    const accountId = newId('acc')
    const token = issueSecret(WEBHOOK_TOKEN_PREFIX, 'wht')
    // The account's number is claimed before the account exists: a refusal leaves no account behind.
    const claimed = await this.numbers.claimSettings(accountId, validateSettingsChange(settings ?? {}), context)
    const result = await this.numbers.unlessRefused(accountId, claimed, context, () => this.commands.handle(
      accountStream(accountId),
      accountDecider,
      { type: 'CreateAccount', accountId, name, settings, webhookToken: token.stored },
      context,
    ))
    return { account: result.state, webhookToken: token.shown }
  }

  /** Claim a new caller ID or Messaging Service first, then change the settings, then release what they no longer name. */
  async changeSettings(accountId: string, changes: unknown, context: CommandContext): Promise<AccountState> {
    const valid = validateSettingsChange(changes)
    await this.require(accountId)
    const claimed = await this.numbers.claimSettings(accountId, valid, context)
    const { state } = await this.numbers.unlessRefused(accountId, claimed, context, () => this.commands.handle(accountStream(accountId), accountDecider, { type: 'ChangeSettings', changes }, context))
    if (valid.callerId !== undefined || valid.messagingService !== undefined) await this.numbers.releaseReplaced(state, context)
    return state
  }

  async rotateWebhookToken(accountId: string, context: CommandContext): Promise<IssuedCredential> {
    const token = issueSecret(WEBHOOK_TOKEN_PREFIX, 'wht')
    await this.commands.handle(accountStream(accountId), accountDecider, { type: 'RotateWebhookToken', newToken: token.stored }, context)
    return token.shown
  }

  async createApiKey(
    accountId: string,
    scopes: readonly string[],
    label: string | null,
    context: CommandContext,
  ): Promise<{ key: IssuedCredential; scopes: readonly Scope[] }> {
    const key = issueSecret(API_KEY_PREFIX, 'key')
    const result = await this.commands.handle(
      accountStream(accountId),
      accountDecider,
      { type: 'CreateApiKey', key: key.stored, scopes, label },
      context,
    )
    return { key: key.shown, scopes: (result.state.apiKeys.get(key.shown.id) as ApiKeyState).scopes }
  }

  /** Sets the key Google's lead forms send (`google_key`), or removes it (null): stored as a salted hash only. */
  async setGoogleKey(accountId: string, key: string | null, context: CommandContext): Promise<AccountState> {
    if (key === null) return (await this.commands.handle(accountStream(accountId), accountDecider, { type: 'ClearGoogleKey' }, context)).state
    if (key.length < MIN_GOOGLE_KEY_LENGTH || key.length > MAX_SECRET_LENGTH || /\s/.test(key)) {
      throw new DomainError('invalid_setting', `invalid googleKey: a Google key is ${MIN_GOOGLE_KEY_LENGTH} to ${MAX_SECRET_LENGTH} characters without spaces; use a random one (openssl rand -hex 24)`)
    }
    const salt = randomBytes(16).toString('hex')
    return (await this.commands.handle(accountStream(accountId), accountDecider, { type: 'SetGoogleKey', keyHash: googleKeyHash(salt, key), salt }, context)).state
  }

  /** Sets a lead source's field map, replacing the one it had; applied to the leads that arrive after it. */
  async setFieldMap(accountId: string, source: string, mappings: readonly FieldMapping[], context: CommandContext): Promise<AccountState> {
    return (await this.commands.handle(accountStream(accountId), accountDecider, { type: 'SetFieldMap', source, mappings }, context)).state
  }

  async removeFieldMap(accountId: string, source: string, context: CommandContext): Promise<AccountState> {
    return (await this.commands.handle(accountStream(accountId), accountDecider, { type: 'RemoveFieldMap', source }, context)).state
  }

  /** Revokes a key by its id alone (the CLI's `key revoke KEY_ID`). */
  async revokeApiKey(keyId: string, context: CommandContext): Promise<{ accountId: string }> {
    await this.runner.catchUp()
    const accountId = this.queries.accountOfCredential(keyId)
    if (!accountId) throw new DomainError('key_not_found', `no key ${keyId}`)
    await this.commands.handle(accountStream(accountId), accountDecider, { type: 'RevokeApiKey', keyId }, context)
    return { accountId }
  }

  /** Revokes one of this account's keys (the console): a key of another account is `key_not_found`. */
  async revokeAccountApiKey(accountId: string, keyId: string, context: CommandContext): Promise<void> {
    await this.commands.handle(accountStream(accountId), accountDecider, { type: 'RevokeApiKey', keyId }, context)
  }

  /** The owner consented to an OAuth client acting on the account with these scopes (the console's consent page). */
  async createOAuthGrant(
    accountId: string,
    grant: { grantId: string; clientId: string; clientName: string; userId: string; scopes: readonly string[] },
    context: CommandContext,
  ): Promise<void> {
    await this.commands.handle(accountStream(accountId), accountDecider, { type: 'CreateOAuthGrant', ...grant }, context)
  }

  /** Ends a grant: every token of it fails from the next request on. */
  async revokeOAuthGrant(accountId: string, grantId: string, reason: 'owner' | 'client' | 'refresh_token_reused', context: CommandContext): Promise<void> {
    await this.commands.handle(accountStream(accountId), accountDecider, { type: 'RevokeOAuthGrant', grantId, reason }, context)
  }

  /** The account as its stream says now; null when there is no such account. */
  async get(accountId: string): Promise<AccountState | null> {
    // Read before the stream: a write landing in between only makes the next request check again.
    const head = await this.store.headPosition()
    const cached = this.cache.get(accountId)
    if (cached && cached.checkedAt >= head) return cached.state
    // Requests that arrive together share one check, if it started at this head or later.
    const pending = this.checking.get(accountId)
    if (pending && pending.head >= head) return pending.state
    const check = { head, state: this.check(accountId, head) }
    this.checking.set(accountId, check)
    try {
      return await check.state
    } finally {
      if (this.checking.get(accountId) === check) this.checking.delete(accountId)
    }
  }

  /** Reads the account's stream (only its revision, when the kept state is still its latest). */
  private async check(accountId: string, head: number): Promise<AccountState | null> {
    const stream = accountStream(accountId)
    const latest = await this.store.streamRevision(stream)
    if (latest === -1) {
      this.cache.delete(accountId)
      return null
    }
    const cached = this.cache.get(accountId)
    if (cached && cached.revision === latest) {
      cached.checkedAt = Math.max(cached.checkedAt, head)
      return cached.state
    }
    const { state, revision } = await this.commands.load(stream, accountDecider)
    // Keep whichever of two overlapping checks was made at the later head.
    if ((this.cache.get(accountId)?.checkedAt ?? -1) <= head) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string)
      this.cache.set(accountId, { revision, state, checkedAt: head })
    }
    return state
  }

  async require(accountId: string): Promise<AccountState> {
    const account = await this.get(accountId)
    if (!account) throw new DomainError('account_not_found', `no account ${accountId}`)
    return account
  }

  async authenticateWebhookToken(token: string | undefined): Promise<WebhookPrincipal | null> {
    const found = await this.findCredential(token, WEBHOOK_TOKEN_PREFIX, 'webhook_token')
    if (!found) return null
    const live = found.account.webhookToken
    if (!live || live.tokenId !== found.credentialId || !sameHash(live.tokenHash, found.hash)) return null
    return { account: found.account, tokenId: live.tokenId }
  }

  async authenticateApiKey(key: string | undefined): Promise<ApiKeyPrincipal | null> {
    const found = await this.findCredential(key, API_KEY_PREFIX, 'api_key')
    if (!found) return null
    const state = found.account.apiKeys.get(found.credentialId)
    if (!state || state.revokedAt !== null || !sameHash(state.keyHash, found.hash)) return null
    return { account: found.account, keyId: state.keyId, scopes: state.scopes }
  }

  private async findCredential(secret: string | undefined, prefix: string, kind: 'webhook_token' | 'api_key') {
    if (!secret || !secret.startsWith(prefix) || secret.length > MAX_SECRET_LENGTH) return null
    const hash = hashSecret(secret)
    let credential = this.credentials.get(hash) ?? this.queries.credentialByHash(hash)
    if (!credential) {
      // Issued a moment ago (perhaps by the CLI in another process): bring the index up to date once.
      await this.runner.catchUp()
      credential = this.queries.credentialByHash(hash)
    }
    if (!credential || credential.kind !== kind) return null
    if (!this.credentials.has(hash)) {
      if (this.credentials.size >= CACHE_LIMIT) this.credentials.delete(this.credentials.keys().next().value as string)
      this.credentials.set(hash, credential)
    }
    const account = await this.get(credential.accountId)
    return account ? { account, hash, credentialId: credential.credentialId } : null
  }
}
